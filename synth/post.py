"""The camera's sensor after the lens: blur, noise, quantisation, JPEG."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from synth.scene import Style


def grain_bank(size: tuple[int, int], seed: int = 0) -> NDArray[np.float32]:
    """Unit Gaussian noise twice the frame's size; frames take seeded windows of it.

    Drawing 300,000 normals per frame costs more than rendering it; a window at a random
    offset is as good as fresh noise for a classifier that sees crops.
    """
    width, height = size
    rng = np.random.default_rng(seed)
    return rng.standard_normal((2 * height, 2 * width), dtype=np.float32)


def finish(
    rgb: NDArray[np.uint8], style: Style, frame_seed: int, grain: NDArray[np.float32]
) -> NDArray[np.uint8]:
    """An RGB image as the camera would deliver it: blurred, noisy, JPEG'd, BGR."""
    image = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    if style.vignette > 0:
        height, width = image.shape[:2]
        ys = np.linspace(-1.0, 1.0, height, dtype=np.float32)[:, None]
        xs = np.linspace(-1.0, 1.0, width, dtype=np.float32)[None, :]
        falloff = 1.0 - np.float32(style.vignette) * (xs * xs + ys * ys) / 2.0
        image = np.clip(image * falloff[..., None], 0, 255).astype(np.uint8)
    if style.blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), style.blur_sigma)
    if style.noise_sigma > 0:
        height, width = image.shape[:2]
        rng = np.random.default_rng((style.seed, frame_seed))
        oy = int(rng.integers(0, grain.shape[0] - height + 1))
        ox = int(rng.integers(0, grain.shape[1] - width + 1))
        # Luminance noise, as a small sensor's mostly is.
        window = grain[oy : oy + height, ox : ox + width] * np.float32(style.noise_sigma)
        noisy = image.astype(np.float32) + window[..., None]
        image = np.clip(noisy, 0, 255).astype(np.uint8)
    if style.jpeg_quality:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            image = decoded
    return np.ascontiguousarray(image)
