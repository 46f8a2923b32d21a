"""What was broken is said where the PR's own new test tells it: a docstring that states the
bug, or what a regression test holds, quoted with its file after "what changed". Nothing
else the tests say is quoted, and never a sentence with a link, an issue number or a handle."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.bug_story import story_sentence, told_bug
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from tests.diffs import changed, pr_of

# vLLM #35429: the fix is one argument; its new test's docstring tells the bug.
FIX = changed("vllm/v1/executor/multiproc_executor.py", (
    "@@ -120,3 +120,3 @@ class MultiprocExecutor(Executor):\n"
    "         self.rpc_broadcast_mq = MessageQueue(\n"
    "-            connect_ip=self.parallel_config.master_addr,\n"
    "+            connect_ip=mq_connect_ip,\n"
    "         )\n"
))  # fmt: skip
TEST = changed("tests/distributed/test_mq_connect_ip.py", (
    "@@ -0,0 +1,12 @@\n"
    '+"""\n'
    "+Test that MessageQueue uses the local node's IP for binding.\n"
    "+\n"
    "+The bug: multiproc_executor used `parallel_config.master_addr` as\n"
    "+`connect_ip` for every DP group's MessageQueue. For DP groups whose\n"
    "+leader is NOT on the master node, binding to master_addr fails with\n"
    '+"Cannot assign requested address".\n'
    '+"""\n'
    "+\n"
    "+def test_mq_bind_with_local_ip():\n"
    "+    mq = MessageQueue(n_reader=2, n_local_reader=1, connect_ip=get_ip())\n"
    "+    assert mq.export_handle().remote_subscribe_addr\n"
))  # fmt: skip


def test_the_bug_a_new_test_tells_is_quoted_after_what_changed():
    pr = pr_of(FIX, TEST)
    story = told_bug(pr)
    assert story is not None and not story.regression
    assert story.text == (
        "multiproc_executor used `parallel_config.master_addr` as `connect_ip` for every DP "
        "group's MessageQueue. For DP groups whose leader is NOT on the master node, binding "
        'to master_addr fails with "Cannot assign requested address".'
    )
    out = finish(SummarySections("It fixes the bind.", "", "", ""), pr, extract_facts(pr))
    assert out.what_changed.endswith(
        "The PR's new test in `tests/distributed/test_mq_connect_ip.py` says what was broken: "
        f'"{story.text.replace(chr(34), chr(39))}"'
    )


def test_a_regression_test_says_what_must_hold():
    regression = changed("tests/models/test_omni_embed.py", (
        "@@ -0,0 +1,5 @@\n"
        "+def test_mixed_modalities():\n"
        '+    """Regression test for mixed modalities: with audio, image and video, audio\n'
        '+    positions must receive audio embeddings, not image or video ones."""\n'
        "+    assert embed(audio, image, video).audio_ok\n"
    ))  # fmt: skip
    assert story_sentence(pr_of(regression)) == (
        "The PR's new regression test in `tests/models/test_omni_embed.py` says: \"with audio, "
        'image and video, audio positions must receive audio embeddings, not image or video ones."'
    )


def test_a_story_with_a_link_an_issue_or_a_handle_or_of_a_few_words_is_not_quoted():
    for docstring in (
        "Regression test for https://github.com/acme/engine/issues/34865 in the scheduler path.",
        "Regression test for issue #34506: audio positions must receive audio embeddings.",
        "The bug: @someone saw the scheduler drop requests under heavy load every night.",
        "The bug: it crashed.",
        "Test that the scheduler keeps every request it is given under load.",
    ):
        test = changed("tests/test_scheduler.py", (
            "@@ -0,0 +1,3 @@\n"
            "+def test_load():\n"
            f'+    """{docstring}"""\n'
            "+    assert run()\n"
        ))  # fmt: skip
        assert told_bug(pr_of(test)) is None, docstring


def test_prose_added_outside_the_tests_is_not_a_story():
    code = changed("vllm/scheduler.py", (
        "@@ -10,2 +10,4 @@ def schedule(self):\n"
        "     waiting = self.waiting\n"
        "+    # The bug: requests that waited longest were dropped first under heavy load.\n"
        "+    waiting.sort(key=arrival)\n"
    ))  # fmt: skip
    assert told_bug(pr_of(code)) is None
