"""Distillation for fine-tunes (models.distil): the teacher is a real ONNX file read by
onnxruntime, the student a real SquareNet, the loss the one models.train adds."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from models.classifier import DEFAULT_MODEL, OnnxSquareClassifier, card_path, to_input
from models.procedural import procedural_set
from rules.observation import Top

torch = pytest.importorskip("torch")

from models.distil import (  # noqa: E402
    Teacher,
    TeacherReading,
    crown_kl,
    distillation_loss,
    reading_disagreement,
)
from models.export import export_onnx  # noqa: E402
from models.net import SquareNet  # noqa: E402


def _teacher_file(net: SquareNet, path: Path) -> Path:
    """``net`` exported as fp32 ONNX with the card the classifier needs."""
    export_onnx(net, path, 48)
    card = {"classes": [t.name for t in Top], "input_size": [48, 48]}
    card_path(path).write_text(json.dumps(card))
    return path


def _loss(
    student: SquareNet,
    teacher: TeacherReading,
    x: np.ndarray,
    colour: float = 0.0,
    feature: float = 0.0,
    reading: float = 0.0,
) -> float:
    """The loss of ``student`` on ``x`` with these weights."""
    with torch.no_grad():
        top_logits, height_logits, features = student(torch.from_numpy(x))
        return float(
            distillation_loss(
                top_logits,
                features,
                teacher,
                colour_weight=colour,
                feature_weight=feature,
                reading_weight=reading,
                student_height_logits=height_logits,
            )
        )


def _a_net_read_as_its_teacher(
    tmp_path: Path, seed: int, crops_seed: int
) -> tuple[SquareNet, np.ndarray, TeacherReading]:
    """A random net, 64 procedural crops as its input, and its own ONNX export's reading
    of them as the teacher's."""
    torch.manual_seed(seed)
    net = SquareNet().eval()
    teacher = Teacher.load(_teacher_file(net, tmp_path / "teacher.onnx"))
    x = to_input(procedural_set(64, seed=crops_seed)[0])
    return net, x, teacher.read(x)


def _terms(student: SquareNet, teacher: TeacherReading, x: np.ndarray) -> tuple[float, float]:
    """The colour and the feature term of the loss, each alone."""
    return _loss(student, teacher, x, colour=1.0), _loss(student, teacher, x, feature=1.0)


def test_the_loss_is_zero_for_the_teacher_itself_and_positive_for_a_drifted_student(
    tmp_path: Path,
) -> None:
    net, x, reading = _a_net_read_as_its_teacher(tmp_path, seed=0, crops_seed=3)

    colour, feature = _terms(net, reading, x)
    assert colour == pytest.approx(0.0, abs=1e-6)
    assert feature == pytest.approx(0.0, abs=1e-6)

    # Another top head: the colours drift, the features (before the head) do not.
    recoloured = copy.deepcopy(net)
    with torch.no_grad():
        recoloured.top_head.weight.add_(torch.randn_like(recoloured.top_head.weight))
    colour, feature = _terms(recoloured, reading, x)
    assert colour > 1e-3
    assert feature == pytest.approx(0.0, abs=1e-6)

    # Another embedding: the features drift.
    moved = copy.deepcopy(net)
    with torch.no_grad():
        moved.embed[2].weight.add_(0.5 * torch.randn_like(moved.embed[2].weight))
    _, feature = _terms(moved, reading, x)
    assert feature > 1e-3


def test_moving_mass_between_man_and_king_costs_no_colour() -> None:
    teacher_logits = torch.tensor([[0.0, 3.0, 1.0, -1.0, -2.0], [2.0, -1.0, 0.5, 1.5, 0.0]])
    king_for_man = teacher_logits[:, [0, 2, 1, 4, 3]]  # man and king swapped in each colour
    white_for_black = teacher_logits[:, [0, 3, 4, 1, 2]]
    features = torch.ones(2, 64)
    reading = TeacherReading(teacher_logits, torch.zeros(2, 9), features)

    def colour(student: torch.Tensor) -> float:
        return float(
            distillation_loss(student, features, reading, colour_weight=1.0, feature_weight=0.0)
        )

    assert colour(king_for_man) == pytest.approx(0.0, abs=1e-6)
    assert colour(white_for_black) > 0.1


