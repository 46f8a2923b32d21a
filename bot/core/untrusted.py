"""The trust boundary: every string that came from GitHub or from a model passes here before
any renderer sees it.

`clean` takes out what no reader should ever receive, whatever the surface: C0 and C1 control
characters, ANSI CSI and OSC escape sequences (OSC 8 hyperlinks among them), bidirectional
overrides, isolates and marks, and the invisible characters used to split a word a filter
looks for. Every other character stays: emoji (a joiner inside an emoji sequence too), CJK,
accents. What is *markup* on a given surface is each renderer's business (it escapes for its
own syntax); this module only decides what is text at all.

The PR values (`PullRequest`, `ChangedFile`) and the model's (`SummarySections`, a summary's
change note) call it as they are made, so data fetched today, stored by an older release or
written by any summarizer is clean by construction.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

# ESC-introduced sequences as terminals read them: CSI (ESC [ params final), OSC (ESC ] ...
# ended by BEL or ST), DCS/SOS/PM/APC strings (ESC P/X/^/_ ... ST), and any other two-byte
# escape. The 8-bit forms (U+009B CSI, U+009D OSC, ...) are C1 controls and go below, but
# their parameters would stay as text, so they are matched as sequences too.
_ESCAPE_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?        # CSI
  | (?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])                      # OSC, DCS, SOS, PM, APC
    [^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?                        #   ... until BEL or ST
  | \x1b[\x20-\x2f]*[\x30-\x7e]?                                 # any other escape
    """,
    re.VERBOSE,
)
# Bidirectional formatting (U+061C, U+200E/F, U+202A-E, U+2066-9) and the invisible
# characters that can hide inside a word (zero-width space and non-joiner, word joiner,
# BOM, soft hyphen, Mongolian vowel separator, invisible operators, Hangul fillers). The
# zero-width joiner is handled apart: it is part of emoji sequences.
_FORMAT = (
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u200b\u200c\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e\u115f\u1160\u3164\uffa0"
)
ZWJ = "\u200d"
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x85\u2028\u2029]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SUSPECT = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029" + _FORMAT + ZWJ + "]"
)  # fast path: most text has none of these
_DROP = str.maketrans(dict.fromkeys(_FORMAT))


def clean(text: str | None, *, multiline: bool = True) -> str:
    """`text` with nothing a reader should not receive (see the module's doc).

    A multiline field (a description, a model's section) keeps `\\n` and `\\t`; every other
    line break becomes `\\n`. A one-line field (a title, a login, a file name, a headline)
    gets a space for each line break or tab, so it cannot start a line of its own anywhere.
    """
    if not text:
        return ""
    if not _SUSPECT.search(text) and (multiline or not ("\n" in text or "\t" in text)):
        return text
    value = _ESCAPE_SEQUENCE.sub("", text)
    value = _LINE_BREAKS.sub("\n", value)
    if not multiline:
        value = value.replace("\n", " ").replace("\t", " ")
    value = _CONTROL.sub("", value).translate(_DROP)
    return _emoji_joiners_only(value) if ZWJ in value else value


def clean_line(text: str | None) -> str:
    """A one-line field: `clean(text, multiline=False)`."""
    return clean(text, multiline=False)


def _emoji_joiners_only(text: str) -> str:
    """Keep a zero-width joiner only between two emoji (👩‍💻); elsewhere it hides a word."""
    out = []
    for i, char in enumerate(text):
        if char == ZWJ and not (_is_emoji(text, i - 1) and _is_emoji(text, i + 1)):
            continue
        out.append(char)
    return "".join(out)


def _is_emoji(text: str, i: int) -> bool:
    if not 0 <= i < len(text):
        return False
    char = text[i]
    if char == "\ufe0f" or "\U0001f3fb" <= char <= "\U0001f3ff":  # VS16, skin tones
        return _is_emoji(text, i - 1)
    return unicodedata.category(char) == "So" or "\U0001f000" <= char <= "\U0001faff"


# -- GitHub logins and the links prdigest builds ------------------------------------------------

# GitHub's rule: 1-39 letters, digits and single hyphens, not at either end. An App's account
# is shown as `name[bot]`.
_LOGIN = re.compile(r"(?:[A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]{0,37}[A-Za-z0-9])(\[bot\])?")


def is_login(login: str | None) -> bool:
    """Whether `login` is one GitHub could have given out (so a profile link may be built)."""
    value = login or ""
    return bool(_LOGIN.fullmatch(value)) and "--" not in value


def profile_path(login: str) -> str | None:
    """The path of a login's profile page (`/name`, or `/apps/name` for a `name[bot]`
    account), or None when it is not a valid login and must stay plain text."""
    if not is_login(login):
        return None
    if login.endswith("[bot]"):
        return "/apps/" + login[: -len("[bot]")]
    return "/" + login


def web_origin(url: str | None) -> str | None:
    """`https://host[:port]` of an http(s) URL with a plain host, or None for anything else
    (another scheme, userinfo, backslashes, no host)."""
    value = (url or "").strip()
    if not value or "\\" in value or any(c.isspace() or ord(c) < 32 for c in value):
        return None
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return None
    host = parts.hostname
    return f"{parts.scheme.lower()}://{host}" + (f":{port}" if port else "")


_REPO = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


def pr_page(html_base: str, repo: str, number: int) -> str | None:
    """The PR's page, built from parts that were each checked: a web origin, an owner/name
    and a number. None when a part is not what GitHub would give."""
    origin = web_origin(html_base)
    if origin is None or not _REPO.fullmatch(repo) or ".." in repo or number <= 0:
        return None
    base = html_base.strip().rstrip("/")
    path = urlsplit(base).path
    if path and not re.fullmatch(r"(?:/[A-Za-z0-9._~-]+)*", path) or ".." in path:
        return None
    return f"{origin}{path}/{repo}/pull/{number}"


def same_page(url: str | None, expected: str) -> bool:
    """Whether `url`, parsed, is exactly the page `expected` (a URL prdigest built): same
    scheme, host, port and path, no userinfo; a query or a fragment is not allowed either."""
    origin = web_origin(url)
    if origin is None or origin != web_origin(expected):
        return False
    got, want = urlsplit((url or "").strip()), urlsplit(expected)
    return got.path.rstrip("/") == want.path.rstrip("/") and not got.query and not got.fragment
