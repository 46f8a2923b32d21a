"""Every command starts fast: `prdigest --help`, `report` of a stored day and `summary` of a
stored PR import none of the heavy libraries (openai, PyGithub, discord.py, Slack's,
APScheduler, aiohttp, tiktoken, llama.cpp), which took 1.4 s of every start before.

Each command runs as a user runs it, in a fresh process, over a day stored through the real
pipeline against the fakes; `bench/startup.py` measures the times themselves.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.app.deferred import DeferredSummarizer, configured_identity
from bot.core.errors import ConfigurationError
from bot.core.llm_settings import LLMSettings
from summarizer.factory import choose_summarizer
from summarizer.local_summarizer import LocalSummarizer
from tests.conftest import REPO, make_pr

DAY = "2026-02-23"
HEAVY = (
    "openai", "github", "discord", "slack_bolt", "slack_sdk", "apscheduler", "aiohttp",
    "tiktoken", "xllamacpp", "tree_sitter_python", "tree_sitter_cpp", "requests",
)  # fmt: skip
# Runs the CLI, then writes the heavy libraries it imported (JSON) to the file in argv[1].
LOADED = (
    "import atexit, json, sys\n"
    "out = sys.argv.pop(1)\n"
    "def report():\n"
    "    top = {name.split('.')[0] for name in sys.modules}\n"
    f"    json.dump(sorted(top & set({HEAVY!r})), open(out, 'w'))\n"
    "atexit.register(report)\n"
    "from bot.app.cli import main\n"
    "main()\n"
)


def heavy_imports(tmp_path: Path, *args: str) -> list[str]:
    out = tmp_path / "loaded.json"
    done = subprocess.run(
        [sys.executable, "-c", LOADED, str(out), *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return json.loads(out.read_text())


@pytest.fixture
def stored_day(env, github, llm) -> None:
    github.add_prs(REPO, [make_pr(35156, f"{DAY} 10:00:00"), make_pr(35101, f"{DAY} 09:00:00")])
    assert CliRunner().invoke(cli, ["report", "--date", DAY]).exit_code == 0
    github.clear_requests()


def test_help_imports_no_heavy_library(tmp_path):
    assert heavy_imports(tmp_path, "--help") == []


def test_a_stored_day_and_a_stored_pr_import_no_heavy_library(stored_day, github, llm, tmp_path):
    calls = llm.completions_count
    assert heavy_imports(tmp_path, "report", "--date", DAY) == []
    assert heavy_imports(tmp_path, "report", "--date", DAY, "--json") == []
    assert heavy_imports(tmp_path, "summary", "35156") == []
    assert heavy_imports(tmp_path, "flags") == []
    assert len(github.requests) == 0 and llm.completions_count == calls


def test_a_day_not_stored_yet_loads_github_and_openai_when_it_needs_them(env, github, tmp_path):
    github.add_pr(REPO, make_pr(35156, f"{DAY} 10:00:00"))
    assert {"github", "openai"} <= set(heavy_imports(tmp_path, "report", "--date", DAY))


@pytest.mark.parametrize(
    "llm_settings",
    [
        LLMSettings(openai_api_key="k", model="gpt-4o-mini", concurrency=3),
        LLMSettings(openai_base_url="http://127.0.0.1:1/v1", max_prompt_tokens=2000),
        LLMSettings(local_model="/models/tiny-model.gguf"),
        LLMSettings(),  # the bundled built-in model
    ],
)
def test_the_deferred_summarizer_is_named_as_the_factory_names_it(llm_settings):
    """A stored summary is found by the model and prompt version the deferred summarizer
    gives before it is built: they must be the built one's."""
    identity = configured_identity(llm_settings)
    if identity is None:  # no endpoint, and the built-in model is not installed here
        with pytest.raises(ConfigurationError, match="No LLM configured"):
            choose_summarizer(llm_settings)
        return
    built = choose_summarizer(llm_settings)
    assert (identity.model, identity.prompt_version, identity.concurrency) == (
        built.model,
        built.prompt_version,
        built.concurrency,
    )
    deferred = DeferredSummarizer(llm_settings)
    assert (deferred.model, deferred.prompt_version) == (built.model, built.prompt_version)
    assert deferred.local == isinstance(built, LocalSummarizer)
