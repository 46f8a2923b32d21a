"""Items added to or dropped from a collection written one item a line.

Much of what a PR changes in a big project is a line in a list: an architecture dropped from
the tuple a condition checks (vLLM #35081 takes `CpuArchEnum.POWERPC` out, and POWER CPUs
keep chunked prefill), a backend added to the list a platform returns (#35010), keys added
to a model's `packed_modules_mapping` (#35413), names dropped from the set `compile_factors`
ignores (#35119). The line edit says what the text became; a reviewer asks who now finds
the item, or no longer does. The line that opens the literal says where the item is held:
the condition it is matched in, the name it is assigned to, or the `return` that gives it.
When the hunk starts inside the literal, an item beside the change names it instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.core.models import PullRequest
from summarizer.brackets import DEPTH, split_top_level, without_strings
from summarizer.code_hunks import block_rows, code_hunks
from summarizer.facts import is_code_line, line_owner
from summarizer.hunks import Hunk, Side
from summarizer.line_edits import rows_by_block
from summarizer.wording import code, in_place, listed

# A statement, not an item: an item line starts with none of these.
_STATEMENT = re.compile(
    r"^(?:return|if|elif|else|for|while|def|class|import|from|raise|assert|yield|with|try|"
    r"except|finally|del|pass|await|async|global|nonlocal)\b"
)
_EQUALS = re.compile(r"(?<![=!<>:])=(?!=)")  # `name=value`: a keyword argument, not an item
_COLON = re.compile(r":")
_NAMED = re.compile(r"^\s*(?P<name>[\w.]+)\s*(?::[^=]+)?=\s*[\[({]\s*$")
_RETURNED = re.compile(r"^\s*return\s*[\[({]\s*$")
_MATCHED = re.compile(
    r"^\s*(?P<kw>if|elif|while)\s+(?P<head>.*?)\s+(?P<op>not\s+in|in)\s*[\[({]\s*$"
)
_PARAMETER = re.compile(r"^\*{0,2}\w+\s*:")  # `name: type`, where a mapping's key is quoted
_ASSIGNS = re.compile(r"^\s*(?P<target>[\w.\[\]\"']+)\s*(?::[^=]+)?=(?!=)\s*(?P<value>.+?)\s*$")
_VALUE_CHARS = 40  # a mapping's longer value is not quoted: its key says which entry
_ASSIGNED_CHARS = 60  # a longer assignment is named, not quoted


@dataclass(frozen=True)
class ListedItems:
    """Items one side of a change block holds and the other lacks, all in one literal."""

    file: str
    enclosing: str | None
    items: tuple[str, ...]  # as written, without their trailing comma
    added: bool  # True: the PR adds them; False: it drops them
    holder: str = ""  # the name the literal is assigned to, when the hunk shows it
    returned: bool = False  # the literal is what a `return` gives
    subject: str = ""  # of a literal a condition matches against: what is matched
    does: tuple[str, ...] = ()  # what the branch does: its first statements that set a name
    neighbour: str = ""  # an unchanged item of the same literal, when nothing above names it

    @property
    def mapping(self) -> bool:
        return all(len(split_top_level(i, _COLON)) == 2 for i in self.items)


def listed_items(pr: PullRequest) -> list[ListedItems]:
    """Each change block of the Python code that runs which only adds, or only drops, whole
    items of one collection written one item a line, in diff order."""
    return [found for path, hunk in code_hunks(pr) for found in _hunk_items(path, hunk)]


def _hunk_items(path: str, hunk: Hunk) -> list[ListedItems]:
    found = []
    removed, added = rows_by_block(hunk.old), rows_by_block(hunk.new)
    for block in dict.fromkeys([*removed, *added]):
        olds, news = removed.get(block, []), added.get(block, [])
        if bool(olds) == bool(news):
            continue  # a rewrite or an edit in place: the line edits say it
        side, rows = (hunk.new, news) if news else (hunk.old, olds)
        items = [side.lines[r].strip() for r in rows if is_code_line(side.lines[r])]
        if items and all(map(_item_line, items)):
            where = line_owner(path, hunk, bool(news), rows[0])
            if found_here := _held(
                path, where, side, rows, tuple(i[:-1].strip() for i in items), bool(news)
            ):
                found.append(found_here)
    return found


def _item_line(text: str) -> bool:
    """One whole item and its comma: balanced, no statement, no `name=value`."""
    if not text.endswith(",") or _STATEMENT.match(text):
        return False
    bare = without_strings(text[:-1])
    depth, top = 0, []
    for ch in bare:
        depth += DEPTH.get(ch, 0)
        if depth < 0:
            return False
        top.append(ch if depth == 0 else " ")
    return not depth and not _EQUALS.search("".join(top))


def _held(
    path: str, where: str | None, side: Side, rows: list[int], items: tuple[str, ...], added: bool
) -> ListedItems | None:
    if any(_PARAMETER.match(i) for i in items):
        return None  # `name: type`: a signature's parameters, not a literal's items
    opener = _opener(side, rows[0])
    base = ListedItems(path, where, items, added)
    if opener is None:
        # Unseen, the opener could be a call's: only string items are surely a literal's.
        neighbour = _neighbour(side, rows)
        quoted = all(i[:1] in "\"'" for i in (*items, neighbour))
        return replace(base, neighbour=neighbour) if neighbour and quoted else None
    line = without_strings(side.lines[opener].split("#")[0]).rstrip()
    if m := _MATCHED.match(line):
        if m["op"] != "in":
            return None  # `not in`: the cases are the other way round, and rarer
        return replace(base, subject=_subject(m["head"]), does=_branch_does(side, rows))
    if m := _NAMED.match(line):
        return replace(base, holder=m["name"])
    if _RETURNED.match(line):
        return replace(base, returned=True)
    return None  # a call's arguments, or a literal inside an expression: no one place holds it


def _opener(side: Side, row: int) -> int | None:
    """The row of the line that opens the bracket `row` lies in, when the hunk shows it."""
    depth = 0
    for r in range(row - 1, -1, -1):
        bare = without_strings(side.lines[r].split("#")[0])
        for ch in reversed(bare):
            depth += DEPTH.get(ch, 0)
            if depth > 0:
                return r
    return None


def _neighbour(side: Side, rows: list[int]) -> str:
    """An unchanged item line next to the change, which locates the literal."""
    for r in (rows[0] - 1, rows[-1] + 1):
        if 0 <= r < len(side.lines) and r not in side.changed:
            text = side.lines[r].strip()
            if _item_line(text):
                return text[:-1].strip()
    return ""


def _subject(head: str) -> str:
    """What `if a and b in (` matches: its last `and`/`or` part, `b`."""
    parts = split_top_level(head, re.compile(r"\s(?:and|or)\s"))
    return parts[-1].strip().removeprefix("not ").strip("( ")


def _branch_does(side: Side, rows: list[int]) -> tuple[str, ...]:
    """The first assignments of the branch below the condition's closing line, quoted."""
    close = next(
        (r for r in range(rows[-1] + 1, len(side.lines)) if side.lines[r].rstrip().endswith(":")),
        None,
    )
    if close is None:
        return ()
    said = []
    for r in block_rows(side, close):
        if (m := _ASSIGNS.match(side.lines[r])) and r not in side.changed:
            text = f"{m['target']} = {m['value']}"
            said.append(text if len(text) <= _ASSIGNED_CHARS else m["target"])
    return tuple(dict.fromkeys(said))[:2]


