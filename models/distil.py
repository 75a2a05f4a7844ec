"""Knowledge distillation for fine-tunes: keep what a teacher model reads right.

A fine-tune on new renders (crowned kings, near-nadir stacks) learns kings and heights
but has each time drifted the colours the real photos depend on (purple men read teal:
docs/models.md). The teacher, a shipped ONNX model run by onnxruntime on the same
augmented batch, pins two things the student must keep:

- its colour distribution, empty / White piece / Black piece (man and king summed), so
  the student may move mass between man and king but not between colours;
- its 64 features by cosine, the space the per-set start-frame prototypes are compared in;
- where the student does the teacher's whole job (a cheaper kings model taught by the
  shipped one), its whole readings: the top and the height distributions, and where the
  teacher has a crown probe (:mod:`models.crown_probe`), its crown log-odds, which the
  student learns through a crown head of its own (:func:`crown_kl`).

Needs torch (the optional ``train`` extra), as :mod:`models.train` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from models.classifier import OnnxSquareClassifier
from models.crown_probe import OUTPUT as CROWN_OUTPUT
from rules.observation import Top

COLOUR_GROUPS = (
    (Top.EMPTY,),
    (Top.WHITE_MAN, Top.WHITE_KING),
    (Top.BLACK_MAN, Top.BLACK_KING),
)
"""The top classes summed into each colour: empty, a White piece, a Black piece."""


def colour_log_probs(top_logits: torch.Tensor) -> torch.Tensor:
    """``(N, 5)`` top logits -> ``(N, 3)`` log-probabilities of empty / White / Black."""
    log_probs = F.log_softmax(top_logits, dim=1)
    return torch.stack(
        [torch.logsumexp(log_probs[:, list(group)], dim=1) for group in COLOUR_GROUPS], dim=1
    )


@dataclass(frozen=True)
class TeacherReading:
    """The teacher's raw outputs on one batch: ``top_logits (N, 5)``, ``height_logits
    (N, 9)``, ``features (N, 64)``, and ``crown_logits (N,)`` where it has a crown probe."""

    top_logits: torch.Tensor
    height_logits: torch.Tensor
    features: torch.Tensor
    crown_logits: torch.Tensor | None = None

    def rows(self, rows: slice) -> TeacherReading:
        """The reading of these rows of the batch."""
        crowns = None if self.crown_logits is None else self.crown_logits[rows]
        return TeacherReading(
            self.top_logits[rows], self.height_logits[rows], self.features[rows], crowns
        )


@dataclass(frozen=True)
class Teacher:
    """A model file read by onnxruntime (no gradients), on the student's very input."""

    classifier: OnnxSquareClassifier

    @classmethod
    def load(cls, path: Path) -> Teacher:
        """:raises models.classifier.ModelFileError: the file or its card is unreadable."""
        return cls(OnnxSquareClassifier.load(path))

    def read(self, x: np.ndarray, views: np.ndarray | None = None) -> TeacherReading:
        """``x``: the net's input ``(N, 3, H, W)`` float32 (``models.classifier.to_input``);
        ``views (N, 1)`` float32, the view tangents, for a teacher that reads them.

        :raises ValueError: the input is not of the teacher's crop size, or the teacher
            reads view tangents and none are given.
        """
        expected = (3, *self.classifier.crop_size)
        if x.ndim != 4 or x.shape[1:] != expected:
            raise ValueError(
                f"input of shape {x.shape} given; teacher {self.classifier.path.name} expects "
                f"(N, {', '.join(map(str, expected))})"
            )
        feeds = {"crops": x}
        if self.classifier.reads_views:
            if views is None:
                raise ValueError(
                    f"teacher {self.classifier.path.name} reads view tangents: give views"
                )
            feeds["views"] = views
        names = ["top_logits", "height_logits", "features"]
        if self.has_crowns:
            names.append(CROWN_OUTPUT)
        top, height, features, *crown = (
            torch.from_numpy(a) for a in self.classifier.session.run(names, feeds)
        )
        return TeacherReading(top, height, features, crown[0][:, 0] if crown else None)

    @property
    def has_crowns(self) -> bool:
        """The teacher's file has a crown probe's output (:mod:`models.crown_probe`)."""
        return CROWN_OUTPUT in (o.name for o in self.classifier.session.get_outputs())


