"""Subscription filters: which of a day's merged PRs a subscription posts.

A filter has six kinds, each optional: `paths` (globs, `bot.core.globs` syntax), `codeowners`
(owners as CODEOWNERS writes them), `labels`, `authors` (GitHub logins), `bots` (`include`,
`exclude` or `group`) and `types` (`SUBSTANTIAL`, `TRIVIAL`). In chat they are words like
`paths:vllm/v1/attention/**,csrc/attention/**`; in prdigest.toml, keys whose values are lists
of strings (or one comma-separated string). A leading `!` excludes.

How they combine (the README's "Filters" section says the same, with worked examples):

- **AND between kinds**: a PR must pass every kind the filter sets.
- **OR within a kind**: passing one include of a kind is enough (`labels:bug,perf` is "bug or
  perf").
- **Excludes win over includes**: what matches an exclude is never counted, whatever include
  it also matches.

`labels`, `authors`, `bots` and `types` describe the PR as a whole, so an exclude there drops
the PR: `labels:bug,!ci` is "labeled bug and not labeled ci".

`paths` and `codeowners` describe files, and a PR is many files. They are decided file by
file: a file is *selected* when it matches an include (any file, when the kind lists only
excludes) and no exclude; the PR passes the kind when **at least one of its files is
selected**. So an exclude removes files, not PRs, and a PR is dropped by excludes only when
ALL of its files are excluded. Why: a team writes `paths:vllm/**,!vllm/model_executor/models/**`
to stop seeing PRs that only add or tweak a model, not to miss a scheduler change that also
touches one model file; and `paths:!docs/**` means "not the docs-only PRs", not "nothing that
fixes a docstring link too". A team that wants any model file to hide the PR can say it with a
label or an author filter, which do drop the whole PR.

Consequences, all on purpose:
- a PR with no files never passes a `paths` or `codeowners` filter (nothing is selected);
- files are the PR's paths as GitHub lists them (`ChangedFile.filename`: the new path of a
  rename, the old path of a deleted file); a rename's previous path is not counted;
- `codeowners` owners are read from the repository's CODEOWNERS (`bot.core.codeowners`) with
  GitHub's last-match-wins rule; without a CODEOWNERS file no file is owned, so an include
  never passes (and an exclude-only `codeowners` filter passes any PR with files);
- `paths` and `codeowners` are each decided on their own (AND at the PR level): one file may
  pass `paths` and another `codeowners`;
- `types` passes only a PR whose summary gave a type (`change_type` None never passes);
- `authors` compare ignoring case and a `[bot]` suffix (`authors:!dependabot` excludes
  `dependabot[bot]`); `bots:exclude` drops PRs by bot accounts (a `[bot]` login or one of the
  configured bot logins, `bot.core.models.is_bot_login`); `bots:include` and `bots:group`
  drop nothing (group only changes how those PRs are shown: one line each in the grouped
  reply, as the "grouped" trivial style does);
- `types:!trivial` is stored as the types left (`types:substantial`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.core.codeowners import CodeOwners, check_owner, owner_key
from bot.core.errors import ConfigurationError, PRDigestError, UserInputError
from bot.core.globs import any_glob_matches, compile_glob
from bot.core.models import ChangeType, PullRequest, is_bot_login

FILTER_KEYS = ("paths", "codeowners", "labels", "authors", "bots", "types")
_TERM_KEYS = ("paths", "codeowners", "labels", "authors")
_ALIASES = {
    "path": "paths",
    "codeowner": "codeowners",
    "owner": "codeowners",
    "owners": "codeowners",
    "label": "labels",
    "author": "authors",
    "bot": "bots",
    "type": "types",
}
EXAMPLES = {
    "paths": "paths:vllm/v1/attention/**,csrc/attention/**",
    "codeowners": "codeowners:@vllm-project/rocm-team",
    "labels": "labels:bug,!ci",
    "authors": "authors:alice,!bob",
    "bots": "bots:group",
    "types": "types:substantial",
}
_QUOTES = '"\u201c\u201d'  # straight and curly double quotes (chat apps curl them)
_FILTER_WORD = re.compile(r"[A-Za-z][A-Za-z_-]*:(?!//)")
_LOGIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*(?:\[bot\])?")
_SHOWN = 40  # characters of the user's text quoted back in an error


class BotMode(StrEnum):
    """What a subscription does with PRs opened by bot accounts."""

    INCLUDE = "include"  # post them like any other (the default)
    EXCLUDE = "exclude"  # leave them out
    GROUP = "group"  # one line each in the grouped reply


_BOT_WORDS = {
    "include": BotMode.INCLUDE,
    "included": BotMode.INCLUDE,
    "exclude": BotMode.EXCLUDE,
    "excluded": BotMode.EXCLUDE,
    "group": BotMode.GROUP,
    "grouped": BotMode.GROUP,
}
_BOT_SHOWN = {BotMode.INCLUDE: "included", BotMode.EXCLUDE: "excluded", BotMode.GROUP: "grouped"}


class FilterConfigError(ConfigurationError):
    """A filter in prdigest.toml (or stored) is wrong; `key` is the key as written, so the
    configuration reader can point at its line."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


