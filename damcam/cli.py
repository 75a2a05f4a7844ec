"""The ``damcam`` command: one Typer app, a thin face over the packages.

Each area registers its commands from its own module in :mod:`damcam.commands`, so the
areas stay independent. Results go to stdout, messages for people to stderr.
"""

from __future__ import annotations

import logging
import os

import typer

from damcam.commands import capture, models_cmd, rules_cmd, synth_cmd, vision_cmd

app = typer.Typer(
    name="damcam",
    help="Record draughts games from an overhead camera.",
    no_args_is_help=True,
    add_completion=False,
)

for module in (rules_cmd, synth_cmd, vision_cmd, models_cmd, capture):
    module.register(app)


@app.callback()
def _root(verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress.")) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    if not verbose:
        # A file that is no image is tried as a video, and FFmpeg's decoders write their
        # complaints straight to stderr before ours names the file. OpenCV reads this
        # when it first opens a video; a value set by the user is kept.
        os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET


def main() -> None:
    app()