def distillation_loss(
    student_top_logits: torch.Tensor,
    student_features: torch.Tensor,
    teacher: TeacherReading,
    *,
    colour_weight: float,
    feature_weight: float,
    reading_weight: float = 0.0,
    student_height_logits: torch.Tensor | None = None,
) -> torch.Tensor:
    """``colour_weight`` x KL(teacher colour || student colour), mean over the batch,
    plus ``feature_weight`` x mean (1 - cosine) of student and teacher features, plus
    ``reading_weight`` x the KL of the whole top distribution and of the height one
    (``student_height_logits`` needed then). Zero when the student reads as the teacher
    does, positive otherwise."""
    loss = student_top_logits.new_zeros(())
    if reading_weight > 0:
        if student_height_logits is None:
            raise ValueError("distilling the readings needs the student's height logits")
        rows = _reading_kl(student_top_logits, student_height_logits, teacher)
        loss = loss + reading_weight * rows.mean()
    if colour_weight > 0:
        loss = loss + colour_weight * _kl(
            colour_log_probs(student_top_logits), colour_log_probs(teacher.top_logits)
        )
    if feature_weight > 0:
        # Half the squared distance of the unit vectors is 1 - cosine; unlike
        # cosine_similarity it is 0, not 1, where both are all zero (ReLU features).
        apart = F.normalize(student_features, dim=1) - F.normalize(teacher.features, dim=1)
        loss = loss + feature_weight * 0.5 * apart.pow(2).sum(dim=1).mean()
    return loss


def reading_disagreement(
    student_top_logits: torch.Tensor,
    student_height_logits: torch.Tensor,
    teacher: TeacherReading,
    student_crown_logits: torch.Tensor | None = None,
) -> np.ndarray:
    """``(N,)`` each row's KL(teacher || student) over the top plus over the height
    distribution, plus over the crown where the student has a crown head
    (``student_crown_logits``, :func:`crown_kl`): how far the student reads each crop
    from its teacher (the readings term of :func:`distillation_loss`, row by row)."""
    with torch.no_grad():
        rows = _reading_kl(student_top_logits, student_height_logits, teacher)
        if student_crown_logits is not None:
            rows = rows + crown_kl(student_crown_logits, teacher)
    return np.asarray(rows.numpy(), np.float64)


def _reading_kl(
    student_top_logits: torch.Tensor, student_height_logits: torch.Tensor, teacher: TeacherReading
) -> torch.Tensor:
    """``(N,)`` KL(teacher || student) over the top plus over the height distribution."""
    return sum(
        (
            F.kl_div(
                F.log_softmax(student, dim=1),
                F.log_softmax(target, dim=1),
                log_target=True,
                reduction="none",
            ).sum(dim=1)
            for student, target in (
                (student_top_logits, teacher.top_logits),
                (student_height_logits, teacher.height_logits),
            )
        ),
        start=student_top_logits.new_zeros(len(student_top_logits)),
    )


def crown_kl(student_crown_logits: torch.Tensor, teacher: TeacherReading) -> torch.Tensor:
    """``(N,)`` each row's KL(teacher || student) between the two crown probabilities,
    the sigmoids of ``student_crown_logits (N,)`` and of the teacher's crown log-odds,
    weighed by the teacher's odds that a piece stands there: its probe was fitted on
    pieces alone, and says nothing of an empty square.

    Session 45's strided student, taught the teacher's tops, heights and features, kept
    the crown sticker in its features too weakly for a probe fitted afterwards to lift
    the webcam's crowned kings (docs/models.md, "The strided kings model, photo cells
    mined"). A crown head trained with the net on the teacher's crown log-odds asks the
    features to carry it.

    :raises ValueError: the teacher has no crown probe.
    """
    if teacher.crown_logits is None:
        raise ValueError("the teacher has no crown_logits output: fit its crown probe first")
    student, target = student_crown_logits, teacher.crown_logits
    both = torch.stack([F.logsigmoid(student), F.logsigmoid(-student)], dim=1)
    expected = torch.stack([F.logsigmoid(target), F.logsigmoid(-target)], dim=1)
    piece = 1.0 - F.softmax(teacher.top_logits, dim=1)[:, Top.EMPTY]
    return piece * F.kl_div(both, expected, log_target=True, reduction="none").sum(dim=1)


def _kl(student_log_probs: torch.Tensor, teacher_log_probs: torch.Tensor) -> torch.Tensor:
    """KL(teacher || student) of ``(N, K)`` log-probabilities, mean over the batch."""
    return F.kl_div(student_log_probs, teacher_log_probs, log_target=True, reduction="batchmean")
