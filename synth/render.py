"""Render a position on a table with moderngl (headless EGL) and say what the image shows.

One :class:`Renderer` holds the GL context, programs and meshes; reuse it across renders
(creating a context costs far more than a frame). :func:`render_position` is the one-shot
convenience for tests and the CLI.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import cv2
import moderngl
import numpy as np
from numpy.typing import NDArray

from rules.pieces import stack_string
from rules.position import Position
from rules.variants import Color
from synth import meshes, post, shaders
from synth.board_texture import BoardLayout, board_image, layout_for
from synth.camera import Camera, distortion_maps, place_camera
from synth.clutter import (
    BOARD_THICKNESS_MM,
    Clock,
    Item,
    clock_items,
    place_clock,
    scoresheet_items,
)
from synth.hand import Part, hand_parts
from synth.pieces import STRIPE_NEUTRAL, Disc, Placement, discs, placements, stack_height
from synth.scene import BOARD_SCHEMES, Style, kelvin_to_rgb
from synth.table import TABLE_TILE_MM, scoresheet_image, table_image

AMBIENT = 0.38
SHADOW_MAP_PX = 768
SHADOW_MARGIN_MM = 260.0
"""How far beyond the board's edge the shadow map reaches (the clock's shadow)."""
LIGHT_DISTANCE_MM = 2000.0
WHITE = (1.0, 1.0, 1.0)
TABLE_REACH = 8.0
"""The table top spans this many board widths (beyond it: the clear colour)."""
# Surface looks, the fragment shader's ``mode``.
MODE_FLAT, MODE_BOARD, MODE_PIECE, MODE_HAND, MODE_TABLE, MODE_PAPER = 0, 1, 2, 3, 4, 5
# What the occlusion target holds: the hand, or other clutter (clock, scoresheet).
MASK_HAND, MASK_CLUTTER = 1.0, 0.5
_ITEM_SURFACES = {"plastic": (MODE_FLAT, 0.25, 30.0), "lcd": (MODE_FLAT, 0.3, 60.0)}
MAX_STACK = 24
MAX_DISCS = 512
DISC_FLOATS = 10  # x, y, z, turn, radius, height, r, g, b, stripe
MAX_PARTS = 64
PART_FLOATS = 28  # model matrix (16), normal matrix (9), colour (3), columns first
PART_MESHES = ("sphere", "cylinder")
_TEXTURE_CACHE = 8


@dataclass(frozen=True)
class Rendered:
    """An image (H, W, 3 uint8, BGR as OpenCV reads it) and its ground truth (JSON-ready)."""

    image: NDArray[np.uint8]
    truth: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Surface:
    """How one mesh is shaded: base colour, shader mode, Blinn-Phong highlight."""

    colour: tuple[float, float, float]
    mode: int
    specular: float = 0.1
    shininess: float = 16.0
    occluder: float = 0.0
    """What the surface writes into the occlusion target (MASK_HAND, MASK_CLUTTER)."""


def _gl_matrix(m: NDArray[np.float64]) -> bytes:
    """Column-major float32 bytes, as GLSL reads a mat4."""
    return np.ascontiguousarray(m.T, dtype=np.float32).tobytes()


class Renderer:
    """A headless OpenGL context with the table's meshes, rendering ``size`` images."""

    def __init__(
        self,
        size: tuple[int, int] = (640, 480),
    ) -> None:
        self.size = size
        self.ctx = moderngl.create_standalone_context(backend="egl")  # type: ignore[arg-type]
        self.program = self.ctx.program(
            vertex_shader=shaders.VERTEX, fragment_shader=shaders.FRAGMENT
        )
        self.shadow_program = self.ctx.program(
            vertex_shader=shaders.SHADOW_VERTEX, fragment_shader=shaders.SHADOW_FRAGMENT
        )
        self.vaos: dict[str, moderngl.VertexArray] = {}
        self._mesh_vbos: dict[str, moderngl.Buffer] = {}
        self.shadow_vaos: dict[str, moderngl.VertexArray] = {}
        for name, mesh in (
            ("disc", meshes.disc()),
            ("box", meshes.box()),
            ("quad", meshes.quad()),
            ("sphere", meshes.sphere()),
            ("cylinder", meshes.cylinder()),
        ):
            vbo = self.ctx.buffer(mesh.tobytes())
            self._mesh_vbos[name] = vbo
            self.vaos[name] = self.ctx.vertex_array(
                self.program, [(vbo, "3f 3f", "in_pos", "in_normal")]
            )
            self.shadow_vaos[name] = self.ctx.vertex_array(
                self.shadow_program, [(vbo, "3f 12x", "in_pos")]
            )
            if name == "disc":
                disc_vbo = vbo
        # Hand parts: one instanced draw per mesh (a hand is some twenty parts).
        self.part_program = self.ctx.program(
            vertex_shader=shaders.PART_VERTEX, fragment_shader=shaders.FRAGMENT
        )
        self.part_shadow_program = self.ctx.program(
            vertex_shader=shaders.PART_SHADOW_VERTEX, fragment_shader=shaders.SHADOW_FRAGMENT
        )
        self.part_instances: dict[str, moderngl.Buffer] = {}
        self.part_vaos: dict[str, moderngl.VertexArray] = {}
        self.part_shadow_vaos: dict[str, moderngl.VertexArray] = {}
        columns = ("i_m0", "i_m1", "i_m2", "i_m3")
        for name in PART_MESHES:
            instances = self.ctx.buffer(reserve=MAX_PARTS * PART_FLOATS * 4, dynamic=True)
            self.part_instances[name] = instances
            self.part_vaos[name] = self.ctx.vertex_array(
                self.part_program,
                [
                    (self._mesh_vbos[name], "3f 3f", "in_pos", "in_normal"),
                    (
                        instances,
                        "4f 4f 4f 4f 3f 3f 3f 3f/i",
                        *columns,
                        "i_n0",
                        "i_n1",
                        "i_n2",
                        "i_colour",
                    ),
                ],
            )
            self.part_shadow_vaos[name] = self.ctx.vertex_array(
                self.part_shadow_program,
                [
                    (self._mesh_vbos[name], "3f 12x", "in_pos"),
                    (instances, "4f 4f 4f 4f 48x/i", *columns),
                ],
            )
        self.table_program = self.ctx.program(
            vertex_shader=shaders.TABLE_VERTEX, fragment_shader=shaders.TABLE_FRAGMENT
        )
        table_vbo = self.ctx.buffer(meshes.grid().tobytes())
        self.table_vao = self.ctx.vertex_array(
            self.table_program, [(table_vbo, "3f 12x", "in_pos")]
        )
        # Discs: one instanced draw, each instance (x, y, z, turn, radius, height, rgb, stripe).
        self.disc_program = self.ctx.program(
            vertex_shader=shaders.DISC_VERTEX, fragment_shader=shaders.FRAGMENT
        )
        self.disc_shadow_program = self.ctx.program(
            vertex_shader=shaders.DISC_SHADOW_VERTEX, fragment_shader=shaders.SHADOW_FRAGMENT
        )
        self.instances = self.ctx.buffer(reserve=MAX_DISCS * DISC_FLOATS * 4, dynamic=True)
        self.disc_vao = self.ctx.vertex_array(
            self.disc_program,
            [
                (disc_vbo, "3f 3f", "in_pos", "in_normal"),
                (self.instances, "4f 2f 3f 1f/i", "i_place", "i_size", "i_colour", "i_stripe"),
            ],
        )
        self.disc_shadow_vao = self.ctx.vertex_array(
            self.disc_shadow_program,
            [(disc_vbo, "3f 12x", "in_pos"), (self.instances, "4f 2f 16x/i", "i_place", "i_size")],
        )
        self.shadow_map = self.ctx.depth_texture((SHADOW_MAP_PX, SHADOW_MAP_PX))
        self.shadow_map.compare_func = "<="  # sampler2DShadow: 2x2 filtered comparisons
        self.shadow_map.filter = (moderngl.LINEAR, moderngl.LINEAR)
        self.shadow_frame = self.ctx.framebuffer(depth_attachment=self.shadow_map)
        w, h = size
        # Colour, and the hand's occlusion mask as a second target (one pass for both).
        colour, mask = self.ctx.renderbuffer(size), self.ctx.renderbuffer(size)
        self.frame = self.ctx.framebuffer(
            color_attachments=[colour, mask], depth_attachment=self.ctx.depth_renderbuffer(size)
        )
        # The mask target alone, to clear it to black after the frame's table colour.
        self._mask_only = self.ctx.framebuffer(color_attachments=[mask])
        self._grain = post.grain_bank(size)
        self._lens_maps: dict[
            tuple[bytes, bytes], tuple[NDArray[np.float32], NDArray[np.float32]]
        ] = {}
        self._textures: dict[tuple[object, ...], moderngl.Texture] = {}
        self._surfaces: dict[tuple[object, ...], moderngl.Texture] = {}
        self._shape = (h, w)

    def __enter__(self) -> Renderer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.ctx.release()

    # -- one frame ---------------------------------------------------------------------------

    def render(self, position: Position, style: Style) -> Rendered:
        """The position on the style's board, seen by the style's camera."""
        check_fits(position, style)
        layout = layout_for(style, position.variant.geometry)
        return self.render_placements(position, placements(position, layout), style)

    def render_placements(
        self,
        position: Position,
        placed: list[Placement],
        style: Style,
        *,
        hand_target: tuple[float, float, float] | None = None,
        camera_jitter: tuple[float, float] = (0.0, 0.0),
        frame_seed: int = 0,
        hand_pose: str | None = None,
        grip_radius_mm: float = 0.0,
        clock_pressed: Color | None = None,
    ) -> Rendered:
        """Stacks at arbitrary places (a game in progress); the truth lists those on squares.

        ``hand_target`` (world mm) puts the style's hand there, or a default hand if the
        style has none, its fingers in ``hand_pose`` (default: the style's) round a piece
        of ``grip_radius_mm``; ``camera_jitter`` moves the camera's aim point by that many
        mm. ``clock_pressed``: whose clock button is down (default: the player who is not
        to move, as after his move).
        """
        # Another renderer's context may be current (two renderers in one process).
        with self.ctx:
            return self._render_placements(
                position,
                placed,
                style,
                hand_target=hand_target,
                camera_jitter=camera_jitter,
                frame_seed=frame_seed,
                hand_pose=hand_pose,
                grip_radius_mm=grip_radius_mm,
                clock_pressed=clock_pressed,
            )

    def _render_placements(
        self,
        position: Position,
        placed: list[Placement],
        style: Style,
        *,
        hand_target: tuple[float, float, float] | None,
        camera_jitter: tuple[float, float],
        frame_seed: int,
        hand_pose: str | None,
        grip_radius_mm: float,
        clock_pressed: Color | None,
    ) -> Rendered:
        variant = position.variant
        layout = layout_for(style, variant.geometry)
        camera = place_camera(style, layout.width_mm, self.size, jitter=camera_jitter)
        parts = hand_parts(
            style, layout, hand_target, pose=hand_pose, grip_radius_mm=grip_radius_mm
        )
        clock = place_clock(style, layout)
        pressed = clock_pressed or position.turn.other
        items = scoresheet_items(style, layout)
        if clock is not None:
            items += clock_items(clock, pressed)
        self._draw(camera.pinhole(), style, layout, placed, variant.towers, parts, items)
        colour = self._through_lens(camera, self._read(0), cv2.INTER_LINEAR)
        image = post.finish(colour, style, frame_seed, self._grain)
        occluded, hand_seen = None, False
        if parts or items:
            mask = self._through_lens(camera, self._read(1), cv2.INTER_NEAREST)[..., 0]
            occluded = mask > round(255 * MASK_CLUTTER / 2)
            hand_seen = bool((mask > round(255 * (MASK_HAND + MASK_CLUTTER) / 2)).any())
        truth = build_truth(position, placed, style, layout, camera, variant.towers, occluded)
        truth["hand"] = hand_seen
        truth["clock"] = _clock_truth(clock, camera, pressed)
        truth["glare"] = _glare_truth(style, layout, camera)
        return Rendered(image, truth)

    def _texture(self, style: Style) -> moderngl.Texture:
        """The board's top as a mipmapped texture, cached per board look."""
        key = (
            style.seed,
            style.variant,
            style.board,
            style.square_mm,
            style.border_mm,
            style.markers,
            style.coordinates,
        )
        texture = self._textures.get(key)
        if texture is None:
            image = board_image(style, style.rules_variant.geometry)
            pixels = (image * 255 + 0.5).astype(np.uint8)
            texture = self._upload(pixels, self._textures, key)
        return texture

    def _upload(
        self,
        pixels: NDArray[np.uint8],
        cache: dict[tuple[object, ...], moderngl.Texture],
        key: tuple[object, ...],
        *,
        repeat: bool = False,
    ) -> moderngl.Texture:
        """A mipmapped byte texture from an image (top row first), kept in ``cache``."""
        texture = self.ctx.texture(pixels.shape[1::-1], pixels.shape[2], pixels.tobytes())
        texture.build_mipmaps()
        # Plain mipmapping: llvmpipe's anisotropic filtering costs more than the rest.
        texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
        texture.repeat_x = texture.repeat_y = repeat
        if len(cache) >= _TEXTURE_CACHE:
            cache.pop(next(iter(cache))).release()
        cache[key] = texture
        return texture

    def _table_texture(self, style: Style) -> moderngl.Texture:
        key = ("table", style.table_texture)
        texture = self._surfaces.get(key)
        if texture is None:
            pixels = table_image(style.table_texture)[..., None]
            texture = self._upload(pixels, self._surfaces, key, repeat=True)
        return texture

    def _paper_texture(self, style: Style) -> moderngl.Texture:
        key = ("paper", style.seed % 4)
        texture = self._surfaces.get(key)
        if texture is None:
            pixels = scoresheet_image(style.seed % 4)[::-1]  # the shader's v runs up
            texture = self._upload(np.ascontiguousarray(pixels), self._surfaces, key)
        return texture

    def _set(self, name: str, value: object, *, raw: bool = False) -> None:
        """Set a uniform in both table programs (a program that lacks it is skipped)."""
        for program in (self.program, self.disc_program, self.part_program, self.table_program):
            if name in program:
                uniform = program[name]
                assert isinstance(uniform, moderngl.Uniform)
                if raw:
                    assert isinstance(value, bytes)
                    uniform.write(value)
                else:
                    uniform.value = value

    def _set_surface(self, surface: Surface) -> None:
        self._set("mode", surface.mode)
        self._set("specular", surface.specular)
        self._set("shininess", surface.shininess)
        self._set("occluder", surface.occluder)

    def _shape_draw(self, mesh: str, model: NDArray[np.float64], surface: Surface) -> None:
        self._set("model", _gl_matrix(model), raw=True)
        self._set(
            "normal_matrix", _gl_matrix(np.linalg.inv(model[:3, :3]).T.astype(np.float64)), raw=True
        )
        self._set("colour", surface.colour)
        self._set_surface(surface)
        self.vaos[mesh].render()

    def _draw(
        self,
        camera: Camera,
        style: Style,
        layout: BoardLayout,
        placed: list[Placement],
        towers: bool,
        parts: list[Part],
        items: list[Item],
    ) -> None:
        """Shadows from the light, then the table into the frame.

        Nearest first (hand, pieces, board, clutter, table) so that llvmpipe's early
        depth test skips hidden fragments.
        """
        light = kelvin_to_rgb(style.colour_temp_k)
        az, el = math.radians(style.light_azimuth_deg), math.radians(style.light_elevation_deg)
        light_view_proj = _gl_matrix(_light_matrix(az, el, layout.width_mm))
        count = self._load_discs(discs(placed, style, towers, layout))
        part_counts = self._load_parts(parts)
        self._cast_shadows(light_view_proj, count, part_counts, items)

        # Beyond the table top (far off at a steep tilt): the table's colour, lit.
        table_light = (AMBIENT + (1 - AMBIENT) * math.sin(el)) * style.exposure
        r, g, b = np.clip(np.array(style.table) * light * table_light, 0, 1).tolist()
        self.frame.clear(r, g, b, 1.0)
        self._mask_only.clear(0.0, 0.0, 0.0, 1.0)
        self.frame.use()
        self.ctx.enable(moderngl.DEPTH_TEST)
        self._set("view_proj", _gl_matrix(camera.gl_projection() @ camera.gl_view()), raw=True)
        self._set("light_view_proj", light_view_proj, raw=True)
        self._set(
            "light_dir", (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))
        )
        self._set("light_colour", tuple(light.tolist()))
        self._set("ambient", AMBIENT)
        self._set("eye", tuple(camera.centre.tolist()))
        self._set("exposure", style.exposure)
        self._set("stripe_colour", STRIPE_NEUTRAL)
        self._set("sticker_radius", style.sticker_radius)
        self._set("sticker_ink", style.sticker_ink)
        w = layout.width_mm
        lamp = tuple(float(c) * w for c in style.lamp)
        self._set("lamp_pos", lamp)
        self._set("lamp_power", style.glare)
        self.shadow_map.use(1)
        self._set("shadow_map", 1)
        self._texture(style).use(0)
        self._set("board_tex", 0)
        self._table_texture(style).use(2)
        self._set("table_tex", 2)
        self._set("table_tile", TABLE_TILE_MM)
        if any(item.look == "paper" for item in items):
            self._paper_texture(style).use(3)
            self._set("paper_tex", 3)
        if parts:
            self._set_surface(Surface(WHITE, MODE_HAND, 0.15, 12.0, MASK_HAND))
            for mesh, instances in part_counts.items():
                if instances:
                    self.part_vaos[mesh].render(instances=instances)
        if count:
            self._set_surface(Surface(WHITE, MODE_PIECE, 0.35, 40.0))
            self.disc_vao.render(instances=count)
        board_top = meshes.model_matrix((0.0, 0.0, 0.01), (w, w, 1.0))
        self._shape_draw("quad", board_top, Surface(WHITE, MODE_BOARD, 0.08, 24.0))
        edge = tuple(0.8 * c for c in BOARD_SCHEMES[style.board][2])
        # The slab's top stays under the printed top: at equal depth the two would fight.
        slab = meshes.model_matrix(
            (0.0, 0.0, -(BOARD_THICKNESS_MM + 0.5) / 2), (w, w, BOARD_THICKNESS_MM - 0.5)
        )
        self._shape_draw("box", slab, Surface(edge, MODE_FLAT))  # type: ignore[arg-type]
        for item in items:
            if item.look == "paper":
                surface = Surface(WHITE, MODE_PAPER, 0.1, 12.0, MASK_CLUTTER)
            else:
                mode, spec, shine = _ITEM_SURFACES[item.look]
                surface = Surface(item.colour, mode, spec, shine, MASK_CLUTTER)
            self._shape_draw(item.mesh, item.model, surface)
        table = meshes.model_matrix(
            (0.0, 0.0, -BOARD_THICKNESS_MM), (w * TABLE_REACH, w * TABLE_REACH, 1.0)
        )
        self._set("model", _gl_matrix(table), raw=True)
        self._set("colour", style.table)
        self._set_surface(Surface(WHITE, MODE_TABLE, 0.06, 10.0))
        self.table_vao.render()

    def _load_discs(self, board_discs: list[Disc]) -> int:
        """Write the discs into the instance buffer; returns how many."""
        if len(board_discs) > MAX_DISCS:
            raise ValueError(
                f"{len(board_discs)} discs on the board; at most {MAX_DISCS} can be drawn"
            )
        rows = np.array(
            [
                (d.x, d.y, d.z, d.angle, d.radius, d.height, *d.colour, _mark(d))
                for d in board_discs
            ],
            dtype=np.float32,
        ).reshape(-1, DISC_FLOATS)
        if len(rows):
            self.instances.write(rows.tobytes())
        return len(rows)

    def _load_parts(self, parts: list[Part]) -> dict[str, int]:
        """Write the hand's parts into each mesh's instance buffer; returns how many each."""
        counts = {}
        for mesh in PART_MESHES:
            chosen = [p for p in parts if p.mesh == mesh]
            if len(chosen) > MAX_PARTS:
                raise ValueError(f"{len(chosen)} hand parts; at most {MAX_PARTS} can be drawn")
            rows = [
                np.concatenate(
                    [p.model.T.ravel(), np.linalg.inv(p.model[:3, :3]).ravel(), p.colour]
                )
                for p in chosen
            ]
            if rows:
                self.part_instances[mesh].write(np.asarray(rows, dtype=np.float32).tobytes())
            counts[mesh] = len(rows)
        return counts

    def _cast_shadows(
        self, light_view_proj: bytes, count: int, part_counts: dict[str, int], items: list[Item]
    ) -> None:
        """Depth from the light of everything that casts a shadow (pieces, hand, clock)."""
        self.shadow_frame.clear(depth=1.0)
        self.shadow_frame.use()
        self.ctx.enable(moderngl.DEPTH_TEST)
        for program in (self.shadow_program, self.disc_shadow_program, self.part_shadow_program):
            uniform = program["light_view_proj"]
            assert isinstance(uniform, moderngl.Uniform)
            uniform.write(light_view_proj)
        if count:
            self.disc_shadow_vao.render(instances=count)
        model = self.shadow_program["model"]
        assert isinstance(model, moderngl.Uniform)
        # Hands' depth pushed back by the surface's slope: round parts seen edge-on by the
        # light would otherwise shadow themselves in stripes (acne). Flat-topped discs and
        # boxes need none (and their shadows stay where vision's tests expect them).
        self.ctx.polygon_offset = (2.5, 8.0)
        for mesh, parts in part_counts.items():
            if parts:
                self.part_shadow_vaos[mesh].render(instances=parts)
        self.ctx.polygon_offset = (0.0, 0.0)
        for item in items:
            if item.casts_shadow and item.mesh != "quad":
                model.write(_gl_matrix(item.model))
                self.shadow_vaos[item.mesh].render()

    def _through_lens(
        self, camera: Camera, image: NDArray[np.uint8], interpolation: int
    ) -> NDArray[np.uint8]:
        """The pinhole render bent by the camera's lens distortion (maps cached per lens)."""
        if not camera.distorted:
            return image
        key = (camera.K.tobytes(), camera.dist.tobytes())
        maps = self._lens_maps.get(key)
        if maps is None:
            maps = distortion_maps(camera)
            if len(self._lens_maps) >= _TEXTURE_CACHE:
                self._lens_maps.pop(next(iter(self._lens_maps)))
            self._lens_maps[key] = maps
        bent = cv2.remap(image, maps[0], maps[1], interpolation, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(bent, dtype=np.uint8)

    def _read(self, attachment: int) -> NDArray[np.uint8]:
        """A target of the frame, RGB, top row first (OpenGL reads bottom row first)."""
        data = self.frame.read(components=3, attachment=attachment)
        return np.frombuffer(data, dtype=np.uint8).reshape(*self._shape, 3)[::-1]


def _mark(disc: Disc) -> float:
    """The shader's mark code for a disc: 0 none, 1 a king's stripe, 2 a crown sticker."""
    return 2.0 if disc.crown else float(disc.stripe)


def _light_matrix(azimuth: float, elevation: float, board_width_mm: float) -> NDArray[np.float64]:
    """Orthographic view-projection of a directional light covering the board."""
    towards = np.array(
        [
            math.cos(elevation) * math.cos(azimuth),
            math.cos(elevation) * math.sin(azimuth),
            math.sin(elevation),
        ]
    )
    eye = towards * LIGHT_DISTANCE_MM
    forward = -towards
    up = np.array([0.0, 1.0, 0.0]) if abs(forward[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    view = np.eye(4)
    view[:3, :3] = np.stack([right, up, -forward])
    view[:3, 3] = -view[:3, :3] @ eye
    half = board_width_mm / 2 + SHADOW_MARGIN_MM
    near, far = LIGHT_DISTANCE_MM - 1500.0, LIGHT_DISTANCE_MM + 500.0
    ortho = np.diag([1 / half, 1 / half, -2 / (far - near), 1.0])
    ortho[2, 3] = -(far + near) / (far - near)
    return ortho @ view


def check_fits(position: Position, style: Style) -> None:
    """Refuse a position that cannot stand on the style's board."""
    if position.variant.name != style.rules_variant.name:
        raise ValueError(
            f"a {position.variant.name} position cannot stand on the {style.variant} board "
            f"of this style ({style.rules_variant.size}x{style.rules_variant.size})"
        )
    geometry = position.variant.geometry
    for square, stack in position.stacks():
        if len(stack) > MAX_STACK:
            raise ValueError(
                f"square {geometry.name(square)} holds {len(stack)} pieces; "
                f"at most {MAX_STACK} can be stacked"
            )


def order_corners(points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Four image points ordered clockwise as seen in the image, top-left first."""
    centre = points.mean(axis=0)
    angles = np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0])
    ordered = points[np.argsort(angles)]  # image y points down, so this runs clockwise
    first = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -first, axis=0)


def build_truth(
    position: Position,
    placed: list[Placement],
    style: Style,
    layout: BoardLayout,
    camera: Camera,
    towers: bool,
    occlusion_mask: NDArray[np.bool_] | None,
) -> dict[str, Any]:
    """What the image shows: stacks per square, grid corners, camera, square centres.

    ``occlusion_mask``: pixels where a hand or clutter is the nearest surface.
    """
    geometry = position.variant.geometry
    on_square = {p.square: p.stack for p in placed if p.square is not None}
    names = [geometry.name(square) for square in geometry.squares]
    stacks = [on_square.get(square, ()) for square in geometry.squares]
    centre_xy = np.array([layout.cell_centre(*geometry.rowcol(sq)) for sq in geometry.squares])
    heights = np.array([stack_height(stack, towers, layout, style) for stack in stacks])
    count = len(names)
    # Every point in one projection: centres on the board, stack tops, square corners.
    h = layout.square_mm / 2
    offsets = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    points = np.concatenate(
        [
            np.column_stack([centre_xy, np.zeros(count)]),
            np.column_stack([centre_xy, heights]),
            np.column_stack(
                [(centre_xy[:, None, :] + offsets[None]).reshape(-1, 2), np.zeros(4 * count)]
            ),
        ]
    )
    uv = camera.project(points)
    quads = uv[2 * count :].reshape(count, 4, 2)
    squares = {name: stack_string(stack) for name, stack in zip(names, stacks, strict=True)}
    centres = {name: uv[i].round(2).tolist() for i, name in enumerate(names)}
    tops = {name: uv[count + i].round(2).tolist() for i, name in enumerate(names)}
    occlusion = {
        name: 0.0 if occlusion_mask is None else _covered(occlusion_mask, quads[i])
        for i, name in enumerate(names)
    }
    corners = order_corners(camera.project(layout.grid_corners()))
    return {
        "variant": position.variant.name,
        "seed": style.seed,
        "style": style.as_dict(),
        "size": [camera.width, camera.height],
        "squares": squares,
        "corners": corners.round(2).tolist(),
        "camera_matrix": camera.K.round(4).tolist(),
        "rotation": camera.R.round(6).tolist(),
        "translation": camera.t.round(4).tolist(),
        "centres": centres,
        "tops": tops,
        "occlusion": occlusion,
        "hand": occlusion_mask is not None and bool(occlusion_mask.any()),
    }


def _covered(mask: NDArray[np.bool_], quad: NDArray[np.float64]) -> float:
    """Fraction of a square's image (``quad``: its corners in pixels, at the board plane)
    that a hand or clutter covers."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    rows, cols = mask.shape
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, cols), min(y1, rows)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    region = np.zeros((y1 - y0, x1 - x0), dtype=np.uint8)
    cv2.fillConvexPoly(region, np.round(quad - [x0, y0]).astype(np.int32), 1)
    area = int(region.sum())
    if area == 0:
        return 0.0
    return round(float((mask[y0:y1, x0:x1] & (region > 0)).sum()) / area, 3)


def _clock_truth(clock: Clock | None, camera: Camera, pressed: Color) -> dict[str, Any] | None:
    """Where the clock shows in the image: its top's corners, each button's top."""
    if clock is None:
        return None
    buttons = camera.project(
        np.stack([clock.button(side, side is pressed) for side in (Color.WHITE, Color.BLACK)])
    )
    return {
        "pressed": "white" if pressed is Color.WHITE else "black",
        "corners": camera.project(clock.top_corners()).round(2).tolist(),
        "buttons": {"white": buttons[0].round(2).tolist(), "black": buttons[1].round(2).tolist()},
    }


def glare_point(style: Style, layout: BoardLayout, camera: Camera) -> NDArray[np.float64]:
    """Where on the board plane (world mm) the camera sees the lamp's mirror image."""
    lamp = np.array(style.lamp) * layout.width_mm
    eye = camera.centre
    # The lamp mirrored under the plane z = 0; the reflection lies on the line eye -> mirror.
    mirror = lamp * np.array([1.0, 1.0, -1.0])
    t = eye[2] / (eye[2] - mirror[2])
    return np.asarray(eye + (mirror - eye) * t, dtype=np.float64)


def _glare_truth(style: Style, layout: BoardLayout, camera: Camera) -> list[float] | None:
    """The lamp's reflection in pixels, if there is a lamp and it falls on the board."""
    if style.glare <= 0:
        return None
    point = glare_point(style, layout, camera)
    if np.abs(point[:2]).max() > layout.width_mm / 2:
        return None
    uv = camera.project(point[None, :])[0]
    if not (0 <= uv[0] < camera.width and 0 <= uv[1] < camera.height):
        return None
    return [round(float(uv[0]), 2), round(float(uv[1]), 2)]


def render_position(
    position: Position, style: Style, size: tuple[int, int] = (640, 480)
) -> Rendered:
    """Render one image in a fresh context (use a :class:`Renderer` for many)."""
    with Renderer(size) as renderer:
        return renderer.render(position, style)
