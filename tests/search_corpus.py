"""Stored PRs for the search and ask tests, written through the store's own API (save_pr,
save_summary) as a digest writes them, so the index is kept by its triggers alone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core.models import ChangedFile, ChangeType, PRSummary, PullRequest, SummarySections
from bot.store.store import Store
from tests.conftest import REPO

PACIFIC = ZoneInfo("America/Los_Angeles")


def stored_pr(
    store: Store,
    number: int,
    title: str,
    *,
    day: str = "2026-02-23",
    files: tuple[str, ...] = ("vllm/core/scheduler.py",),
    headline: str | None = None,
    what: str = "It changes the code the title names.",
    author: str = "alice",
    labels: tuple[str, ...] = (),
    change_type: ChangeType = ChangeType.SUBSTANTIAL,
    repo: str = REPO,
    summarized: bool = True,
) -> PRSummary | None:
    """A merged PR (merged at noon, Pacific time, on `day`) and its summary."""
    pr = PullRequest(
        repo=repo,
        number=number,
        title=title,
        url=f"https://github.com/{repo}/pull/{number}",
        author=author,
        state="merged",
        labels=labels,
        merged_at=datetime.fromisoformat(f"{day}T12:00:00").replace(tzinfo=PACIFIC),
        merge_commit_sha=f"{number:040x}",
        files=tuple(ChangedFile(f, additions=3, deletions=1) for f in files),
    )
    store.save_pr(pr)
    if not summarized:
        return None
    return store.save_summary(
        PRSummary(
            repo=repo,
            number=number,
            revision_sha=pr.revision_sha,
            prompt_version="3c",
            model="gpt-4o-mini",
            change_type=change_type,
            sections=SummarySections(
                what,
                "Callers see the new behaviour at once.",
                "An edge case may regress.",
                "Reviewers should read the main change first.",
                headline=headline if headline is not None else f"Summary of {title}.",
            ),
            files_covered=len(files),
            files_total=len(files),
        )
    )


def busy_day(store: Store) -> None:
    """A handful of PRs of several areas, authors, types and days."""
    stored_pr(
        store, 35156, "[LoRA] Fuse the MoE LoRA kernels",
        files=("vllm/lora/ops/triton_ops/fused_moe_lora_op.py", "tests/lora/test_moe.py"),
        headline="LoRA adapters on MoE models run in one fused kernel.",
        what="Adds `fused_moe_lora` so MoE layers apply LoRA weights in one Triton kernel.",
        author="jeejeelee", labels=("ready",),
    )  # fmt: skip
    stored_pr(
        store, 35160, "[Doc] Explain LoRA adapters",
        files=("docs/features/lora.md",), headline="The LoRA guide explains adapter loading.",
        what="Rewrites the guide's section on loading adapters.", author="bob",
        change_type=ChangeType.TRIVIAL, day="2026-02-20",
    )  # fmt: skip
    stored_pr(
        store, 35170, "[Core] Faster prefix caching",
        files=("vllm/v1/core/kv_cache_manager.py",),
        headline="Prefix caching hashes blocks once instead of twice.",
        what="The scheduler reuses block hashes; mentions LoRA only in passing.",
        author="alice", day="2026-02-21",
    )  # fmt: skip
    stored_pr(
        store, 35180, "[ROCm] Enable AITER attention",
        files=("vllm/attention/backends/rocm_aiter.py",),
        headline="ROCm GPUs use AITER attention by default.",
        what="Turns on the AITER backend for MI300.", author="carol", day="2026-02-22",
    )  # fmt: skip
