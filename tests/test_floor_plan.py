"""The import graph matches the floor plan: no cycle between files, no import of the project
hidden inside a function, and chat libraries only under adapters/ (lint-imports checks the
layers themselves; see [tool.importlinter] in pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "adapters", "summarizer")
CHAT_LIBRARIES = ("slack_bolt", "slack_sdk", "discord")


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


def test_no_import_of_the_project_hidden_inside_a_function():
    hidden = []
    for path in python_files(*PACKAGES):
        own = path.relative_to(ROOT).parts[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hidden += [
                    f"{path.relative_to(ROOT)}:{line} {top}"
                    for line, top in imports(node)
                    if top in ("bot", "adapters") or (top in PACKAGES and top != own)
                ]
    assert hidden == []


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
