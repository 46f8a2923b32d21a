"""Our CODEOWNERS matcher agrees with an independent one, `codeowners` on PyPI (a port of
hmarr/codeowners, whose pattern corpus is checked against GitHub), path for path.

The two differ only where GitHub's own rules are stricter than the reference port, and those
lines are left out of the comparison and pinned in tests/test_codeowners.py instead: GitHub
skips a line with `[ ]` ranges or an owner it cannot read, where the port keeps it.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path

import pytest
from codeowners import CodeOwners as ReferenceOwners

from bot.core.codeowners import parse_codeowners
from tests.test_codeowners import VLLM

DATA = Path(__file__).parent / "data" / "vllm_areas.json"

# The documented forms (GitHub's CODEOWNERS examples) and the corner cases around them: one
# line each, so that every ordering below makes a different line the last to match.
PATTERNS = [
    "*",
    "*.js",
    "*.md",
    "/build/logs/",
    "docs/*",
    "apps/",
    "/docs/",
    "/scripts/",
    "**/logs",
    "/apps/github",
    "/apps/",
    "docs",
    "vllm/v1/attention",
    "/vllm/v1/attention/",
    "vllm/v1/attention/**",
    "/vllm/**/*rocm*",
    "/tests/**/test_*.py",
    "**/*.cu",
    "csrc/**",
    "requirements/*.txt",
    "test_?.py",
    "/vllm/config.py",
    "config.py",
    "model_executor/",
    "/vllm/model_executor/models/qwen*",
    "/.buildkite/",
    ".github/",
    "/vllm/v1/worker/cpu*",
    "logs/**/*.log",
]

# Paths for those patterns (and near misses), plus every file of 50 real vLLM PRs.
MADE_UP_PATHS = [
    "README.md", "a.js", "src/a.js", "a.js/b.txt", "docs/index.md", "docs/design/arch.md",
    "src/docs/x.md", "docs", "build/logs/a.log", "src/build/logs/a.log", "logs", "a/logs",
    "a/b/logs/x.log", "logs/2026/x.log", "apps/github/x.rb", "apps/githubber.rb",
    "src/apps/a.rb", "scripts/run.sh", "src/scripts/run.sh", "test_a.py", "tests/test_a.py",
    "tests/kernels/test_attention.py", "tests/kernels/attention.py", "vllm/config.py",
    "vllm/config/utils.py", "x/config.py", "vllm/model_executor/models/qwen2.py",
    "vllm/model_executor/models/llama.py", "vllm/platforms/rocm.py", "vllm/rocm",
    "vllm/v1/attention/backends/rocm_attn.py", "vllm/v1/attention", "vllm/v1/attentions.py",
    "csrc/attention/attention_kernels.cu", "csrc/cpu/x.cpp", ".buildkite/test.yaml",
    ".github/CODEOWNERS", "requirements/rocm.txt", "requirements/nested/a.txt",
    "vllm/v1/worker/cpu_model_runner.py", "vllm/v1/worker/gpu_model_runner.py",
]  # fmt: skip


def real_paths() -> list[str]:
    return sorted({path for pr in json.loads(DATA.read_text()) for path, _ in pr["files"]})


PATHS = [*MADE_UP_PATHS, *real_paths()]


def owners_by_reference(text: str, path: str) -> tuple[str, ...]:
    return tuple(owner for _, owner in ReferenceOwners(text).of(path))


def assert_same_owners(text: str) -> None:
    ours = parse_codeowners(text)
    assert ours.invalid == (), ours.invalid
    reference = ReferenceOwners(text)
    differ = [
        (path, ours.owners_of(path), tuple(o for _, o in reference.of(path)))
        for path in PATHS
        if ours.owners_of(path) != tuple(o for _, o in reference.of(path))
    ]
    assert differ == [], differ[:5]


def test_the_real_path_corpus_is_the_one_described():
    assert len(real_paths()) > 150  # 169 files of 50 PRs


def test_vllms_codeowners_gives_every_path_the_same_owners():
    assert_same_owners(VLLM)


@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_documented_pattern_matches_the_same_paths(pattern: str):
    # After a catch-all, so "matched by this line" and "not matched" give different owners.
    assert_same_owners(f"* @fallback\n{pattern} @owner\n")


def test_a_pattern_with_no_owners_unowns_the_same_paths():
    assert_same_owners("* @fallback\n/vllm/ @core\n/vllm/v1/attention/\n**/*.md @docs\n")


@pytest.mark.parametrize("seed", range(20))
def test_the_last_matching_line_wins_the_same_way_in_any_order(seed: int):
    rng = random.Random(seed)
    lines = [f"{p} @owner{i}" for i, p in enumerate(PATTERNS)]
    lines += [f"{p}" for p in rng.sample(PATTERNS, 3)]  # a few lines with no owner
    rng.shuffle(lines)
    assert_same_owners("\n".join(lines) + "\n")


def test_escaped_spaces_and_comments_read_the_same():
    text = "* @fallback\n/docs/My\\ Guide.md @writer\n*.md @docs # the docs team\n"
    assert_same_owners(text)
    for path in ("docs/My Guide.md", "docs/Other.md"):
        assert parse_codeowners(text).owners_of(path) == owners_by_reference(text, path)


def test_every_pair_of_overlapping_lines_orders_the_same():
    overlapping = ["/vllm/", "vllm/v1/attention", "/vllm/**/*rocm*", "*.py", "**/backends/"]
    for first, second in itertools.permutations(overlapping, 2):
        assert_same_owners(f"{first} @first\n{second} @second\n")