def listed_sentence(found: list[ListedItems]) -> str:
    """The concern of the first change found, with the items of the same literal that the
    changes right after it add or drop too (one set of names split by an unchanged line)."""
    first = found[0]
    items = tuple(i for x in found if _same_literal(x, first) for i in x.items)
    x = replace(first, items=items)
    if x.subject:
        return _matched_sentence(x)
    them = "it" if len(x.items) == 1 else "them"
    if x.mapping:
        return _mapping_sentence(x, them)
    values = listed([code(i) for i in x.items])
    if x.returned and x.enclosing:
        verb = "now also returns" if x.added else "no longer returns"
        found = "now finds" if x.added else "no longer finds"
        return f"{code(x.enclosing)} {verb} {values}: a caller that looks for {them} in the result {found} {them}."
    where = in_place(x.enclosing, x.file)
    if x.holder:
        held = "now also holds" if x.added else "no longer holds"
        return (
            f"{where}, {code(x.holder)} {held} {values}: {_effect(them, x.added, code(x.holder))}."
        )
    placed = ("is" if them == "it" else "are") + (" now listed" if x.added else " no longer listed")
    effect = _effect(them, x.added, "that collection")
    return f"{where}, {values} {placed} beside {code(x.neighbour)}: {effect}."


def _effect(them: str, added: bool, place: str) -> str:
    found = "now finds" if added else "no longer finds"
    return f"code that looks for {them} in {place} {found} {them}"


def _same_literal(x: ListedItems, first: ListedItems) -> bool:
    return (x.file, x.enclosing, x.added, x.holder, x.returned, x.subject, x.mapping) == (
        first.file, first.enclosing, first.added, first.holder, first.returned, first.subject,
        first.mapping,
    )  # fmt: skip


def _matched_sentence(x: ListedItems) -> str:
    where = in_place(x.enclosing, x.file)
    values = listed([code(i) for i in x.items])
    branch = (
        f"the branch that sets {listed([code(d) for d in x.does])}" if x.does
        else "the branch below that `if`"
    )  # fmt: skip
    if x.added:
        now, did = "now also runs", f"adds {values} to"
    else:
        now, did = "no longer runs", f"drops {values} from"
    return (
        f"{where}, where {code(x.subject)} is {values}, {branch} {now}: the PR {did} the "
        f"values that `if` compares {code(x.subject)} with."
    )


