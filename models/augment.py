"""Training-time augmentation of square crops, standing in for the real world.

Colour and brightness jitter (other lamps, other sets), blur (focus, motion), sensor
noise, JPEG artefacts (the Pi's encoder), off-centre shifts (calibration error, a piece
not centred on its square), partial occlusion (a hand or sleeve) and glare spots.
Operates on uint8 ``(H, W, 3)`` RGB; the label never changes, so each step keeps the
content readable.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def _colour_jitter(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    gain = rng.uniform(0.7, 1.3) * rng.uniform(0.9, 1.1, size=3)  # brightness, white balance
    offset = rng.uniform(-20, 20)
    contrast = rng.uniform(0.8, 1.2)
    out = img.astype(np.float32)
    mean = out.mean()
    out = (out - mean) * contrast + mean
    jittered: np.ndarray = np.clip(out * gain + offset, 0, 255).astype(np.uint8)
    return jittered


def _blur(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    sigma = rng.uniform(0.3, 1.5)
    return cv2.GaussianBlur(img, (0, 0), sigma)


def _noise(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    noisy = img.astype(np.float32) + rng.normal(0, rng.uniform(2, 10), size=img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def _jpeg(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    quality = int(rng.integers(30, 90))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV always encodes a valid uint8 image
        return img
    decoded = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
    return img if decoded is None else np.asarray(decoded)


def _shift(
    rng: np.random.Generator,
    img: np.ndarray,
    *,
    max_px: tuple[float, float] | None = None,
    degrees: float = 8.0,
    scale: float = 0.08,
) -> np.ndarray:
    """Moved by up to ``max_px`` (default 8% of each side), turned by up to ``degrees``
    and scaled by up to ``scale`` about the centre."""
    h, w = img.shape[:2]
    dx, dy = rng.uniform(-1, 1, size=2) * (max_px or (0.08 * w, 0.08 * h))
    angle = rng.uniform(-degrees, degrees)
    factor = rng.uniform(1 - scale, 1 + scale)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, factor)
    m[:, 2] += (dx, dy)
    return cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)


def _occlude(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Cover one edge strip of at most a quarter of the crop: the piece stays mostly visible."""
    out = img.copy()
    h = img.shape[0]
    depth = int(rng.integers(2, max(3, h // 4)))
    colour = rng.integers(0, 256, size=3).astype(np.uint8)
    side = int(rng.integers(0, 4))
    if side == 0:
        out[:depth] = colour
    elif side == 1:
        out[-depth:] = colour
    elif side == 2:
        out[:, :depth] = colour
    else:
        out[:, -depth:] = colour
    return out


def _glare(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    radius = rng.uniform(0.08, 0.25) * w
    spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius**2)) * rng.uniform(40, 140)
    lit: np.ndarray = np.clip(img.astype(np.float32) + spot[..., None], 0, 255).astype(np.uint8)
    return lit


def augment(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """One random augmentation of a uint8 RGB crop (same shape out)."""
    # A mirror image left to right is as real as the crop; upside down is not (the
    # displaced top of a stack lies up in the crop).
    out = np.ascontiguousarray(img[:, ::-1]) if rng.random() < 0.5 else img
    if rng.random() < 0.7:
        out = _shift(rng, out)
    return _photometric(rng, out, occlude=True)


def _photometric(rng: np.random.Generator, img: np.ndarray, *, occlude: bool) -> np.ndarray:
    """Lamp, glare, (an edge covered,) focus, sensor noise and the encoder."""
    out = _colour_jitter(rng, img) if rng.random() < 0.8 else img
    if rng.random() < 0.2:
        out = _glare(rng, out)
    if occlude and rng.random() < 0.15:
        out = _occlude(rng, out)
    if rng.random() < 0.4:
        out = _blur(rng, out)
    if rng.random() < 0.5:
        out = _noise(rng, out)
    if rng.random() < 0.4:
        out = _jpeg(rng, out)
    return out


def augment_strip(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """One random augmentation of a band strip (:mod:`vision.band`): as :func:`augment`,
    but shifted by at most 2 px and turned by at most 3 degrees, never scaled (the
    band's length in rows is what a tower's height is read from) nor occluded."""
    out = np.ascontiguousarray(img[:, ::-1]) if rng.random() < 0.5 else img
    if rng.random() < 0.7:
        out = _shift(rng, out, max_px=(2.0, 2.0), degrees=3.0, scale=0.0)
    return _photometric(rng, out, occlude=False)


def augment_batch(
    rng: np.random.Generator, crops: np.ndarray, one: Callable[..., np.ndarray] = augment
) -> np.ndarray:
    """Augment each crop of ``(N, H, W, 3)`` uint8 independently (``one``: how)."""
    return np.stack([one(rng, c) for c in crops])
