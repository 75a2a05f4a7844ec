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
from synth import meshes, post, shaders
from synth.board_texture import BoardLayout, board_image, layout_for
from synth.camera import Camera, distortion_maps, place_camera
from synth.hand import Part, hand_parts
from synth.pieces import STRIPE_NEUTRAL, Disc, Placement, discs, placements, stack_height
from synth.scene import BOARD_SCHEMES, Style, kelvin_to_rgb

BOARD_THICKNESS_MM = 14.0
AMBIENT = 0.38
SHADOW_MAP_PX = 512
LIGHT_DISTANCE_MM = 2000.0
WHITE = (1.0, 1.0, 1.0)
# Surface looks, the fragment shader's ``mode``.
MODE_FLAT, MODE_BOARD, MODE_PIECE, MODE_HAND = 0, 1, 2, 3
MAX_STACK = 24
MAX_DISCS = 512
DISC_FLOATS = 10  # x, y, z, turn, radius, height, r, g, b, stripe
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


def _gl_matrix(m: NDArray[np.float64]) -> bytes:
    """Column-major float32 bytes, as GLSL reads a mat4."""
    return np.ascontiguousarray(m.T, dtype=np.float32).tobytes()


def _model(
    translate: tuple[float, float, float],
    scale: tuple[float, float, float],
    angle: float = 0.0,
) -> NDArray[np.float64]:
    """Model matrix: scale, then turn ``angle`` about z, then move to ``translate``."""
    c, s = math.cos(angle), math.sin(angle)
    m = np.diag([scale[0], scale[1], scale[2], 1.0])
    rot = np.eye(4)
    rot[:2, :2] = [[c, -s], [s, c]]
    m = rot @ m
    m[:3, 3] = translate
    return m


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
        self.shadow_vaos: dict[str, moderngl.VertexArray] = {}
        for name, mesh in (
            ("disc", meshes.disc()),
            ("box", meshes.box()),
            ("quad", meshes.quad()),
            ("sphere", meshes.sphere()),
        ):
            vbo = self.ctx.buffer(mesh.tobytes())
            self.vaos[name] = self.ctx.vertex_array(
                self.program, [(vbo, "3f 3f", "in_pos", "in_normal")]
            )
            self.shadow_vaos[name] = self.ctx.vertex_array(
                self.shadow_program, [(vbo, "3f 12x", "in_pos")]
            )
            if name == "disc":
                disc_vbo = vbo
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
    ) -> Rendered:
        """Stacks at arbitrary places (a game in progress); the truth lists those on squares.

        ``hand_target`` (world mm) puts the style's hand there, or a default hand if the
        style has none; ``camera_jitter`` moves the camera's aim point by that many mm.
        """
        variant = position.variant
        layout = layout_for(style, variant.geometry)
        camera = place_camera(style, layout.width_mm, self.size, jitter=camera_jitter)
        parts = hand_parts(style, layout, hand_target)
        self._draw(camera.pinhole(), style, layout, placed, variant.towers, parts)
        colour = self._through_lens(camera, self._read(0), cv2.INTER_LINEAR)
        image = post.finish(colour, style, frame_seed, self._grain)
        occlusion_mask = None
        if parts:
            occlusion_mask = (
                self._through_lens(camera, self._read(1), cv2.INTER_NEAREST)[..., 0] > 127
            )
        truth = build_truth(position, placed, style, layout, camera, variant.towers, occlusion_mask)
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
            rgba = np.dstack([image, np.ones(image.shape[:2], np.float32)])
            pixels = np.round(rgba * 255).astype(np.uint8)
            texture = self.ctx.texture(image.shape[1::-1], 4, pixels.tobytes())
            texture.build_mipmaps()
            # Plain mipmapping: llvmpipe's anisotropic filtering costs more than the rest.
            texture.filter = (moderngl.LINEAR_MIPMAP_LINEAR, moderngl.LINEAR)
            if len(self._textures) >= _TEXTURE_CACHE:
                self._textures.pop(next(iter(self._textures))).release()
            self._textures[key] = texture
        return texture

    def _set(self, name: str, value: object, *, raw: bool = False) -> None:
        """Set a uniform in both table programs (a program that lacks it is skipped)."""
        for program in (self.program, self.disc_program):
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
    ) -> None:
        """Shadows from the light, then the table into the frame.

        Nearest first (hand, pieces, board) so that llvmpipe's early depth test skips
        hidden fragments. The table is the clear colour: a flat surface under a
        directional light has one colour.
        """
        light = kelvin_to_rgb(style.colour_temp_k)
        az, el = math.radians(style.light_azimuth_deg), math.radians(style.light_elevation_deg)
        light_view_proj = _gl_matrix(_light_matrix(az, el, layout.width_mm))
        count = self._load_discs(discs(placed, style, towers, layout))
        self._cast_shadows(light_view_proj, count, parts)

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
        self.shadow_map.use(1)
        self._set("shadow_map", 1)
        self._texture(style).use(0)
        self._set("board_tex", 0)
        for part in parts:
            self._shape_draw("sphere", part.model, Surface(part.colour, MODE_HAND, 0.15, 12.0))
        if count:
            self._set_surface(Surface(WHITE, MODE_PIECE, 0.35, 40.0))
            self.disc_vao.render(instances=count)
        w = layout.width_mm
        board_top = _model((0.0, 0.0, 0.01), (w, w, 1.0))
        self._shape_draw("quad", board_top, Surface(WHITE, MODE_BOARD, 0.08, 24.0))
        edge = tuple(0.8 * c for c in BOARD_SCHEMES[style.board][2])
        slab = _model((0.0, 0.0, -BOARD_THICKNESS_MM / 2), (w, w, BOARD_THICKNESS_MM))
        self._shape_draw("box", slab, Surface(edge, MODE_FLAT))  # type: ignore[arg-type]

    def _load_discs(self, board_discs: list[Disc]) -> int:
        """Write the discs into the instance buffer; returns how many."""
        if len(board_discs) > MAX_DISCS:
            raise ValueError(
                f"{len(board_discs)} discs on the board; at most {MAX_DISCS} can be drawn"
            )
        rows = np.array(
            [
                (d.x, d.y, d.z, d.angle, d.radius, d.height, *d.colour, float(d.stripe))
                for d in board_discs
            ],
            dtype=np.float32,
        ).reshape(-1, DISC_FLOATS)
        if len(rows):
            self.instances.write(rows.tobytes())
        return len(rows)

    def _cast_shadows(self, light_view_proj: bytes, count: int, parts: list[Part]) -> None:
        """Depth from the light of everything that casts a shadow (pieces, hand)."""
        self.shadow_frame.clear(depth=1.0)
        self.shadow_frame.use()
        self.ctx.enable(moderngl.DEPTH_TEST)
        for program in (self.shadow_program, self.disc_shadow_program):
            uniform = program["light_view_proj"]
            assert isinstance(uniform, moderngl.Uniform)
            uniform.write(light_view_proj)
        if count:
            self.disc_shadow_vao.render(instances=count)
        model = self.shadow_program["model"]
        assert isinstance(model, moderngl.Uniform)
        for part in parts:
            model.write(_gl_matrix(part.model))
            self.shadow_vaos["sphere"].render()

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
    half = board_width_mm * 0.75
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
    """What the image shows: stacks per square, grid corners, camera, square centres."""
    geometry = position.variant.geometry
    on_square = {p.square: p.stack for p in placed if p.square is not None}
    squares, centres, tops, occlusion = {}, {}, {}, {}
    for square in geometry.squares:
        name = geometry.name(square)
        stack = on_square.get(square, ())
        squares[name] = stack_string(stack)
        x, y = layout.cell_centre(*geometry.rowcol(square))
        z = stack_height(stack, towers, layout)
        uv = camera.project(np.array([[x, y, 0.0], [x, y, z]]))
        centres[name] = uv[0].round(2).tolist()
        tops[name] = uv[1].round(2).tolist()
        occlusion[name] = 0.0
        if occlusion_mask is not None:
            occlusion[name] = _covered(occlusion_mask, camera, layout, x, y)
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


def _covered(
    mask: NDArray[np.bool_], camera: Camera, layout: BoardLayout, x: float, y: float
) -> float:
    """Fraction of a square's image (at the board plane) that the hand covers."""
    h = layout.square_mm / 2
    quad = camera.project(
        np.array([[x - h, y - h, 0], [x + h, y - h, 0], [x + h, y + h, 0], [x - h, y + h, 0]])
    )
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


def render_position(
    position: Position, style: Style, size: tuple[int, int] = (640, 480)
) -> Rendered:
    """Render one image in a fresh context (use a :class:`Renderer` for many)."""
    with Renderer(size) as renderer:
        return renderer.render(position, style)
