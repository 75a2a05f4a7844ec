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
from synth.camera import Camera, place_camera
from synth.hand import Part, hand_parts
from synth.pieces import STRIPE_NEUTRAL, Placement, discs, placements, stack_height
from synth.scene import BOARD_SCHEMES, Style, kelvin_to_rgb

BOARD_THICKNESS_MM = 14.0
AMBIENT = 0.38
WHITE = (1.0, 1.0, 1.0)
# Surface looks, the fragment shader's ``mode``.
MODE_FLAT, MODE_BOARD, MODE_PIECE, MODE_HAND = 0, 1, 2, 3
MAX_STACK = 24
_TEXTURE_CACHE = 8


@dataclass(frozen=True)
class Rendered:
    """An image (H, W, 3 uint8, BGR as OpenCV reads it) and its ground truth (JSON-ready)."""

    image: NDArray[np.uint8]
    truth: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class Surface:
    """How one mesh is shaded: base colour, shader mode, Blinn-Phong highlight, stripe."""

    colour: tuple[float, float, float]
    mode: int
    specular: float = 0.1
    shininess: float = 16.0
    stripe: bool = False


def _gl_matrix(m: NDArray[np.float64]) -> bytes:
    """Column-major float32 bytes, as GLSL reads a mat4."""
    return np.ascontiguousarray(m.T, dtype=np.float32).tobytes()


def _model(
    translate: tuple[float, float, float],
    scale: tuple[float, float, float],
    angle: float = 0.0,
) -> NDArray[np.float64]:
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
        self.vaos = {
            name: self.ctx.vertex_array(
                self.program, [(self.ctx.buffer(mesh.tobytes()), "3f 3f", "in_pos", "in_normal")]
            )
            for name, mesh in (
                ("disc", meshes.disc()),
                ("box", meshes.box()),
                ("quad", meshes.quad()),
                ("sphere", meshes.sphere()),
            )
        }
        w, h = size
        # Colour, and the hand's occlusion mask as a second target (one pass for both).
        colour, mask = self.ctx.renderbuffer(size), self.ctx.renderbuffer(size)
        self.frame = self.ctx.framebuffer(
            color_attachments=[colour, mask], depth_attachment=self.ctx.depth_renderbuffer(size)
        )
        # The mask target alone, to clear it to black after the frame's table colour.
        self._mask_only = self.ctx.framebuffer(color_attachments=[mask])
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
        style has none; ``camera_jitter`` shifts the camera by pixels-worth of aim.
        """
        variant = position.variant
        layout = layout_for(style, variant.geometry)
        camera = place_camera(style, layout.width_mm, self.size, jitter=camera_jitter)
        parts = hand_parts(style, layout, hand_target)
        self._draw(camera, style, layout, placed, variant.towers, parts)
        image = post.finish(self._read(0), style, frame_seed)
        occlusion_mask = self._read(1)[..., 0] > 127 if parts else None
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

    def _set(self, name: str, value: object) -> None:
        uniform = self.program[name]
        assert isinstance(uniform, moderngl.Uniform)
        uniform.value = value

    def _shape_draw(self, mesh: str, model: NDArray[np.float64], surface: Surface) -> None:
        uniform = self.program["model"]
        assert isinstance(uniform, moderngl.Uniform)
        uniform.write(_gl_matrix(model))
        self._set("colour", surface.colour)
        self._set("mode", surface.mode)
        self._set("specular", surface.specular)
        self._set("shininess", surface.shininess)
        self._set("stripe", int(surface.stripe))
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
        """Draw the table into the frame.

        Nearest first (hand, pieces, board) so that llvmpipe's early depth test skips
        hidden fragments. The table is the clear colour: a flat surface under a
        directional light has one colour.
        """
        light = kelvin_to_rgb(style.colour_temp_k)
        az, el = math.radians(style.light_azimuth_deg), math.radians(style.light_elevation_deg)
        table_light = (AMBIENT + (1 - AMBIENT) * math.sin(el)) * style.exposure
        r, g, b = np.clip(np.array(style.table) * light * table_light, 0, 1).tolist()
        self.frame.clear(r, g, b, 1.0)
        self._mask_only.clear(0.0, 0.0, 0.0, 1.0)
        self.frame.use()
        self.ctx.enable(moderngl.DEPTH_TEST)
        view_proj = self.program["view_proj"]
        assert isinstance(view_proj, moderngl.Uniform)
        view_proj.write(_gl_matrix(camera.gl_projection() @ camera.gl_view()))
        self._set(
            "light_dir", (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))
        )
        self._set("light_colour", tuple(light.tolist()))
        self._set("ambient", AMBIENT)
        self._set("eye", tuple(camera.centre.tolist()))
        self._set("exposure", style.exposure)
        self._set("stripe_colour", STRIPE_NEUTRAL)
        for part in parts:
            self._shape_draw("sphere", part.model, Surface(part.colour, MODE_HAND, 0.15, 12.0))
        for d in discs(placed, style, towers, layout):
            model = _model((d.x, d.y, d.z), (d.radius, d.radius, d.height), d.angle)
            self._shape_draw("disc", model, Surface(d.colour, MODE_PIECE, 0.35, 40.0, d.stripe))
        self._texture(style).use(0)
        self._set("board_tex", 0)
        w = layout.width_mm
        self._shape_draw(
            "quad", _model((0.0, 0.0, 0.01), (w, w, 1.0)), Surface(WHITE, MODE_BOARD, 0.08, 24.0)
        )
        edge = tuple(0.8 * c for c in BOARD_SCHEMES[style.board][2])
        slab = _model((0.0, 0.0, -BOARD_THICKNESS_MM / 2), (w, w, BOARD_THICKNESS_MM))
        self._shape_draw("box", slab, Surface(edge, MODE_FLAT))  # type: ignore[arg-type]

    def _read(self, attachment: int) -> NDArray[np.uint8]:
        """A target of the frame, RGB, top row first (OpenGL reads bottom row first)."""
        data = self.frame.read(components=3, attachment=attachment)
        return np.frombuffer(data, dtype=np.uint8).reshape(*self._shape, 3)[::-1]


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
        "size": list(camera_size(camera)),
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


def camera_size(camera: Camera) -> tuple[int, int]:
    return camera.width, camera.height


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
