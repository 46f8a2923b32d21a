"""The import graph matches the floor plan: no cycle between files, no import of the project
hidden inside a function but the two listed below, chat libraries only under adapters/, and
one module per `prdigest` subcommand (lint-imports checks the layers themselves; see
[tool.importlinter] in pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

import click
import grimp
from click.testing import CliRunner

from bot.app.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "adapters", "summarizer")
CHAT_LIBRARIES = ("slack_bolt", "slack_sdk", "discord")
# The only imports of the project inside a function: the modules that import openai and
# PyGithub (over half a second between them), loaded when GitHub or the LLM is first called,
# so that a command answered from the store never pays for them. lint-imports sees them too.
DEFERRED = {
    ("bot/app/deferred.py", "bot.digest.github_source"),
    ("bot/app/deferred.py", "summarizer.factory"),
}


def python_files(*packages: str) -> list[Path]:
    return sorted(p for package in packages for p in (ROOT / package).rglob("*.py"))


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    modules = sorted(m for m in graph.modules if m.split(".")[0] in PACKAGES)

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.find_modules_directly_imported_by(module)):
            if target.split(".")[0] not in PACKAGES:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    return found


def test_no_import_cycle_between_files():
    graph = grimp.build_graph(*PACKAGES)
    assert cycles(graph) == []


def imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in `tree`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module.split(".")[0]))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
    return found


def hidden_imports(path: Path) -> set[tuple[str, str]]:
    """(file, module) of each import of the project made inside a function of `path`."""
    own = path.relative_to(ROOT).parts[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                names = [inner.module]
            elif isinstance(inner, ast.Import):
                names = [alias.name for alias in inner.names]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in ("bot", "adapters") or (top in PACKAGES and top != own):
                    found.add((str(path.relative_to(ROOT)), name))
    return found


def test_no_import_of_the_project_hidden_inside_a_function_but_the_deferred_ones():
    hidden = set().union(*(hidden_imports(path) for path in python_files(*PACKAGES)))
    assert hidden == DEFERRED


def test_only_adapters_import_a_chat_library():
    outside = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in python_files("bot", "summarizer")
        for line, top in imports(ast.parse(path.read_text(encoding="utf-8")))
        if top in CHAT_LIBRARIES
    ]
    assert outside == []


def test_adapters_never_write_the_posts_table():
    """Every write of the posts table goes through `bot.chat.posting.DigestPoster`."""
    writes = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in python_files("adapters")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if any(call in line for call in ("begin_post(", "complete_post(", "PostRecord("))
    ]
    assert writes == []


def test_one_place_makes_each_platform_bot():
    """The composition root builds the bots through each adapter's one factory."""
    makers = {
        f"{path.relative_to(ROOT)}"
        for path in python_files(*PACKAGES)
        for line in path.read_text(encoding="utf-8").splitlines()
        if "SlackBot(" in line or "DiscordBot(" in line
        if not line.lstrip().startswith("class ")
    }
    assert makers == {"adapters/slack/app.py", "adapters/discord/client.py"}
    registry = (ROOT / "bot" / "app" / "platforms.py").read_text(encoding="utf-8")
    assert "create_slack_bot(" in registry and "create_discord_bot(" in registry


def test_each_subcommand_is_one_module_imported_when_it_runs():
    """bot/app/commands/ holds one module per subcommand (those defining `command`), and the
    CLI's table names each one under that command's name."""
    modules = {
        f"bot.app.commands.{path.stem}"
        for path in (ROOT / "bot" / "app" / "commands").glob("*.py")
        if any(
            isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and node.name == "command"
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    }
    assert {entry.module for entry in COMMANDS.values()} == modules
    for name, command in cli.commands.items():
        assert command.name == name


def test_the_command_list_is_what_the_commands_themselves_say():
    """`prdigest --help` lists the commands from the table, without importing them: the
    listing must be the one click prints from the loaded commands."""
    eager = click.Group(
        name=cli.name,
        commands=dict(cli.commands.items()),
        params=cli.params,
        help=cli.help,
        context_settings=cli.context_settings,
    )
    for width in (60, 80, 120):
        lazy_help = CliRunner().invoke(cli, ["--help"], terminal_width=width).output
        eager_help = CliRunner().invoke(eager, ["--help"], terminal_width=width).output
        assert lazy_help == eager_help