# How `clause` words each kind: (with includes, before its excludes, with excludes only).
_CLAUSES = {
    "paths": ("touch", "outside", "touch files outside"),
    "codeowners": ("touch files owned by", "and not by", "touch files not owned by"),
    "labels": ("are labeled", "and not", "are not labeled"),
    "authors": ("are by", "and not by", "are not by"),
}


@dataclass(frozen=True)
class Terms:
    """One kind's includes and excludes, in the order written, without the `!`."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.include and not self.exclude

    def items(self) -> tuple[str, ...]:
        """As written: includes, then excludes with their `!`."""
        return self.include + tuple("!" + item for item in self.exclude)


@dataclass(frozen=True)
class SubscriptionFilter:
    """Which PRs a subscription posts; the empty filter (the default) posts them all."""

    paths: Terms = field(default_factory=Terms)
    codeowners: Terms = field(default_factory=Terms)
    labels: Terms = field(default_factory=Terms)
    authors: Terms = field(default_factory=Terms)
    bots: BotMode | None = None
    types: tuple[ChangeType, ...] = ()

    # -- what it is ------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        """No kind set at all (`bots:include`, although it drops nothing, is a setting)."""
        return self == SubscriptionFilter()

    @property
    def needs_codeowners(self) -> bool:
        """Whether `matches` needs the repository's CODEOWNERS."""
        return not self.codeowners.is_empty

    @property
    def groups_bots(self) -> bool:
        return self.bots == BotMode.GROUP

    # -- matching --------------------------------------------------------------------------

    def matches(
        self,
        pr: PullRequest,
        change_type: ChangeType | None = None,
        owners: CodeOwners | None = None,
        bots: frozenset[str] = frozenset(),
    ) -> bool:
        """Whether the subscription posts `pr` (see the module docstring for the rules).

        `change_type` is the PR's summary's type (None when it has no summary), `owners` the
        repository's CODEOWNERS (None when it has none), `bots` the configured bot logins,
        lower-case, as `is_bot_login` takes them.
        """
        return self.matches_pr(pr, owners, bots) and self.matches_type(change_type)

    def matches_pr(
        self,
        pr: PullRequest,
        owners: CodeOwners | None = None,
        bots: frozenset[str] = frozenset(),
    ) -> bool:
        """Every kind but `types`: decidable before any summary exists, so a digest can skip
        summarizing the PRs it will not post."""
        files = [f.filename for f in pr.files]
        if not self.paths.is_empty and not any(self._path_selected(p) for p in files):
            return False
        if not self.codeowners.is_empty and not self._owned(files, owners):
            return False
        if not self.labels.is_empty:
            have = {label.casefold() for label in pr.labels}
            if self.labels.include and not have & {x.casefold() for x in self.labels.include}:
                return False
            if have & {x.casefold() for x in self.labels.exclude}:
                return False
        if not self.authors.is_empty:
            who = _login_key(pr.author)
            if self.authors.include and who not in {_login_key(a) for a in self.authors.include}:
                return False
            if who in {_login_key(a) for a in self.authors.exclude}:
                return False
        return not (self.bots == BotMode.EXCLUDE and is_bot_login(pr.author, bots))

    def matches_type(self, change_type: ChangeType | None) -> bool:
        return not self.types or change_type in self.types

    def _path_selected(self, path: str) -> bool:
        include, exclude = self.paths.include, self.paths.exclude
        if include and not any_glob_matches(include, path):
            return False
        return not any_glob_matches(exclude, path)

    def _owned(self, files: list[str], owners: CodeOwners | None) -> bool:
        include = {owner_key(o) for o in self.codeowners.include}
        exclude = {owner_key(o) for o in self.codeowners.exclude}
        for path in files:
            keys = {owner_key(o) for o in owners.owners_of(path)} if owners else set()
            if (not include or keys & include) and not keys & exclude:
                return True
        return False

    # -- text ------------------------------------------------------------------------------

    def describe(self) -> str:
        """Short text for `/digest subscriptions`: "paths vllm/v1/attention/** · types
        SUBSTANTIAL"; "" for the empty filter. Plain text: the adapter escapes it."""
        parts = [
            f"{key} " + ", ".join(getattr(self, key).items())
            for key in _TERM_KEYS
            if not getattr(self, key).is_empty
        ]
        if self.bots:
            parts.append(f"bots {_BOT_SHOWN[self.bots]}")
        if self.types:
            parts.append("types " + ", ".join(t.value for t in self.types))
        return " · ".join(parts)

    def clause(self, code: Callable[[str], str] = str) -> str:
        """What the posted PRs have in common, to follow "7 of 52 PRs merged yesterday":
        "touch vllm/v1/attention/** and are SUBSTANTIAL"; "" for the empty filter.

        `code` formats a path, owner, label or login (a platform's code span, say).
        """

        def either(items: Iterable[str]) -> str:
            return " or ".join(code(item) for item in items)

        parts: list[str] = []
        for terms, (included, besides, excluded) in (
            (self.paths, _CLAUSES["paths"]),
            (self.codeowners, _CLAUSES["codeowners"]),
            (self.labels, _CLAUSES["labels"]),
            (self.authors, _CLAUSES["authors"]),
        ):
            if terms.include:
                rest = f" {besides} {either(terms.exclude)}" if terms.exclude else ""
                parts.append(f"{included} {either(terms.include)}{rest}")
            elif terms.exclude:
                parts.append(f"{excluded} {either(terms.exclude)}")
        if self.bots == BotMode.EXCLUDE:
            parts.append("are not by bots")
        if self.types:
            parts.append("are " + " or ".join(t.value for t in self.types))
        if len(parts) <= 1:
            return "".join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def to_args(self) -> str:
        """The chat form, which `parse_filter_args` reads back to an equal filter."""
        words = []
        for key in _TERM_KEYS:
            terms: Terms = getattr(self, key)
            if not terms.is_empty:
                items = [_quoted(x) for x in terms.include]
                items += ["!" + _quoted(x) for x in terms.exclude]
                words.append(f"{key}:" + ",".join(items))
        if self.bots:
            words.append(f"bots:{self.bots.value}")
        if self.types:
            words.append("types:" + ",".join(t.value.lower() for t in self.types))
        return " ".join(words)

    # -- storage ---------------------------------------------------------------------------

    def to_config(self) -> dict[str, Any]:
        """The prdigest.toml form: lists of strings (excludes with `!`), `bots` a string."""
        out: dict[str, Any] = {
            key: list(getattr(self, key).items())
            for key in _TERM_KEYS
            if not getattr(self, key).is_empty
        }
        if self.bots:
            out["bots"] = self.bots.value
        if self.types:
            out["types"] = [t.value for t in self.types]
        return out

    def to_json(self) -> str:
        """For the store; "{}" for the empty filter."""
        return json.dumps(self.to_config(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> SubscriptionFilter:
        """Read `to_json`'s text back (None or "" is the empty filter), checked as a
        configuration is: a stored value that no longer parses is a ConfigurationError."""
        if not text:
            return cls()
        try:
            data = json.loads(text)
        except ValueError:
            raise ConfigurationError(f"stored filter is not JSON: {text[:_SHOWN]!r}") from None
        return cls.from_config(data)

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> SubscriptionFilter:
        """A prdigest.toml table of filter keys: `paths = ["vllm/**", "!docs/**"]` or
        `paths = "vllm/**, !docs/**"`; FilterConfigError (a ConfigurationError) names the
        key. Unknown keys are errors, so pass only filter keys (see FILTER_KEYS)."""
        builder = _Builder(chat=False)
        if not isinstance(table, Mapping):
            raise FilterConfigError("filters", "filters must be a table of filter keys")
        for raw_key, value in table.items():
            key = str(raw_key)
            canonical = builder.key(key)
            if isinstance(value, str):
                pieces = [p.strip() for p in value.split(",")]
                pieces = [p for p in pieces if p]
            elif isinstance(value, list) and all(isinstance(v, str) for v in value):
                pieces = [v.strip() for v in value]
                if not all(pieces):
                    raise builder.fail(key, f"{key}: an empty string in the list")
            else:
                raise builder.fail(
                    key, f"{key} must be a list of strings or one comma-separated string"
                )
            items = []
            for piece in pieces:
                negated = piece.startswith("!")
                text = piece[1:].strip() if negated else piece
                if negated and text.startswith("!"):
                    raise builder.fail(key, f"{key}: one ! is enough in {piece[:_SHOWN]!r}")
                items.append((text, negated))
            builder.add(key, canonical, items)
        return builder.build()


# -- chat --------------------------------------------------------------------------------


def is_filter_word(word: str) -> bool:
    """Whether a word of a command is (the start of) a filter: `key:...`, with a key of
    letters. Not "09:00", "owner/repo" or a URL; an unknown key counts, so a typo is an
    error naming it rather than a repository."""
    return _FILTER_WORD.match(word) is not None


def split_filter_words(words: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the other words, the filter words) of a command, in order. A quoted value with
    spaces (`labels:"good first issue"`) is rejoined into one filter word."""
    rest: list[str] = []
    filters: list[str] = []
    pending = list(words)
    i = 0
    while i < len(pending):
        word = pending[i]
        i += 1
        if not is_filter_word(word):
            rest.append(word)
            continue
        while _open_quote(word) and i < len(pending):
            word += " " + pending[i]
            i += 1
        filters.append(word)
    return rest, filters


def parse_filter_args(text_tokens: Sequence[str] | str) -> SubscriptionFilter:
    """The filter typed in chat: words like `paths:a/**,!a/b/**`, `codeowners:@org/team`,
    `labels:!ci,bug`, `authors:alice,!bob`, `bots:group`, `types:substantial`.

    A key may repeat (its values add up). UserInputError, one line naming the bad part, for
    anything else: an unknown key (with a did-you-mean), an empty value, a bad pattern,
    owner, login, type or bots value, or a word that is not a filter.
    """
    words = text_tokens.split() if isinstance(text_tokens, str) else list(text_tokens)
    rest, filter_words = split_filter_words(" ".join(words).split())
    if rest:
        shown = rest[0][:_SHOWN]
        raise UserInputError(
            f"{shown!r} is not a filter: write key:value with no spaces, like {EXAMPLES['paths']}"
        )
    builder = _Builder(chat=True)
    for word in filter_words:
        raw_key, _, value = word.partition(":")
        canonical = builder.key(raw_key)
        builder.add(raw_key, canonical, _chat_items(raw_key, value))
    return builder.build()


def _open_quote(word: str) -> bool:
    return sum(word.count(q) for q in _QUOTES) % 2 == 1


def _chat_items(key: str, value: str) -> list[tuple[str, bool]]:
    """(text, excluded) per comma-separated item; quotes group, and are not part of it."""
    pieces: list[str] = []
    current, quoted = "", False
    for ch in value:
        if ch in _QUOTES:
            quoted = not quoted
        elif ch == "," and not quoted:
            pieces.append(current)
            current = ""
            continue
        current += ch
    pieces.append(current)
    if quoted:
        raise UserInputError(f"{key}: a quote is not closed in {value[:_SHOWN]!r}")
    items = []
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue  # "a,,b" and a trailing comma
        negated = piece.startswith("!")
        raw = piece[1:].strip() if negated else piece
        if raw.startswith("!"):
            raise UserInputError(f"{key}: one ! is enough in {piece[:_SHOWN]!r}")
        items.append(("".join(c for c in raw if c not in _QUOTES).strip(), negated))
    return items


def _quoted(item: str) -> str:
    """An item as one chat word: quoted when it has a space or comma, or starts with !."""
    if any(c.isspace() for c in item) or "," in item or item.startswith("!"):
        return f'"{item}"'
    return item


# -- shared parsing ----------------------------------------------------------------------


def check_path_pattern(pattern: str) -> str:
    """A `paths` glob, stripped; UserInputError with the reason for one that cannot be
    meant (globs are `bot.core.globs` syntax, which has no ranges, braces or escapes)."""
    text = pattern.strip()
    shown = text[:_SHOWN]
    if "\\" in text:
        raise UserInputError(f"{shown!r}: write / between directories, not \\")
    if any(c in text for c in "[]{}"):
        raise UserInputError(
            f"{shown!r}: [ ] and {{ }} are not supported: list each pattern, comma-separated"
        )
    if "***" in text:
        raise UserInputError(f"{shown!r}: use ** for any depth")
    if any(part in (".", "..") for part in text.strip("/").split("/")):
        raise UserInputError(f"{shown!r}: paths start at the repository root, without . or ..")
    if text.startswith("!"):
        raise UserInputError(f"{shown!r}: one ! is enough")
    compile_glob(text)  # the empty pattern and "/"
    return text


def _login_key(login: str | None) -> str:
    return (login or "").casefold().removeprefix("@").removesuffix("[bot]")


class _Builder:
    """Collects (key, values) from chat or a configuration; the same checks for both."""

    def __init__(self, *, chat: bool):
        self.chat = chat
        self.terms: dict[str, tuple[list[str], list[str]]] = {k: ([], []) for k in _TERM_KEYS}
        self.bots: BotMode | None = None
        self.types_in: list[ChangeType] = []
        self.types_out: list[ChangeType] = []

    def fail(self, key: str, message: str) -> PRDigestError:
        return UserInputError(message) if self.chat else FilterConfigError(key, message)

    def key(self, raw: str) -> str:
        name = raw.strip().lower()
        if name in FILTER_KEYS:
            return name
        if name in _ALIASES:
            return _ALIASES[name]
        close = difflib.get_close_matches(name, [*FILTER_KEYS, *_ALIASES], n=1, cutoff=0.6)
        hint = f" (did you mean {_ALIASES.get(close[0], close[0])}?)" if close else ""
        allowed = ", ".join(FILTER_KEYS[:-1]) + " or " + FILTER_KEYS[-1]
        raise self.fail(raw, f"unknown filter {raw[:20]!r}{hint}: use {allowed}")

    def add(self, key: str, canonical: str, items: list[tuple[str, bool]]) -> None:
        if not items:
            fix = f", like {EXAMPLES[canonical]}" if self.chat else " (or remove the key)"
            raise self.fail(key, f"{key}: needs a value{fix}")
        for text, negated in items:
            if not text:
                raise self.fail(key, f"{key}: ! needs a value after it")
            if any(q in text for q in _QUOTES):
                raise self.fail(key, f"{key}: {text[:_SHOWN]!r} contains a quote")
            if canonical in self.terms:
                self._add_term(key, canonical, self._checked(key, canonical, text), negated)
            elif canonical == "bots":
                self._add_bots(key, text, negated)
            else:
                self._add_type(key, text, negated)

    def _checked(self, key: str, canonical: str, text: str) -> str:
        try:
            if canonical == "paths":
                return check_path_pattern(text)
            if canonical == "codeowners":
                return check_owner(text)
        except UserInputError as exc:
            raise self.fail(key, f"{key}: {exc}") from None
        if canonical == "authors":
            login = text.removeprefix("@")
            if not _LOGIN.fullmatch(login):
                raise self.fail(key, f"{key}: {text[:_SHOWN]!r} is not a GitHub login")
            return login
        return text  # a label: any text

    def _add_term(self, key: str, canonical: str, value: str, negated: bool) -> None:
        include, exclude = self.terms[canonical]
        same = (lambda a: a) if canonical == "paths" else str.casefold
        target, other = (exclude, include) if negated else (include, exclude)
        if any(same(v) == same(value) for v in other):
            raise self.fail(key, f"{key}: {value[:_SHOWN]!r} is both included and excluded")
        if not any(same(v) == same(value) for v in target):
            target.append(value)

    def _add_bots(self, key: str, text: str, negated: bool) -> None:
        mode = _BOT_WORDS.get(text.lower())
        if negated or mode is None:
            shown = ("!" if negated else "") + text[:_SHOWN]
            raise self.fail(key, f"{key}: {shown!r} is not include, exclude or group")
        if self.bots is not None and self.bots != mode:
            raise self.fail(key, f"{key}: choose one of include, exclude or group")
        self.bots = mode

    def _add_type(self, key: str, text: str, negated: bool) -> None:
        name = text.upper()
        if name not in ChangeType.__members__:
            names = [t.value.lower() for t in ChangeType]
            close = difflib.get_close_matches(text.lower(), names, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            allowed = " or ".join(names)
            raise self.fail(key, f"{key}: {text[:_SHOWN]!r} is not a type{hint}: use {allowed}")
        change_type = ChangeType[name]
        target, other = (
            (self.types_out, self.types_in) if negated else (self.types_in, self.types_out)
        )
        if change_type in other:
            raise self.fail(key, f"{key}: {text!r} is both included and excluded")
        target.append(change_type)

    def build(self) -> SubscriptionFilter:
        types: tuple[ChangeType, ...] = ()
        if self.types_in or self.types_out:
            allowed = self.types_in or list(ChangeType)
            types = tuple(t for t in ChangeType if t in allowed and t not in self.types_out)
            if not types:
                raise self.fail("types", "types: that leaves no type to post")
        terms = {key: Terms(tuple(inc), tuple(exc)) for key, (inc, exc) in self.terms.items()}
        return SubscriptionFilter(**terms, bots=self.bots, types=types)
