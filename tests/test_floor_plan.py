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


def test_no_import_of_the_project_hidden_inside_a_function():
    hidden = []
    for path in python_files(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    names = [inner.module]
                elif isinstance(inner, ast.Import):
                    names = [alias.name for alias in inner.names]
                else:
                    continue
                own_package = path.relative_to(ROOT).parts[0]
                hidden += [
                    f"{path.relative_to(ROOT)}:{inner.lineno} {name}"
                    for name in names
                    if name.split(".")[0] in ("bot", "adapters")
                    or (name.split(".")[0] in PACKAGES and name.split(".")[0] != own_package)
                ]
    assert hidden == []


def test_only_adapters_import_a_chat_library():
    outside = []
    for path in python_files("bot", "summarizer"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            outside += [
                f"{path.relative_to(ROOT)}:{node.lineno}"
                for name in names
                if name.split(".")[0] in CHAT_LIBRARIES
            ]
    assert outside == []