def test_a_teacher_rejects_input_of_another_size() -> None:
    teacher = Teacher.load(DEFAULT_MODEL)
    with pytest.raises(ValueError, match=r"expects \(N, 3, 48, 48\)"):
        teacher.read(np.zeros((2, 3, 40, 40), np.float32))


def test_a_missing_teacher_file_is_named(tmp_path: Path) -> None:
    from models.classifier import ModelFileError

    with pytest.raises(ModelFileError, match=r"nope\.onnx"):
        Teacher.load(tmp_path / "nope.onnx")


def test_train_with_a_teacher_records_it_in_the_card(tmp_path: Path) -> None:
    from models.train import main

    out = tmp_path / "student.onnx"
    main(
        [
            "--source", "procedural", "--train-count", "384", "--test-count", "100",
            "--seed", "4", "--minutes", "0.05", "--threads", "1", "--out", str(out),
            "--cache", str(tmp_path / "cache"), "--init", str(DEFAULT_MODEL),
            "--distil", str(DEFAULT_MODEL), "--distil-weight", "2", "--distil-features", "0.5",
        ]
    )  # fmt: skip
    card = json.loads(card_path(out).read_text())
    assert card["training"]["distil"] == {
        "teacher": str(DEFAULT_MODEL),
        "colour_weight": 2.0,
        "feature_weight": 0.5,
        "reading_weight": 0.0,
        "photo_weight": 0.0,
        "photo_batch": 32,
        "photo_mining": 0.0,
        "crown_weight": 0.0,
    }
    assert card["training"]["steps"] > 0
    assert np.isfinite(card["training"]["final_distil_loss"])


def test_distilled_readings_cost_nothing_for_the_teacher_and_its_heights_count(
    tmp_path: Path,
) -> None:
    net, x, reading = _a_net_read_as_its_teacher(tmp_path, seed=1, crops_seed=4)
    assert _loss(net, reading, x, reading=1.0) == pytest.approx(0.0, abs=1e-5)
    # another height head: the colours and the features are the teacher's, the heights not
    reheighted = copy.deepcopy(net)
    with torch.no_grad():
        reheighted.height_head.weight.add_(torch.randn_like(reheighted.height_head.weight))
    assert _loss(reheighted, reading, x, reading=1.0) > 1e-3
    # row by row: nothing where the student reads as its teacher, something in every row
    # of the student with another height head
    with torch.no_grad():
        for student, apart in ((net, False), (reheighted, True)):
            top_logits, height_logits, _ = student(torch.from_numpy(x))
            each = reading_disagreement(top_logits, height_logits, reading)
            assert each.shape == (len(x),)
            assert (each > 1e-4).all() if apart else np.allclose(each, 0.0, atol=1e-5)
    with pytest.raises(ValueError, match="height logits"):
        distillation_loss(
            reading.top_logits,
            reading.features,
            reading,
            colour_weight=0.0,
            feature_weight=0.0,
            reading_weight=1.0,
        )


def test_a_kings_teacher_reads_the_view_tangents_it_is_given() -> None:
    kings = OnnxSquareClassifier.load().kings
    assert kings is not None
    teacher = Teacher(kings)
    crops, _, _ = procedural_set(8, seed=6)
    x = to_input(crops)
    with pytest.raises(ValueError, match="reads view tangents"):
        teacher.read(x)
    steep, low = (teacher.read(x, np.full((8, 1), v, np.float32)) for v in (0.1, 1.5))
    assert steep.height_logits.shape == (8, 9)
    assert not torch.allclose(steep.height_logits, low.height_logits)


