"""Lists in code's own sentences: every name said once, and a count only where it saves
words: "and 1 more" costs a reader what the name would, and cannot be checked."""

from __future__ import annotations

from summarizer.wording import LIST_CAP, listed, phrase


def test_a_list_up_to_one_past_the_cap_is_said_whole():
    names = [f"`n{i}`" for i in range(LIST_CAP + 1)]
    assert "more" not in listed(names)
    assert listed(names).endswith(f"and `n{LIST_CAP}`")


def test_a_longer_list_says_how_many_more():
    names = [f"`n{i}`" for i in range(LIST_CAP + 2)]
    assert listed(names).endswith("and 2 more")


def test_a_phrase_says_each_item_once():
    assert phrase("removes", ["`a`", "`b`", "`a`"]) == "removes `a` and `b`"
    assert phrase("adds", []) == ""
