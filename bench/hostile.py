"""The hostile corpus as a table: for each surface and attack class, how many (payload,
source) cases put a control character, a ping, a foreign link or a layout change in front of
a reader. It uses the checks of tests/test_untrusted_text.py, so it prints what the test
asserts (all zeros) and can be run against an older checkout to see what it did before.

    python bench/hostile.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.hostile_corpus import ATTACKS, SOURCES, SURFACES, corpus  # noqa: E402
from tests.test_untrusted_text import (  # noqa: E402
    discord_problems,
    hostile_day,
    json_problems,
    markdown_problems,
    slack_problems,
    terminal_problems,
)


def problems(source: str, payload: str) -> dict[str, list[str]]:
    day = hostile_day(source, payload)
    return {
        "markdown": markdown_problems(day, payload),
        "terminal": terminal_problems(day),
        "json": json_problems(day, payload),
        "slack": slack_problems(day, source, payload),
        "discord": discord_problems(day, source, payload),
    }


def main() -> None:
    failing: Counter[tuple[str, str]] = Counter()
    kinds: Counter[tuple[str, str]] = Counter()
    cases = 0
    for source in SOURCES:
        for attack, payload in corpus():
            cases += 1
            for surface, found in problems(source, payload).items():
                if found:
                    failing[surface, attack] += 1
                for problem in found:
                    kinds[surface, problem.split(" ")[0]] += 1
    print(f"{len(corpus())} payloads x {len(SOURCES)} sources = {cases} cases per surface")
    print("cases that reach a reader, by surface and attack class:")
    print("| surface | " + " | ".join(ATTACKS) + " | all |")
    print("| --- |" + " ---: |" * (len(ATTACKS) + 1))
    for surface in SURFACES:
        row = [failing[surface, attack] for attack in ATTACKS]
        print(f"| {surface} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    print("problems by kind:", dict(sorted(kinds.items())))


if __name__ == "__main__":
    main()