def test_a_teacher_on_unlabelled_photos_is_recorded_and_needs_a_teacher(
    tmp_path: Path, shared_data: Path
) -> None:
    from models.train import main

    out = tmp_path / "student.onnx"
    flags = ["--source", "procedural", "--train-count", "384", "--test-count", "100",
             "--seed", "4", "--minutes", "0.05", "--threads", "1", "--out", str(out),
             "--cache", str(tmp_path / "cache"), "--init", str(DEFAULT_MODEL),
             "--distil-photos", "0.5", "--photo-batch", "16", "--photo-mining", "1",
             "--photos", str(shared_data)]  # fmt: skip
    with pytest.raises(ValueError, match="needs a teacher"):
        main(flags)
    main([*flags, "--distil", str(DEFAULT_MODEL), "--distil-features", "1"])
    card = json.loads(card_path(out).read_text())
    assert card["training"]["distil"]["photo_weight"] == 0.5
    assert card["training"]["distil"]["photo_batch"] == 16
    assert card["training"]["distil"]["photo_mining"] == 1.0
    assert card["training"]["steps"] > 0
    assert np.isfinite(card["training"]["final_distil_loss"])


def _a_crowned_teacher(tmp_path: Path, seed: int) -> Teacher:
    """A random net's ONNX export with a crown probe's output (random weights)."""
    import onnx

    from models.crown_probe import with_crown_output

    torch.manual_seed(seed)
    path = _teacher_file(SquareNet().eval(), tmp_path / "crowned.onnx")
    weights = np.random.default_rng(seed).normal(size=64)
    onnx.save(with_crown_output(onnx.load(str(path)), weights, -0.5), path)
    return Teacher.load(path)


def test_crown_kl_is_zero_on_the_teachers_crown_odds_and_weighs_its_pieces(
    tmp_path: Path,
) -> None:
    teacher = _a_crowned_teacher(tmp_path, seed=2)
    assert teacher.has_crowns
    reading = teacher.read(to_input(procedural_set(32, seed=5)[0]))
    assert reading.crown_logits is not None and reading.crown_logits.shape == (32,)
    assert torch.allclose(crown_kl(reading.crown_logits, reading), torch.zeros(32), atol=1e-6)
    apart = crown_kl(reading.crown_logits + 2.0, reading)
    assert (apart > 0).all()
    # a square the teacher reads surely empty costs nothing, whatever the crown says
    sure_empty = torch.tensor([20.0, 0.0, 0.0, 0.0, 0.0])
    empty = TeacherReading(
        sure_empty.expand(32, 5), reading.height_logits, reading.features, reading.crown_logits
    )
    assert float(crown_kl(reading.crown_logits + 2.0, empty).max()) < 1e-6
    # the crown disagreement adds to the readings' one, row by row
    top, height = reading.top_logits, reading.height_logits
    plain = reading_disagreement(top, height, reading)
    np.testing.assert_allclose(
        reading_disagreement(top, height, reading, reading.crown_logits + 2.0) - plain,
        apart.numpy(),
        rtol=1e-5,
    )
    with pytest.raises(ValueError, match="no crown_logits"):
        crown_kl(reading.crown_logits, dataclasses.replace(reading, crown_logits=None))


def test_a_crown_head_is_trained_and_written_into_the_file(tmp_path: Path) -> None:
    from models.crown_probe import OUTPUT
    from models.train import main

    teacher = _a_crowned_teacher(tmp_path, seed=3)
    out = tmp_path / "student.onnx"
    flags = ["--source", "procedural", "--train-count", "384", "--test-count", "100",
             "--seed", "4", "--minutes", "0.05", "--threads", "1", "--out", str(out),
             "--cache", str(tmp_path / "cache"), "--distil-crowns", "2"]  # fmt: skip
    with pytest.raises(ValueError, match="crown probe"):
        main([*flags, "--distil", str(DEFAULT_MODEL)])  # the main file has no probe
    main([*flags, "--distil", str(teacher.classifier.path)])
    card = json.loads(card_path(out).read_text())
    assert card["training"]["distil"]["crown_weight"] == 2.0
    assert f"{OUTPUT} (N, 1)" in card["outputs"]
    student = OnnxSquareClassifier.load(out)
    read = student.run(procedural_set(8, seed=9)[0])
    assert read.crowns is not None and read.crowns.shape == (8,)
    assert np.isfinite(read.crowns).all() and read.crowns.std() > 0  # the head was trained