def _mapping_sentence(x: ListedItems, them: str) -> str:
    pairs = [tuple(p.strip() for p in split_top_level(i, _COLON)) for i in x.items]
    keys = listed([code(k) for k, _ in pairs])
    short = len(pairs) <= 2 and all(len(v) <= _VALUE_CHARS for _, v in pairs)
    where = in_place(x.enclosing, x.file)
    held = code(x.holder) if x.holder else f"the mapping that also has {code(_key(x.neighbour))}"
    if x.returned and x.enclosing:
        where, held = f"In {code(x.enclosing)}", "the mapping it returns"
    if x.added:
        maps = " and ".join(f"{code(k)} to {code(v)}" for k, v in pairs) if short else keys
        return (
            f"{where}, {held} now also maps {maps}: a lookup of {keys} in it now finds a "
            "value, where before it found none."
        )
    return (
        f"{where}, {held} no longer maps {keys}: a lookup of {them} in it now finds none, and "
        f"one written `[…]` raises `KeyError`."
    )


def _key(item: str) -> str:
    return split_top_level(item, _COLON)[0].strip() if item else ""


_TURNED_OFF = re.compile(r"\b(?:disabl\w*|turn\w* off|switch\w* off)\b|\bto `?False`?", re.I)
_TURNED_ON = re.compile(r"\b(?:enabl\w*|turn\w* on|switch\w* on)\b|\bto `?True`?", re.I)
_UNDOES = re.compile(r"\b(?:remov\w*|drop\w*|no longer|exclud\w*|stop\w*|longer)\b", re.I)
_FLAG = re.compile(r"^(?:self\.)?(?P<name>[\w.]+) = (?P<value>True|False)$")


def turned_backwards(sentence: str, found: Sequence[ListedItems]) -> str:
    """Why `sentence` says a flag goes the way the PR does not turn it, or "", of the PR's
    listed items (`listed_items`): where the PR drops a value from those a branch that sets
    the flag `False` matches (vLLM #35081 drops POWER from the CPUs that get chunked prefill
    turned off), the PR turns the flag back on for it, and "disables chunked prefill for
    POWER" is backwards."""
    if _UNDOES.search(sentence):
        return ""  # "removes POWER from the CPUs that disable it" says it the right way round
    for x in found:
        for flag, value in _flags(x):
            if not _names_flag(sentence, flag):
                continue
            turns_off = (
                value == "False"
            ) == x.added  # added to an off-list, or dropped from an on-list
            claimed = _TURNED_OFF if not turns_off else _TURNED_ON
            if claimed.search(sentence):
                did = "adds" if x.added else "drops"
                to = "to" if x.added else "from"
                items = listed([code(i) for i in x.items])
                way = "off" if turns_off else "on"
                return (
                    f"says `{flag}` is turned {'on' if turns_off else 'off'}, but the PR {did} "
                    f"{items} {to} the values for which the branch sets `{flag} = {value}`: it "
                    f"turns `{flag}` {way} for them"
                )
    return ""


def _flags(x: ListedItems) -> list[tuple[str, str]]:
    return [(m["name"], m["value"]) for d in x.does if x.subject and (m := _FLAG.match(d))]


def _names_flag(sentence: str, flag: str) -> bool:
    """The sentence names the flag, as code (`enable_chunked_prefill`) or as words
    ("chunked prefill")."""
    name = flag.rsplit(".", 1)[-1]
    words = re.sub(r"^(?:enable|use|allow)_|_(?:enabled|enable)$", "", name).replace("_", " ")
    text = sentence.lower()
    return name.lower() in text or (len(words) > 3 and words.lower() in text)


def listed_change_sentence(found: list[ListedItems]) -> str:
    """What the PR does to the literal, for "what changed": "In `EngineArgs`, the PR drops
    `CpuArchEnum.POWERPC` from the values `if` compares `…` with." """
    first = found[0]
    x = replace(first, items=tuple(i for y in found if _same_literal(y, first) for i in y.items))
    shown = [_key(i) for i in x.items] if x.mapping else list(x.items)
    values = listed([code(i) for i in shown])
    keys = " the keys" if x.mapping else ""
    verb, to = ("adds", "to") if x.added else ("drops", "from")
    if x.subject:
        place = f"the values the `if` compares {code(x.subject)} with"
    elif x.holder:
        place = code(x.holder)
    elif x.returned:
        place = "the collection it returns"
    else:
        kind = "mapping" if x.mapping else "collection"
        place = (
            f"the {kind} that also holds {code(_key(x.neighbour) if x.mapping else x.neighbour)}"
        )
    return f"{in_place(x.enclosing, x.file)}, the PR {verb}{keys} {values} {to} {place}."


def says_items(text: str, found: list[ListedItems]) -> bool:
    """Whether `text` names an item of the first change already."""
    names = [_key(i) if found[0].mapping else i for i in found[0].items]
    return any(n.strip("\"'") in text for n in names)
