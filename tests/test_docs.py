"""The README is the front page and docs/ holds the rest: the two stay true to the code.

Every relative link resolves (a `#anchor` to a heading, by GitHub's rule for heading ids),
every page in docs/ is reachable from the README, every environment variable the settings read
is in `.env.example` with a comment and in docs/configuration.md, every `prdigest` command and
option the README's table names exists, the README stays at most 200 lines, and it installs
and tests exactly as CI (`.ci/run`) does.
"""

from __future__ import annotations

import importlib
import re
import shlex
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from dotenv import dotenv_values

from bot.app.cli import COMMANDS
from bot.core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
ENV_EXAMPLE = ROOT / ".env.example"
CONFIGURATION = ROOT / "docs" / "configuration.md"

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)


def prose(text: str) -> str:
    """The Markdown a reader sees as text and links: code blocks and code spans removed."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The ids of a page's headings; a repeated one gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    ids = set()
    for match in HEADING.finditer(FENCE.sub("", page.read_text())):
        base = slug(match.group(2).replace("`", ""))
        count = seen.get(base, 0)
        seen[base] = count + 1
        ids.add(base if count == 0 else f"{base}-{count}")
    return ids


def relative_links(page: Path) -> Iterator[str]:
    for target in LINK.findall(prose(page.read_text())):
        if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: are outside
            yield target


def broken(page: Path, target: str) -> str | None:
    """Why `target`, linked from `page`, does not resolve, or None."""
    path, _, anchor = target.partition("#")
    resolved = (page.parent / path).resolve() if path else page
    if not resolved.is_relative_to(ROOT):
        return "points outside the repository"
    if not resolved.exists():
        return "no such file"
    if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
        return f"{resolved.relative_to(ROOT)} has no heading #{anchor}"
    return None


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    problems = [
        f"{target}: {why}"
        for target in relative_links(page)
        if (why := broken(page, target)) is not None
    ]
    assert problems == []


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in relative_links(README)}
    assert [p.name for p in DOCS if p.resolve() not in linked] == []


def test_heading_ids_follow_githubs_rule() -> None:
    assert slug("What gets posted, and when") == "what-gets-posted-and-when"
    assert slug("Without a service: cron and prdigest post") == (
        "without-a-service-cron-and-prdigest-post"
    )
    assert slug("1. Create the Slack app (one paste)") == "1-create-the-slack-app-one-paste"


class RecordingEnv(Mapping[str, str]):
    """An empty environment that notes every name looked up in it."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.names.add(name)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def variables_read() -> set[str]:
    """Every variable Settings.from_env looks up, and any LLMSettings names in its source."""
    env = RecordingEnv()
    Settings.from_env(env, dotenv=False)
    source = (ROOT / "bot" / "core" / "llm_settings.py").read_text()
    named = set(re.findall(r"\"((?:OPENAI|PRDIGEST|GITHUB)_[A-Z0-9_]+)\"", source))
    return env.names | named


def documented_in_env_example() -> dict[str, bool]:
    """Each variable `.env.example` sets, and whether a comment above it (in its block of
    lines, under the section's `# ---` rule) says what it is."""
    found: dict[str, bool] = {}
    lines = ENV_EXAMPLE.read_text().splitlines()
    for number, line in enumerate(lines):
        name = re.match(r"([A-Z][A-Z0-9_]*)=", line)
        if not name:
            continue
        above = []
        for earlier in reversed(lines[:number]):
            if not earlier.strip():
                break
            above.append(earlier)
        found[name.group(1)] = any(
            text.startswith("#") and not text.startswith("# ---") for text in above
        )
    return found


def test_the_settings_read_at_least_the_known_variables() -> None:
    # The recording environment sees the reads: a sample of each kind of read.
    assert {"GITHUB_TOKEN", "PRDIGEST_DB", "PRDIGEST_TIMEZONE", "OPENAI_BASE_URL"} <= (
        variables_read()
    )
    assert {"GITHUB_APP_ID", "PRDIGEST_METRICS_PORT", "PRDIGEST_RANGE_MAX_DAYS"} <= (
        variables_read()
    )


def test_every_variable_the_settings_read_is_in_env_example_with_a_comment() -> None:
    example = documented_in_env_example()
    assert sorted(variables_read() - example.keys()) == []
    assert sorted(name for name in variables_read() if not example[name]) == []


def test_env_example_holds_only_variables_the_settings_read() -> None:
    assert sorted(documented_in_env_example().keys() - variables_read()) == []


def test_every_variable_the_settings_read_is_in_the_settings_page() -> None:
    page = CONFIGURATION.read_text()
    assert sorted(n for n in variables_read() if f"`{n}`" not in page) == []


def test_a_copy_of_env_example_is_valid_settings() -> None:
    # `cp .env.example .env` is the README's first setup step: as copied, it must load.
    values = {k: v or "" for k, v in dotenv_values(ENV_EXAMPLE).items()}
    settings = Settings.from_env(values, dotenv=False)
    assert settings.github_api_url == "https://api.github.com"


def test_the_readme_is_at_most_200_lines() -> None:
    assert len(README.read_text().splitlines()) <= 200


def commands_of(script: str) -> list[str]:
    """The shell commands of a script, one per line or per `&&`, comments and `set` left out;
    `--quiet` is dropped, as CI adds it only to keep its log short."""
    commands = []
    for line in script.splitlines():
        for part in line.split("&&"):
            words = [w for w in shlex.split(part, comments=True) if w != "--quiet"]
            if words and words[0] not in ("set", "cd"):
                commands.append(shlex.join(words))
    return commands


def readme_section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_readme_installs_and_tests_exactly_as_ci_does() -> None:
    block = re.search(r"```bash\n(.*?)```", readme_section("Development"), re.S)
    assert block is not None
    readme = commands_of(block.group(1))
    ci = commands_of((ROOT / ".ci" / "run").read_text())
    assert readme == [
        "python3 -m venv .venv",
        ". .venv/bin/activate",
        "pip install -e '.[dev,local]'",
        "pytest",
    ]
    assert [command for command in readme if command not in ci] == []
    assert ci[-1] == readme[-1]  # the test command is the last thing CI runs


def table_commands() -> list[tuple[str, list[str]]]:
    """Each `prdigest NAME --option …` in the README's command table: name and options."""
    found = []
    for row in readme_section("Commands").splitlines():
        if row.startswith("| `prdigest"):
            cell = row.split(" | ")[0]
            for span in re.findall(r"`(prdigest [^`]+)`", cell):
                words = span.replace("[", " ").replace("]", " ").split()
                found.append((words[1], [w for w in words[2:] if w.startswith("-")]))
    return found


def test_every_command_is_in_the_readmes_table() -> None:
    named = {name for name, _ in table_commands()}
    assert sorted(set(COMMANDS) - named) == []
    assert sorted(named - set(COMMANDS)) == []


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_options_the_readme_names_exist(name: str) -> None:
    command = importlib.import_module(COMMANDS[name].module).command
    options = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
    named = {opt for cmd, opts in table_commands() if cmd == name for opt in opts}
    assert sorted(named - options) == []
