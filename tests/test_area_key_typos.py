"""A typo in an `[areas]` table of prdigest.toml: one line naming the key, its likely fix and
the line it is on."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from bot.app.cli import cli
from bot.core.errors import ConfigurationError
from bot.digest.areas import AreaMap

CONFIG = """\
[areas.Attention]
paths = ["vllm/v1/attention/**"]

[areas.Docs]
{typo} = ["Doc"]
"""


@pytest.mark.parametrize(
    "typo, hint",
    [
        ("tgs", " (did you mean 'tags'?)"),
        ("tag", " (did you mean 'tags'?)"),
        ("path", " (did you mean 'paths'?)"),
        ("Paths", " (did you mean 'paths'?)"),
        ("owners", ""),  # nothing close: no guess
    ],
)
def test_prdigest_says_which_key_it_does_not_know_and_what_was_meant(
    env, tmp_path, monkeypatch, typo, hint
):
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG.format(typo=typo), encoding="utf-8")
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    assert result.exit_code == 2
    # Before: "…, line 1: [areas.Docs]: unknown key 'tgs'; an area takes paths and tags"
    assert result.stderr == (
        f"Error: {config}, line 4: [areas.Docs]: unknown key {typo!r}{hint}; "
        "an area takes paths and tags\n"
    )


def test_an_inline_area_names_its_own_line(env, tmp_path, monkeypatch):
    config = tmp_path / "prdigest.toml"
    config.write_text('[areas]\nCI = { paths = [".github/**"] }\nDocs = { path = ["docs/"] }\n')
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    result = CliRunner().invoke(cli, ["report", "--date", "2026-02-23"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: {config}, line 3: [areas.Docs]: unknown key 'path' (did you mean 'paths'?); "
        "an area takes paths and tags\n"
    )


def test_the_map_itself_names_the_closest_key():
    with pytest.raises(ConfigurationError) as caught:
        AreaMap.from_config({"Model Runner": {"pahts": ["vllm/v1/worker/**"]}})
    assert str(caught.value) == (
        "[areas.\"Model Runner\"]: unknown key 'pahts' (did you mean 'paths'?); "
        "an area takes paths and tags"
    )
