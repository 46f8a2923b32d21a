"""A hostile corpus: what a stranger's PR or a talked-into model can write, by attack class.

Each payload is put into each source a PR or a model controls (title, description, labels,
file names, logins, the four sections, the headline, the highlights, a revision's change
note, a re-check's note) and rendered on each surface (the Markdown report, the terminal,
JSON, Slack, Discord) by `tests/test_untrusted_text.py`.
"""

from __future__ import annotations

EVIL = "https://evil.example"

PINGS = [
    "@everyone",
    "@here",
    "@channel",
    "@EVERYONE now",
    "<!channel>",
    "<!here|here>",
    "<!everyone>",
    "<!subteam^S0ADMIN|@admins>",
    "<@U0BOSS>",
    "<@W0BOSS|boss>",
    "<@123456789012345678>",
    "<@!123456789012345678>",
    "<@&987654321098765432>",
    "<#123456789012345678>",
    "@\u200beveryone",  # a zero-width space to dodge a filter, taken out at the boundary
    "@\u200deveryone",
    "@\u2060here",
    "＠everyone",  # fullwidth at-sign: not a mention anywhere, shown as typed
]

LINKS = [
    f"{EVIL}/x",
    f"see{EVIL}/glued",
    f"({EVIL}/paren)",
    "//evil.example/protocol-relative",
    f"[click]({EVIL}/masked)",
    f"[click](<{EVIL}/angled>)",
    f"[a [nested] label]({EVIL}/nested)",
    f"[click]( {EVIL}/spaced )",
    "[click](//evil.example/rel)",
    "[click](evil.example)",
    f"<{EVIL}/autolink>",
    f"<{EVIL}|github.com/o/r>",
    f'<a href="{EVIL}/a">anchor</a>',
    f"<img src={EVIL}/i.png>",
    f"![image]({EVIL}/i.png)",
    "www.evil.example/w",
    "WWW.EVIL.EXAMPLE",
    "javascript:alert(1)",
    "[js](javascript:alert(1))",
    "JaVaScRiPt:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
    "HtTpS://EvIl.ExAmPlE/mixed",
    "https://github.com@evil.example/userinfo",
    "https://github.com/o/r/pull/1@evil.example",
    "https://github.com/o/r/pull/1.evil.example/x",
    "https://github.com/o/r/pull/1/../../../../evil",
    "https://github.com.evil.example/o/r/pull/1",
    "https:\\\\evil.example\\back",
    "http:/\\evil.example",
    "https\\://evil.example/escaped",
    "mailto:boss@evil.example",
    "boss@evil.example",
    "[ref]\n\n[ref]: https://evil.example/ref",
    "[^1]\n\n[^1]: https://evil.example/footnote",
    "ftp://evil.example/f",
    "steam://run/1",
]

LAYOUT = [
    "\n# Fake top heading",
    "\n## 99. [Fake PR](https://github.com/o/r/pull/99)\n",
    "\n### Summary\n",
    "\n---\n",
    "\n***\n",
    "text\n===\n",
    "text\n---\n",
    "\n| a | b |\n|---|---|\n| c | d |\n",
    "|---|---|",
    "\n> quoted\n> more",
    ">>> quote the rest",
    "\n```\nan open fence",
    "\n~~~\nan open tilde fence",
    "````",
    "<!-- an open comment",
    "<div>\nan html block",
    "<details><summary>x</summary>",
    "\n    indented code\n",
    "\n- fake list item",
    "\n1. fake ordered item",
    "-# discord subtext",
    "**What changed and why**  \nfake section",
    "` unmatched backtick",
    "``double `` span",
    "\\",
    "text\\",
    "||spoiler||",
    "\t\ttabs\tinside",
    "a | pipe | row",
]

CONTROL = [
    "nul\x00byte",
    "\x1b[31mred\x1b[0m",
    "\x1b]8;;https://evil.example/osc\x07click\x1b]8;;\x07",
    "\x1b]8;;https://evil.example/st\x1b\\click\x1b]8;;\x1b\\",
    "\x1b]0;window title\x07",
    "\x1b[2J\x1b[H cleared",
    "bell\x07",
    "back\x08space",
    "carriage\rreturn",
    "\x9b31mc1 csi",
    "\x9d8;;https://evil.example/c1\x9cc1 osc",
    "next\x85line",
    "line\u2028separator",
    "para\u2029separator",
    "vertical\x0btab\x0cfeed",
    "\x7fdelete",
]

BIDI = [
    "invoice\u202egpj.exe",
    "\u202dforced ltr\u202c",
    "\u202aembed\u202c",
    "\u2066isolate\u2069",
    "\u2067rtl isolate\u2069",
    "\u2068first strong\u2069",
    "mark\u200f",
    "\u200emark",
    "arabic\u061cmark",
    "zero\u200bwidth",
    "zero\u200cnon-joiner",
    "word\u2060joiner",
    "\ufeffbom",
    "soft\u00adhyphen",
]

KEEP = ["naïve café", "日本語のテキスト", "emoji 👩‍💻 🚀 👍🏽", "Ελληνικά", "עברית", "العربية"]

ATTACKS: dict[str, list[str]] = {
    "ping": PINGS,
    "link": LINKS,
    "layout": LAYOUT,
    "control": CONTROL,
    "bidi": BIDI,
}

SOURCES = [
    "title",
    "description",
    "labels",
    "file names",
    "logins",
    "model sections",
    "headlines",
    "highlights",
    "change notes",
    "revision notes",
]

SURFACES = ["markdown", "terminal", "json", "slack", "discord"]


def corpus() -> list[tuple[str, str]]:
    """(attack class, payload) for every payload, each also wrapped in ordinary words."""
    items = []
    for attack, payloads in ATTACKS.items():
        for payload in payloads:
            items.append((attack, payload))
            items.append((attack, f"Fix the scheduler {payload} for long prompts"))
    return items
