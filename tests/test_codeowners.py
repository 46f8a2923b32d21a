"""CODEOWNERS is read as GitHub reads it: the last matching line decides a path's owners, even
a line with none, with gitignore's patterns minus what GitHub leaves out (`!`, `[ ]`)."""

from __future__ import annotations

import pytest

from bot.core.codeowners import (
    CODEOWNERS_LOCATIONS,
    CodeOwners,
    check_owner,
    compile_pattern,
    is_owner,
    parse_codeowners,
)
from bot.core.errors import UserInputError

# An excerpt of vLLM's .github/CODEOWNERS, with a catch-all team added on top.
VLLM = """\
# See https://help.github.com/articles/about-codeowners/
# for more info about CODEOWNERS file

* @vllm-project/maintainers

# This lists cover the "core" components of vLLM that require careful review
/vllm/compilation @zou3519 @youkaichao @ProExpertProg
/vllm/lora @jeejeelee
/vllm/model_executor/layers/fused_moe @mgoin @pavanimajety @zyongye

# Config utils
/vllm/config @WoosukKwon @youkaichao
/vllm/config/utils.py @hmellor
/vllm/utils/argparse_utils.py

# vLLM V1
/vllm/v1/attention @LucasWilkinson @MatthewBonanni
/vllm/v1/attention/backends/mla @pavanimajety
/vllm/v1/attention/backends/flashinfer.py @mgoin @pavanimajety @vadiklyutiy

# Docs
/docs/**/*.yml @hmellor
.readthedocs.yaml @hmellor

# CPU
/vllm/v1/worker/cpu* @bigPYJ1151 @xuechendi
/csrc/cpu @bigPYJ1151

# ROCm related: specify owner with write access to notify AMD folks for careful code review
/vllm/**/*rocm* @tjtanaa @dllehr-amd @vllm-project/rocm-team
/csrc/rocm @tjtanaa @vllm-project/rocm-team
"""


@pytest.fixture(scope="module")
def vllm() -> CodeOwners:
    return parse_codeowners(VLLM)


