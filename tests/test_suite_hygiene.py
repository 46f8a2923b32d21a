"""The test suite itself: fast by default, and it writes nothing outside temporary directories."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from summarizer.model_assembly import default_cache_dir

ROOT = Path(__file__).resolve().parents[1]


def test_home_and_the_model_cache_point_into_a_temporary_directory() -> None:
    temp = Path(tempfile.gettempdir()).resolve()
    assert Path(os.environ["HOME"]).resolve().is_relative_to(temp)
    assert default_cache_dir().resolve().is_relative_to(temp)  # the 1.1 GB model lands here


def test_the_real_model_tests_are_opt_in_through_their_marker() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider",
         "tests/test_local_model.py", "-k", "real"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert "opt in with pytest -m real_model" in run.stdout
    assert " passed" not in run.stdout.splitlines()[-1]  # none ran
