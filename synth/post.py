"""The camera's sensor after the lens: blur, noise, quantisation, JPEG."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from synth.scene import Style


def finish(rgb: NDArray[np.uint8], style: Style, frame_seed: int = 0) -> NDArray[np.uint8]:
    """An RGB image as the camera would deliver it: blurred, noisy, JPEG'd, BGR."""
    image = cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)
    if style.blur_sigma > 0:
        image = cv2.GaussianBlur(image, (0, 0), style.blur_sigma)
    if style.noise_sigma > 0:
        rng = np.random.default_rng((style.seed, frame_seed))
        # Mostly luminance noise, as a small sensor's; float32 keeps it quick.
        grain = rng.standard_normal(image.shape[:2], dtype=np.float32) * style.noise_sigma
        noisy = image.astype(np.float32) + grain[..., None]
        image = np.clip(noisy, 0, 255).astype(np.uint8)
    if style.jpeg_quality:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg_quality])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            image = decoded
    return np.ascontiguousarray(image)