def test_github_looks_in_three_places_in_this_order():
    assert CODEOWNERS_LOCATIONS == (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


def test_the_last_matching_line_wins(vllm: CodeOwners):
    # /vllm/v1/attention, then the more specific line below it, decides.
    assert vllm.owners_of("vllm/v1/attention/backends/mamba_attn.py") == (
        "@LucasWilkinson",
        "@MatthewBonanni",
    )
    assert vllm.owners_of("vllm/v1/attention/backends/flashinfer.py") == (
        "@mgoin",
        "@pavanimajety",
        "@vadiklyutiy",
    )
    assert vllm.owners_of("vllm/v1/attention/backends/mla/flashmla.py") == ("@pavanimajety",)
    # The catch-all at the top loses to every later line, and decides what nothing else does.
    assert vllm.owners_of("vllm/lora/ops/triton_ops/utils.py") == ("@jeejeelee",)
    assert vllm.owners_of("setup.py") == ("@vllm-project/maintainers",)
    assert vllm.rule_for("setup.py").line == 4


def test_order_decides_not_specificity():
    text = "/vllm/v1/attention/backends/flashinfer.py @mgoin\n/vllm/v1/attention @LucasWilkinson\n"
    owners = parse_codeowners(text)
    assert owners.owners_of("vllm/v1/attention/backends/flashinfer.py") == ("@LucasWilkinson",)


def test_a_pattern_with_no_owners_leaves_the_file_unowned(vllm: CodeOwners):
    assert vllm.owners_of("vllm/utils/argparse_utils.py") == ()
    assert vllm.rule_for("vllm/utils/argparse_utils.py").pattern == "/vllm/utils/argparse_utils.py"
    assert vllm.owners_of("vllm/utils/other_utils.py") == ("@vllm-project/maintainers",)
    assert not vllm.owned_by(["vllm/utils/argparse_utils.py"], ["@vllm-project/maintainers"])


def test_a_path_no_line_matches_has_no_owner():
    owners = parse_codeowners("/vllm/lora @jeejeelee\n")
    assert owners.owners_of("csrc/attention/attention_kernels.cu") == ()
    assert owners.rule_for("csrc/attention/attention_kernels.cu") is None
    assert parse_codeowners("").owners_of("README.md") == ()


@pytest.mark.parametrize(
    "pattern, path, owned",
    [
        # A path without a trailing slash names a file or a directory, and all below it.
        ("/vllm/v1/attention", "vllm/v1/attention/backends/flash_attn.py", True),
        ("/vllm/v1/attention", "vllm/v1/attention", True),
        ("/vllm/v1/attention", "vllm/v1/attention_utils.py", False),
        # A trailing slash: a directory only, everything under it.
        ("/build/logs/", "build/logs/2026/02/23.log", True),
        ("/build/logs/", "build/logs", False),
        ("/build/logs/", "tools/build/logs/a.log", False),
        ("docs/", "docs/design/attention_backends.md", True),
        ("docs/**", "docs/design/attention_backends.md", True),
        ("docs/**", "docs", False),
        # dir/* is the files directly in it, not deeper.
        ("docs/*", "docs/README.md", True),
        ("docs/*", "docs/design/attention_backends.md", False),
        ("docs/*", "tests/docs/README.md", False),
        # A single name (trailing slash aside) matches at any depth; a directory with its files.
        ("rocm/", "csrc/rocm/attention.cu", True),
        ("rocm/", "csrc/rocm", False),
        ("apps/", "apps/web/index.ts", True),
        ("apps/", "packages/apps/web/index.ts", True),
        ("*.cu", "csrc/attention/attention_kernels.cu", True),
        ("*.cu", "attention_kernels.cu", True),
        ("*.cu", "csrc/attention/attention_kernels.cuh", False),
        ("CMakeLists.txt", "cmake/external_projects/CMakeLists.txt", True),
        # A leading slash, or one in the middle, anchors to the root.
        ("/CMakeLists.txt", "CMakeLists.txt", True),
        ("/CMakeLists.txt", "cmake/CMakeLists.txt", False),
        ("/csrc/cpu", "tests/csrc/cpu/test_cpu.py", False),
        ("vllm/lora", "vllm/lora/layers/base.py", True),
        ("vllm/lora", "tests/vllm/lora/test_layers.py", False),
        # * stays within one directory, ** crosses any number of them (none included).
        ("/vllm/*/rocm.py", "vllm/platforms/rocm.py", True),
        ("/vllm/*/rocm.py", "vllm/v1/platforms/rocm.py", False),
        ("/vllm/**/*rocm*", "vllm/platforms/rocm.py", True),
        ("/vllm/**/*rocm*", "vllm/v1/attention/backends/rocm_attn.py", True),
        ("/vllm/**/*rocm*", "vllm/rocm_utils.py", True),
        ("/vllm/**/*rocm*", "docker/Dockerfile.rocm_base", False),
        ("/docs/**/*.yml", "docs/mkdocs/hooks.yml", True),
        ("/docs/**/*.yml", "docs/a.yml", True),
        ("/vllm/v1/worker/cpu*", "vllm/v1/worker/cpu_model_runner.py", True),
        ("/vllm/v1/worker/cpu*", "vllm/v1/worker/gpu_model_runner.py", False),
        ("**/attention/*.py", "vllm/model_executor/layers/attention/mm_encoder_attention.py", True),
        ("*", "vllm/v1/core/sched/scheduler.py", True),
        ("/*", "setup.py", True),
        ("/*", "vllm/envs.py", False),
        ("?etup.py", "setup.py", True),
        ("?etup.py", "ssetup.py", False),
        # Escapes: brackets and spaces in names, a literal star.
        ("/web/app/\\[id\\]/page.tsx", "web/app/[id]/page.tsx", True),
        ("/docs/my\\ notes.md", "docs/my notes.md", True),
        ("/docs/\\*.md", "docs/*.md", True),
        ("/docs/\\*.md", "docs/README.md", False),
        # Paths are case-sensitive, as on GitHub.
        ("/Dockerfile", "dockerfile", False),
    ],
)
def test_patterns(pattern: str, path: str, owned: bool):
    owners = parse_codeowners(f"{pattern} @owner\n")
    assert owners.invalid == ()
    assert owners.owned_by([path], ["@owner"]) is owned


def test_comments_and_blank_lines_are_skipped():
    text = (
        "\ufeff# owners of vLLM\r\n"
        "\r\n"
        "   # an indented comment\r\n"
        "/vllm/lora @jeejeelee # LoRA, trailing comment @not-an-owner\r\n"
        "\t\r\n"
    )
    owners = parse_codeowners(text)
    assert owners.invalid == ()
    assert [r.line for r in owners.rules] == [4]
    assert owners.owners_of("vllm/lora/request.py") == ("@jeejeelee",)


def test_an_escaped_hash_is_not_a_pattern_github_reads():
    # GitHub documents that escaping a leading # with \ does not work: the line is skipped,
    # so it neither owns `#notes.md` nor overrides the line above it.
    owners = parse_codeowners("* @maintainers\n\\#notes.md @alice\n")
    assert owners.owners_of("#notes.md") == ("@maintainers",)
    assert [(bad.line, bad.text) for bad in owners.invalid] == [(2, "\\#notes.md @alice")]


@pytest.mark.parametrize(
    "line, reason",
    [
        ("!/vllm/lora @jeejeelee", "negation"),
        ("/web/app/[id]/page.tsx @alice", "[ ]"),
        ("/vllm/*** @alice", "***"),
        ("/vllm/lora jeejeelee", "not an owner"),
        ("/vllm/lora @jeejeelee @vllm-project/", "not an owner"),
    ],
)
def test_lines_github_rejects_are_skipped_and_listed(line: str, reason: str):
    owners = parse_codeowners(f"/vllm @maintainers\n{line}\n/csrc @kernels\n")
    assert [r.pattern for r in owners.rules] == ["/vllm", "/csrc"]
    assert len(owners.invalid) == 1
    assert owners.invalid[0].line == 2
    assert reason in owners.invalid[0].reason
    # The skipped line does not take the path from the line before it.
    assert owners.owners_of("vllm/lora/request.py") == ("@maintainers",)


def test_owners_are_users_teams_or_emails_compared_ignoring_case():
    owners = parse_codeowners(
        "/csrc/rocm @tjtanaa @vllm-project/ROCm-Team\n/docs/usage/security.md Security@vllm.ai\n"
    )
    assert owners.owners_of("csrc/rocm/attention.cu") == ("@tjtanaa", "@vllm-project/ROCm-Team")
    assert owners.owned_by(["csrc/rocm/attention.cu"], ["@vllm-project/rocm-team"])
    assert owners.owned_by(["csrc/rocm/attention.cu"], ["@TJTANAA"])
    assert owners.owned_by(["docs/usage/security.md"], ["security@VLLM.ai"])
    # A team is not its members, nor its organization.
    assert not owners.owned_by(["csrc/rocm/attention.cu"], ["@vllm-project"])
    assert owners.all_owners == ("@tjtanaa", "@vllm-project/ROCm-Team", "Security@vllm.ai")


def test_owned_by_is_any_file_owned_by_any_owner(vllm: CodeOwners):
    files = ["vllm/lora/layers/base.py", "docs/features/lora.md"]
    assert vllm.owned_by(files, ["@jeejeelee"])
    assert vllm.owned_by(files, ["@someone", "@vllm-project/maintainers"])
    assert not vllm.owned_by(files, ["@LucasWilkinson"])
    assert not vllm.owned_by(files, [])
    assert not vllm.owned_by([], ["@jeejeelee"])


def test_rocm_owners_across_the_tree(vllm: CodeOwners):
    team = ["@vllm-project/rocm-team"]
    assert vllm.owned_by(["vllm/platforms/rocm.py"], team)
    assert vllm.owned_by(["csrc/rocm/attention.cu"], team)
    assert vllm.owned_by(["vllm/v1/attention/backends/rocm_aiter_fa.py"], team)
    assert not vllm.owned_by(["vllm/v1/attention/backends/flash_attn.py"], team)
    assert not vllm.owned_by(["requirements/rocm-build.txt"], team)  # not under /vllm


def test_a_leading_slash_on_the_path_is_ignored(vllm: CodeOwners):
    assert vllm.owners_of("/vllm/lora/request.py") == ("@jeejeelee",)


@pytest.mark.parametrize(
    "text, good",
    [
        ("@alice", True),
        ("@vllm-project/rocm-team", True),
        ("@org/team_name.v2", True),
        ("docs@example.com", True),
        ("alice", False),
        ("@", False),
        ("@org/", False),
        ("<@U0123>", False),
    ],
)
def test_is_owner(text: str, good: bool):
    assert is_owner(text) is good


def test_check_owner_explains_a_missing_at_and_a_chat_mention():
    assert check_owner(" @alice ") == "@alice"
    with pytest.raises(UserInputError, match="did you mean @vllm-project/rocm-team"):
        check_owner("vllm-project/rocm-team")
    with pytest.raises(UserInputError, match="chat mention"):
        check_owner("<@U0123ABC>")
    with pytest.raises(UserInputError, match="not an owner"):
        check_owner("@@x")


def test_compile_pattern_refuses_what_github_refuses():
    for bad in ("", "!docs/", "docs/[ab].md", "a/***"):
        with pytest.raises(UserInputError):
            compile_pattern(bad)
    assert compile_pattern("/").fullmatch("anything") is None
