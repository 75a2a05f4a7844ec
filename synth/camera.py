"""A pinhole camera placed from a :class:`~synth.scene.Style`, in OpenCV's conventions.

OpenCV's camera frame (x right, y down, z forward) is the truth that vision checks
against; the OpenGL matrices are derived from it so both agree to a fraction of a pixel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from synth.scene import Style

F64 = NDArray[np.float64]
NEAR_MM, FAR_MM = 50.0, 20000.0  # a near plane close to the eye wastes depth precision


@dataclass(frozen=True)
class Camera:
    """Intrinsics ``K`` and pose ``R``, ``t`` (world to camera: ``x_cam = R x + t``)."""

    K: F64
    R: F64
    t: F64
    width: int
    height: int
    dist: F64 = field(default_factory=lambda: np.zeros(5))
    """OpenCV distortion coefficients (k1, k2, p1, p2, k3)."""

    @property
    def distorted(self) -> bool:
        return bool(np.any(self.dist))

    def pinhole(self) -> Camera:
        """The distortion-free camera to render with: same pose, focal length shortened
        until its image covers everything the distorted lens sees (barrel distortion
        sees beyond the pinhole's frame)."""
        if not self.distorted:
            return self
        w, h = self.width, self.height
        edge = np.array(
            [
                [0, 0],
                [w / 2, 0],
                [w - 1, 0],
                [w - 1, h / 2],
                [w - 1, h - 1],
                [w / 2, h - 1],
                [0, h - 1],
                [0, h / 2],
            ],
            dtype=np.float32,
        ).reshape(-1, 1, 2)
        seen = cv2.undistortPoints(edge, self.K, self.dist, P=self.K).reshape(-1, 2)
        reach = np.abs(seen - self.K[:2, 2]).max(axis=0) / np.array([w / 2, h / 2])
        scale = 1.0 / max(1.0, float(reach.max()) * 1.02)
        K = self.K.copy()
        K[0, 0] *= scale
        K[1, 1] *= scale
        return Camera(K=K, R=self.R, t=self.t, width=w, height=h)

    @property
    def centre(self) -> F64:
        """The camera's position in the world."""
        return np.asarray(-self.R.T @ self.t, dtype=np.float64)

    def project(self, points: F64) -> F64:
        """Pixel coordinates (N, 2) of world points (N, 3), through the lens distortion."""
        if self.distorted:
            rvec, _ = cv2.Rodrigues(self.R)
            uv, _ = cv2.projectPoints(points.astype(np.float64), rvec, self.t, self.K, self.dist)
            return np.asarray(uv.reshape(-1, 2), dtype=np.float64)
        cam = points @ self.R.T + self.t
        uvw = cam @ self.K.T
        return np.asarray(uvw[:, :2] / uvw[:, 2:3], dtype=np.float64)

    def gl_view(self) -> F64:
        """World to OpenGL eye space (y up, looking down -z)."""
        flip = np.diag([1.0, -1.0, -1.0])
        view = np.eye(4)
        view[:3, :3] = flip @ self.R
        view[:3, 3] = flip @ self.t
        return view

    def gl_projection(self) -> F64:
        """OpenGL projection matching ``K``, for an image read back top row first.

        OpenCV puts pixel centres on integers, OpenGL on half-integers: hence the 0.5.
        """
        w, h = self.width, self.height
        fx, fy = self.K[0, 0], self.K[1, 1]
        cx, cy = self.K[0, 2] + 0.5, self.K[1, 2] + 0.5
        n, f = NEAR_MM, FAR_MM
        return np.array(
            [
                [2 * fx / w, 0.0, 1 - 2 * cx / w, 0.0],
                [0.0, 2 * fy / h, 2 * cy / h - 1, 0.0],
                [0.0, 0.0, -(f + n) / (f - n), -2 * f * n / (f - n)],
                [0.0, 0.0, -1.0, 0.0],
            ]
        )


def place_camera(
    style: Style,
    board_width_mm: float,
    size: tuple[int, int],
    jitter: tuple[float, float] = (0.0, 0.0),
) -> Camera:
    """Aim the camera at the board as ``style`` says: tilt, azimuth, roll, focal length, fill.

    ``jitter`` moves the aim point by that many mm (a camera arm that sways).
    """
    width, height = size
    focal = style.focal_px * width / 640.0
    K = np.array([[focal, 0.0, (width - 1) / 2], [0.0, focal, (height - 1) / 2], [0.0, 0.0, 1.0]])
    tilt, az, roll = (math.radians(a) for a in (style.tilt_deg, style.azimuth_deg, style.roll_deg))
    target = np.array(
        [
            style.offset[0] * board_width_mm + jitter[0],
            style.offset[1] * board_width_mm + jitter[1],
            0.0,
        ]
    )
    to_camera = np.array(
        [math.sin(tilt) * math.sin(az), -math.sin(tilt) * math.cos(az), math.cos(tilt)]
    )
    # The board spans `fill` of the shorter image side when seen square on.
    distance = focal * board_width_mm / (style.fill * min(width, height))
    centre = target + distance * to_camera
    forward = -to_camera
    towards_white = np.array([math.sin(az), -math.cos(az), 0.0])
    down = towards_white - forward * float(towards_white @ forward)
    down /= np.linalg.norm(down)
    right = np.cross(down, forward)
    c, s = math.cos(roll), math.sin(roll)
    right, down = c * right + s * down, -s * right + c * down
    R = np.stack([right, down, forward])
    t = -R @ centre
    dist = np.array([style.distortion[0], style.distortion[1], 0.0, 0.0, 0.0])
    return Camera(K=K, R=R, t=t, width=width, height=height, dist=dist)


def distortion_maps(
    camera: Camera, step: int = 4
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """``cv2.remap`` maps that turn the pinhole render into the distorted image.

    For each pixel of the distorted image, the pixel of the :meth:`Camera.pinhole`
    render it sees: OpenCV's iterative ``undistortPoints`` inverts the distortion model
    that :meth:`Camera.project` applies. It runs on a grid every ``step`` pixels and is
    interpolated between (the maps are smooth; every pixel would cost 40 ms a lens).
    """
    h, w = camera.height, camera.width
    nx, ny = -(-(w - 1) // step) + 1, -(-(h - 1) // step) + 1
    us, vs = np.meshgrid(
        np.linspace(0, w - 1, nx, dtype=np.float32), np.linspace(0, h - 1, ny, dtype=np.float32)
    )
    pixels = np.stack([us.ravel(), vs.ravel()], axis=1).reshape(-1, 1, 2)
    render = camera.pinhole()
    coarse = cv2.undistortPoints(pixels, camera.K, camera.dist, P=render.K).reshape(ny, nx, 2)
    # Bilinear interpolation, separable: along rows, then columns (in float: cv2.remap's
    # fixed-point weights would cost a twentieth of a pixel).
    fine = _interpolate(_interpolate(coarse.astype(np.float64), w, axis=1), h, axis=0)
    return fine[..., 0].astype(np.float32), fine[..., 1].astype(np.float32)


def _interpolate(samples: NDArray[np.float64], size: int, axis: int) -> NDArray[np.float64]:
    """Linear interpolation along ``axis`` of samples spanning 0..size-1, to ``size``."""
    points = samples.shape[axis]
    place = np.arange(size) * ((points - 1) / (size - 1))
    low = np.minimum(np.floor(place).astype(int), points - 2)
    shape = [1] * samples.ndim
    shape[axis] = size
    frac = (place - low).reshape(shape)
    below, above = np.take(samples, low, axis=axis), np.take(samples, low + 1, axis=axis)
    return np.asarray(below * (1 - frac) + above * frac, dtype=np.float64)
