"""The camera's sensor after the lens: blur, noise, quantisation, JPEG."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from synth.scene import Style


def finish(rgb: NDArray[np.float32], style: Style, frame_seed: int = 0) -> NDArray[np.uint8]:
    """An RGB float image (0..1) as the camera would deliver it: BGR uint8."""
    image = rgb[..., ::-1] * 255.0
    if style.blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), style.blur_sigma)
    if style.noise_sigma > 0:
        rng = np.random.default_rng((style.seed, frame_seed))
        image = (
            image
            + rng.normal(0.0, style.noise_sigma, image.shape[:2])[..., None]
            + rng.normal(0.0, style.noise_sigma * 0.5, image.shape)
        )
    out = np.clip(image + 0.5, 0, 255).astype(np.uint8)
    if style.jpeg_quality:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return np.ascontiguousarray(out)
