"""A name the PR adds to hold a value is said with the value, where an edit puts the name in
place of what was there: vLLM #35429's fix is `get_ip()`, not the name `mq_connect_ip`."""

from __future__ import annotations

from bot.core.models import SummarySections
from summarizer.facts import extract_facts
from summarizer.finishing import finish
from summarizer.new_locals import new_local_value
from tests.diffs import changed, pr_of, risk_of

CONNECT_IP = pr_of(changed("vllm/v1/executor/multiproc_executor.py", (
    "@@ -128,6 +129,7 @@ class MultiprocExecutor(Executor):\n"
    "             max_chunk_bytes = envs.VLLM_MQ_MAX_CHUNK_BYTES_MB * 1024 * 1024\n"
    "+            mq_connect_ip = get_ip()\n"
    "             self.rpc_broadcast_mq = MessageQueue(\n"
    "                 self.world_size,\n"
    "                 max_chunk_bytes=max_chunk_bytes,\n"
    "-                connect_ip=self.parallel_config.master_addr,\n"
    "+                connect_ip=mq_connect_ip,\n"
    "             )\n"
)))  # fmt: skip


def test_the_edit_and_its_risk_say_what_the_new_name_holds():
    out = finish(SummarySections("It fixes the IP.", "", "", ""), CONNECT_IP,
                 extract_facts(CONNECT_IP))  # fmt: skip
    assert out.what_changed.startswith(
        "In `MultiprocExecutor`, `self.parallel_config.master_addr` becomes `mq_connect_ip`, "
        "which the PR sets to `get_ip()`."
    )
    assert risk_of(CONNECT_IP).endswith(
        "The PR sets `mq_connect_ip` to `get_ip()` in a line it adds."
    )


def test_a_name_set_more_than_once_or_before_the_pr_has_no_one_value():
    path = "vllm/v1/executor/multiproc_executor.py"
    assert new_local_value(CONNECT_IP, path, "mq_connect_ip") == "get_ip()"
    twice = pr_of(changed(path, "@@ -1,2 +1,3 @@\n+ip = get_ip()\n ip = other\n-x = 1\n+x = ip\n"))
    assert new_local_value(twice, path, "ip") == ""
    opened = pr_of(changed(path, "@@ -1,2 +1,3 @@\n+ip = pick(\n+  a)\n-x = 1\n+x = ip\n"))
    assert new_local_value(opened, path, "ip") == ""


def test_a_keyword_argument_or_a_name_bound_again_is_no_value_set():
    path = "vllm/v1/executor/multiproc_executor.py"
    keyword = pr_of(
        changed(path, "@@ -1,2 +1,3 @@\n x = call(\n+    timeout=self.cfg.timeout,\n )\n")
    )
    assert new_local_value(keyword, path, "timeout") == ""
    looped = pr_of(
        changed(path, "@@ -1,2 +1,3 @@\n+ip = get_ip()\n for ip in ips:\n-x = 1\n+x = ip\n")
    )
    assert new_local_value(looped, path, "ip") == ""
    commented = pr_of(
        changed(path, "@@ -1,2 +1,3 @@\n+ip = get_ip()  # the local node\n-x = 1\n+x = ip\n")
    )
    assert new_local_value(commented, path, "ip") == "get_ip()"
