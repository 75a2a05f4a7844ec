"""Unit meshes as interleaved float32 triangles: position (3) then normal (3) per vertex."""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]


def model_matrix(
    translate: NDArray[np.float64] | tuple[float, float, float],
    scale: tuple[float, float, float],
    angle: float = 0.0,
) -> NDArray[np.float64]:
    """Model matrix of a unit mesh: scale, then turn ``angle`` about z, then move to
    ``translate``."""
    c, s = math.cos(angle), math.sin(angle)
    m = np.diag([scale[0], scale[1], scale[2], 1.0])
    rot = np.eye(4)
    rot[:2, :2] = [[c, -s], [s, c]]
    m = rot @ m
    m[:3, 3] = translate
    return m


#: A draughts piece's side profile (radius, height) from bottom centre to top centre,
#: for a disc of radius 1 and height 1: chamfered bottom and top edges.
DISC_PROFILE: tuple[tuple[float, float], ...] = (
    (0.0, 0.0),
    (0.94, 0.0),
    (1.0, 0.14),
    (1.0, 0.86),
    (0.93, 1.0),
    (0.0, 1.0),
)


def disc(segments: int = 40) -> F32:
    """A bevelled disc of radius 1 standing on z = 0, height 1, revolved from its profile.

    Normals are smooth around the axis and flat along the profile, so the bevels catch
    the light as separate bands, as on turned wooden pieces.
    """
    rows: list[list[float]] = []
    angles = [2 * math.pi * i / segments for i in range(segments + 1)]
    for (r0, z0), (r1, z1) in itertools.pairwise(DISC_PROFILE):
        # Outward normal of the profile segment in the (r, z) plane.
        nr, nz = z1 - z0, -(r1 - r0)
        length = math.hypot(nr, nz)
        nr, nz = nr / length, nz / length
        for a0, a1 in itertools.pairwise(angles):
            corners = []
            for r, z, a in ((r0, z0, a0), (r1, z1, a0), (r1, z1, a1), (r0, z0, a1)):
                c, s = math.cos(a), math.sin(a)
                corners.append([r * c, r * s, z, nr * c, nr * s, nz])
            for i in (0, 1, 2, 0, 2, 3):
                rows.append(corners[i])
    return np.asarray(rows, dtype=np.float32)


def box() -> F32:
    """The cube [-0.5, 0.5]^3 with outward face normals."""
    rows: list[list[float]] = []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            normal = [0.0, 0.0, 0.0]
            normal[axis] = sign
            u, v = (axis + 1) % 3, (axis + 2) % 3
            quad = []
            for du, dv in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)):
                p = [0.0, 0.0, 0.0]
                p[axis], p[u], p[v] = 0.5 * sign, du, dv
                quad.append(p + normal)
            order = (0, 1, 2, 0, 2, 3) if sign > 0 else (0, 2, 1, 0, 3, 2)
            rows.extend(quad[i] for i in order)
    return np.asarray(rows, dtype=np.float32)


def quad() -> F32:
    """The square [-0.5, 0.5]^2 at z = 0 facing +z."""
    corners = [[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]
    return np.asarray(
        [corners[i] + [0.0, 0.0, 0.0, 1.0] for i in (0, 1, 2, 0, 2, 3)], dtype=np.float32
    )


def sphere(segments: int = 16, rings: int = 10) -> F32:
    """The unit sphere, for the rounded ends of forearms and fingers."""
    rows: list[list[float]] = []

    def point(i: int, j: int) -> list[float]:
        theta, phi = math.pi * i / rings, 2 * math.pi * j / segments
        p = [math.sin(theta) * math.cos(phi), math.sin(theta) * math.sin(phi), math.cos(theta)]
        return p + p

    for i in range(rings):
        for j in range(segments):
            a, b, c, d = point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)
            rows.extend([a, b, c, a, c, d])
    return np.asarray(rows, dtype=np.float32)


def cylinder(segments: int = 16) -> F32:
    """A closed cylinder along x from -1 to 1, radius 1: a sleeve with a flat cuff."""
    rows: list[list[float]] = []
    angles = [2 * math.pi * i / segments for i in range(segments + 1)]
    for a0, a1 in itertools.pairwise(angles):
        (c0, s0), (c1, s1) = (math.cos(a0), math.sin(a0)), (math.cos(a1), math.sin(a1))
        side = [
            [-1.0, c0, s0, 0.0, c0, s0],
            [1.0, c0, s0, 0.0, c0, s0],
            [1.0, c1, s1, 0.0, c1, s1],
            [-1.0, c1, s1, 0.0, c1, s1],
        ]
        rows.extend(side[i] for i in (0, 2, 1, 0, 3, 2))
        for x in (-1.0, 1.0):
            centre = [x, 0.0, 0.0, x, 0.0, 0.0]
            rim = [[x, c0, s0, x, 0.0, 0.0], [x, c1, s1, x, 0.0, 0.0]]
            rows.extend([centre, rim[0], rim[1]] if x > 0 else [centre, rim[1], rim[0]])
    return np.asarray(rows, dtype=np.float32)


def grid(cells: int = 48) -> F32:
    """The square [-0.5, 0.5]^2 at z = 0 facing +z, in ``cells`` x ``cells`` quads (for
    lighting computed per vertex)."""
    rows: list[list[float]] = []
    edges = [i / cells - 0.5 for i in range(cells + 1)]
    for (x0, x1), (y0, y1) in itertools.product(
        itertools.pairwise(edges), itertools.pairwise(edges)
    ):
        corners = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
        rows.extend(corners[i] + [0.0, 0.0, 0.0, 1.0] for i in (0, 1, 2, 0, 2, 3))
    return np.asarray(rows, dtype=np.float32)
