"""Figures the fault, abuse and load tests measure, printed in one greppable format.

Each test calls ``figures("name", key=value, ...)``; the line goes to stdout, so
``pytest -s`` (or ``-rP``) shows it next to the test, e.g.::

    [figures] github 502 every 5th call: prs=120 calls=353 faults=70 ...

Set ``FIGURES_JSONL=/path/file.jsonl`` to also append them as JSON lines (for a closing
note or CI artifact). The tests assert the counts; this only makes them visible.
"""

from __future__ import annotations

import json
import os


def figures(name: str, **values: object) -> str:
    shown = " ".join(f"{k}={_fmt(v)}" for k, v in values.items())
    line = f"[figures] {name}: {shown}"
    print(line)
    target = os.environ.get("FIGURES_JSONL")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(json.dumps({"name": name, **{k: _json(v) for k, v in values.items()}}))
            out.write("\n")
    return line


def _fmt(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _json(value: object) -> object:
    return value if isinstance(value, int | float | str | bool | type(None)) else str(value)
