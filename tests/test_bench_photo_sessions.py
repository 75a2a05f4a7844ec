"""bench.photo_sessions: real photos through a calibration file from every start photo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.photo_sessions import main
from models.classifier import DEFAULT_MODEL
from models.labelled_photos import STICKERS


def test_each_square_listed_wrong_is_counted_in_its_set_line(
    shared_data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sticker set's one start photo calibrates (``--white auto`` takes green, on the
    camera's side, as its labels do) and its 19 other photos read through it; the
    squares listed wrong are those the line counts (session 52: 1 of 608)."""
    if not STICKERS.present(shared_data):
        pytest.skip(f"no {STICKERS.folder} in {shared_data}")
    argv = ["--data", str(shared_data), "--set", "stickers", "--errors"]
    argv += ["--model", str(DEFAULT_MODEL)]
    monkeypatch.setattr("sys.argv", ["photo_sessions", *argv])
    main()
    *errors, line = [json.loads(s) for s in capsys.readouterr().out.splitlines()]
    assert line["set"] == "stickers" and line["calibrated"] == line["start_photos"] == 1
    assert line["white_auto_right"] == 1 and not line["refused"]
    assert line["squares"] == 608 and line["errors"] == len(errors) <= 3
    assert all(e["start"] == "bax3" and e["want"] != e["got"] for e in errors)
    assert sum(n for _, n in line["errors_by_photo"]) == line["errors"]
