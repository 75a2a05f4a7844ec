"""A square classifier that needs no training: nearest colour prototype.

Each crop is summarised by the mean Lab colour of its centre disc (where a piece's top
lies). Three prototypes, measured on the start position by calibration (or clustered
from the frame itself when there is none), are empty square, light piece and dark piece;
probabilities fall off as a Gaussian of the distance. A flat colour statistic cannot tell
a king from a man, so the man/king split of a colour is left uncertain (``KING_SHARE``);
the ONNX classifier is the one that reads crowns and stack heights.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from rules.observation import TOP_COUNT, Top

Lab = tuple[float, float, float]
Crops = npt.NDArray[np.uint8]
Probs = npt.NDArray[np.float64]

#: Share of a colour's probability given to its king: uncertain, never the best guess.
KING_SHARE = 0.3
#: Radius of the centre disc, as a fraction of the crop side.
DISC_RADIUS = 0.28
#: Lab distance below which a centre counts as the board square itself.
EMPTY_CONTRAST = 18.0
#: Radius of the disc in which :func:`rim_strengths` looks for a piece's rim, as a
#: fraction of the crop side: a man's edge and shadow lie within it, the square's own
#: edges outside.
RIM_RADIUS = 0.45


def centre_colours(crops: Crops) -> npt.NDArray[np.float64]:
    """(S, 3) mean Lab (OpenCV's 8-bit scaling) of each crop's centre disc."""
    side = crops.shape[1]
    yy, xx = np.mgrid[0:side, 0:side]
    centre = (side - 1) / 2
    disc = (yy - centre) ** 2 + (xx - centre) ** 2 <= (DISC_RADIUS * side) ** 2
    lab = cv2.cvtColor(crops.reshape(-1, side, 3), cv2.COLOR_BGR2LAB).reshape(crops.shape)
    return np.asarray(lab[:, disc].mean(axis=1), np.float64)


def rim_strengths(crops: Crops) -> npt.NDArray[np.float64]:
    """(S,) mean gradient magnitude of each crop's lightness within :data:`RIM_RADIUS`: a
    piece's rim and shadow make it high, a bare square low, whatever their colours (a
    shaded green man on a green square: docs/vision.md, "Sets whose dark men match the
    dark squares")."""
    side = crops.shape[1]
    yy, xx = np.mgrid[0:side, 0:side]
    centre = (side - 1) / 2
    disc = (yy - centre) ** 2 + (xx - centre) ** 2 <= (RIM_RADIUS * side) ** 2
    lightness = cv2.cvtColor(crops.reshape(-1, side, 3), cv2.COLOR_BGR2LAB)[..., 0]
    lightness = lightness.reshape(crops.shape[:3]).astype(np.float32)
    magnitudes = [
        cv2.magnitude(cv2.Sobel(one, cv2.CV_32F, 1, 0), cv2.Sobel(one, cv2.CV_32F, 0, 1))
        for one in lightness
    ]
    return np.array([m[disc].mean() for m in magnitudes], np.float64)


def ring_colours(crops: Crops) -> npt.NDArray[np.float64]:
    """(S, 3) mean Lab of each crop's four corner patches: the bare square, which a round
    piece leaves uncovered. They are inset so that a slightly off fit does not reach into
    the neighbouring squares."""
    side = crops.shape[1]
    inset, patch = max(1, side // 10), max(1, side // 8)
    corners = np.zeros((side, side), bool)
    for y in (inset, side - inset - patch):
        for x in (inset, side - inset - patch):
            corners[y : y + patch, x : x + patch] = True
    lab = cv2.cvtColor(crops.reshape(-1, side, 3), cv2.COLOR_BGR2LAB).reshape(crops.shape)
    return np.asarray(lab[:, corners].mean(axis=1), np.float64)


@dataclass(frozen=True, slots=True)
class ColourPrototypes:
    """Mean centre colours (Lab, 8-bit scaling) of the three things a square can show,
    and ``spread``, the Lab distance at which a match is one standard deviation off."""

    empty: Lab
    light: Lab
    dark: Lab
    spread: float = 12.0
    light_is_white: bool = True

    @classmethod
    def learn(
        cls, crops: Crops, tops: list[Top], *, light_is_white: bool = True
    ) -> ColourPrototypes:
        """From crops whose content is known (the start position)."""
        colours = centre_colours(crops)
        kinds = np.array([_colour_kind(t) for t in tops])
        white, black = (1, 2) if light_is_white else (2, 1)
        means = [colours[kinds == k].mean(axis=0) for k in (0, white, black)]
        residuals = np.concatenate(
            [
                np.linalg.norm(colours[kinds == k] - m, axis=1)
                for k, m in zip((0, white, black), means, strict=True)
            ]
        )
        spread = max(6.0, float(np.percentile(residuals, 90)))
        empty, light, dark = (_lab(m) for m in means)
        return cls(empty, light, dark, spread, light_is_white)

    @classmethod
    def cluster(cls, crops: Crops) -> ColourPrototypes | None:
        """Without calibration: squares whose centre matches their own border are empty;
        the others split in two by lightness, the lighter being white. None when the
        frame shows no pieces of one of the colours."""
        centres = centre_colours(crops)
        occupied = np.linalg.norm(centres - ring_colours(crops), axis=1) > EMPTY_CONTRAST
        if occupied.sum() < 2 or (~occupied).sum() < 1:
            return None
        lightness = centres[occupied, 0]
        threshold = _otsu_split(lightness)
        light, dark = (
            centres[occupied][lightness > threshold],
            centres[occupied][lightness <= threshold],
        )
        if len(light) == 0 or len(dark) == 0:
            return None
        empty = centres[~occupied].mean(axis=0)
        spread = max(8.0, float(np.linalg.norm(light.mean(axis=0) - dark.mean(axis=0))) / 4)
        return cls(_lab(empty), _lab(light.mean(axis=0)), _lab(dark.mean(axis=0)), spread)


@dataclass(frozen=True, slots=True)
class PrototypeClassifier:
    """Nearest-prototype :class:`vision.classifier.SquareClassifier`."""

    prototypes: ColourPrototypes

    def predict(
        self,
        crops: Crops,
        views: npt.NDArray[np.float64] | None = None,
        strips: Crops | None = None,
    ) -> Probs:
        """Colours only: ``views`` and ``strips`` do not matter to them."""
        p = self.prototypes
        white, black = (p.light, p.dark) if p.light_is_white else (p.dark, p.light)
        centres = np.asarray([p.empty, white, black], np.float64)
        colours = centre_colours(crops)
        distance = np.linalg.norm(colours[:, None, :] - centres[None, :, :], axis=2)
        logits = -0.5 * (distance / p.spread) ** 2
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        kind = weights / weights.sum(axis=1, keepdims=True)
        probs = np.empty((len(crops), TOP_COUNT), np.float64)
        probs[:, Top.EMPTY] = kind[:, 0]
        probs[:, Top.WHITE_MAN] = kind[:, 1] * (1 - KING_SHARE)
        probs[:, Top.WHITE_KING] = kind[:, 1] * KING_SHARE
        probs[:, Top.BLACK_MAN] = kind[:, 2] * (1 - KING_SHARE)
        probs[:, Top.BLACK_KING] = kind[:, 2] * KING_SHARE
        return probs


def _colour_kind(top: Top) -> int:
    """0 empty, 1 white piece, 2 black piece."""
    return 0 if top == Top.EMPTY else 1 if top in (Top.WHITE_MAN, Top.WHITE_KING) else 2


def _lab(values: npt.NDArray[np.float64]) -> Lab:
    return float(values[0]), float(values[1]), float(values[2])


def _otsu_split(values: npt.NDArray[np.float64]) -> float:
    """The threshold that best separates ``values`` into two groups (Otsu's criterion)."""
    ordered = np.sort(values)
    best, threshold = -1.0, float(ordered[0])
    for k in range(1, len(ordered)):
        low, high = ordered[:k], ordered[k:]
        score = len(low) * len(high) * (low.mean() - high.mean()) ** 2
        if score > best:
            best, threshold = float(score), float(ordered[k - 1])
    return threshold
