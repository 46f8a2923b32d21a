"""Facts about a PR that code reads off its diff, for the model to read before any diff text.

A small model given a slice of a diff guesses at what changed, and guesses wrong: it calls a
removed keyword argument "now uses", a replaced error "faster". So the exact facts are computed
here and put first: definitions added, removed and changed, signatures, settings (config
fields, CLI flags, environment variables, YAML keys), renamed and moved files, lines removed
with nothing in their place, and what kind of files changed.

Each hunk is read twice, as its old side (context and removed lines) and its new side (context
and added lines); tree-sitter parses both as fragments, and the definitions found on each side
are compared. A definition whose first line lies above the hunk is known only from the hunk
header (`@@ -a,b +c,d @@ class Scheduler:`), which git fills with the nearest line above that
starts at column 0: the enclosing top-level function or class, never a method.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from difflib import SequenceMatcher
from pathlib import PurePosixPath
from typing import Any

from tree_sitter import Language, Node, Parser, Query, QueryCursor

from bot.core.models import ChangedFile, PullRequest
from summarizer.brackets import unclosed
from summarizer.diff_budget import exclusion_reason, priority
from summarizer.hunks import PATCH_CHARS, Hunk, Side, parse_hunks
from summarizer.line_edits import LineEdit, change_blocks, file_edits, grouped, rows_by_block
from summarizer.opened_signatures import OpenedSignature, opened_signature
from summarizer.prose import comment_edits, only_prose, prose_lines

# The work per PR is bounded so a PR of thousands of files stays well under a second: each
# patch is read up to PATCH_CHARS (summarizer/hunks.py), and once TOTAL_CHARS are read the
# remaining files are only counted (and the facts say how many were not read).
TOTAL_CHARS = 2_000_000

# -- the facts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Definition:
    """A function, method, class, struct or kernel the diff adds, removes or changes."""

    file: str
    name: str  # qualified: `Scheduler.schedule` (Python), `Foo::bar` (C++)
    kind: str  # function, method, class, struct, kernel, declaration
    change: str  # added, removed, changed; reworded: only its comments or docstrings changed

    @property
    def nested(self) -> bool:
        """A function defined in a function (`table.sort_key`): part of its parent's body,
        called by nothing outside it."""
        return self.kind == "function" and "." in self.name


def short_name(name: str) -> str:
    """A qualified name's own part: `forward` of `Scheduler.forward` or `Foo::forward`."""
    return re.split(r"\.|::", name)[-1]


@dataclass(frozen=True)
class SignatureChange:
    """A definition on both sides of the diff whose parameters or return type differ."""

    file: str
    name: str
    kind: str
    old: str  # "(self, x) -> Tensor"; a C++ template's parameters lead: "<typename T>(T* a)"
    new: str
    removed_params: tuple[str, ...] = ()
    added_params: tuple[str, ...] = ()

    # A parameter whose annotation or default changed is on both lists, by its whole text;
    # its callers pass it as before, so what callers must know is told by its name.
    @property
    def dropped_params(self) -> tuple[str, ...]:
        """Parameters whose name is gone: a caller that passes them breaks."""
        kept = {param_name(p) for p in self.added_params}
        return tuple(p for p in self.removed_params if param_name(p) not in kept)

    @property
    def new_params(self) -> tuple[str, ...]:
        """Parameters whose name is new."""
        had = {param_name(p) for p in self.removed_params}
        return tuple(p for p in self.added_params if param_name(p) not in had)

    @property
    def retyped_only(self) -> bool:
        """Only annotations differ: each parameter keeps its name and its default, and the
        return type is the only other thing that may change (`KVCache` to `torch.Tensor`).
        A caller passes what it passed before."""
        def shape(params: tuple[str, ...]) -> set[tuple[str, str]]:
            return {(param_name(p), p.split("=", 1)[1].strip() if "=" in p else "") for p in params}

        return bool(self.removed_params) and shape(self.removed_params) == shape(self.added_params)

    @property
    def lost_defaults(self) -> tuple[str, ...]:
        """Names of kept parameters that had a default and now have none: now required."""
        had = {param_name(p) for p in self.removed_params if "=" in p}
        return tuple(
            param_name(p) for p in self.added_params if "=" not in p and param_name(p) in had
        )


def param_name(param: str) -> str:
    """`dtype` of `dtype: torch.dtype = None`."""
    return param.split("=")[0].split(":")[0].strip()


@dataclass(frozen=True)
class Move:
    """A definition removed from one place and added in another: moved, not new."""

    kind: str
    old_name: str
    old_file: str
    new_name: str
    new_file: str

    @property
    def renamed(self) -> bool:
        """Renamed where it stands (its `def` line edited in place), not moved elsewhere."""
        return self.old_file == self.new_file and self.old_name != self.new_name


@dataclass(frozen=True)
class MovedLines:
    """Lines removed in one place and added unchanged in another: moved, neither deleted nor
    new (a CLI flag moved from one parser to another reads as a removal and an addition)."""

    lines: int
    old_file: str
    new_file: str
    text: str  # the first line moved
    old_enclosing: str | None = None
    new_enclosing: str | None = None
    # Moved within its own hunk (a check run before the call it guarded, not after): True
    # when the lines now come earlier, False when later, None for a move to another place.
    earlier: bool | None = None
    passed: str = ""  # of a reorder, the first line of the code the moved lines now pass
    # Of a reorder of two checks: the message the moved lines raise, and the one the code
    # they now pass raises. An input both reject now gets the other of the two.
    raises: str = ""
    passed_raises: str = ""

    @property
    def reordered(self) -> bool:
        """Lines run in another order in the same code: a change of behaviour, not a move
        of code from one place to another."""
        return self.earlier is not None


@dataclass(frozen=True)
class Setting:
    """A config field, CLI flag, environment variable or YAML key added, removed or changed."""

    kind: str  # config field, CLI flag, environment variable (read, set), YAML key, CI step
    name: str
    change: str  # added, removed, changed, moved (from the file in `old`)
    file: str
    old: str = ""  # the values of a changed one; the file a moved one left
    new: str = ""


@dataclass(frozen=True)
class FileChange:
    change: str  # added, removed, renamed (same directory), moved (another directory)
    file: str
    previous: str | None = None


@dataclass(frozen=True)
class Deletion:
    """A hunk that only removes lines: nothing was added in their place."""

    file: str
    lines: int
    enclosing: str | None  # the definition the lines were in, when known
    text: str | None = None  # the first line removed
    entries: tuple[str, ...] = ()  # each line removed, when each is one entry of a list or call


@dataclass(frozen=True)
class KindCount:
    kind: str  # source, tests, docs, CI, build, config, or why a file is not read (lock file...)
    files: int


@dataclass(frozen=True)
class ChangeFacts:
    definitions: tuple[Definition, ...] = ()
    signatures: tuple[SignatureChange, ...] = ()
    moves: tuple[Move, ...] = ()
    moved_lines: tuple[MovedLines, ...] = ()
    settings: tuple[Setting, ...] = ()
    files: tuple[FileChange, ...] = ()
    deletions: tuple[Deletion, ...] = ()
    edits: tuple[LineEdit, ...] = ()
    kinds: tuple[KindCount, ...] = ()
    files_total: int = 0  # GitHub's count of changed files (the listing may stop short of it)
    files_unread: int = 0  # listed files whose diff was not read, to bound the work

    def of(self, change: str) -> list[Definition]:
        return [d for d in self.definitions if d.change == change]


# -- file kinds ------------------------------------------------------------------------------

# diff_budget's tiers put CI and build files together as "config" (and read `CMakeLists.txt` and
# `requirements/*.txt` as docs, by their suffix): these two split them, checked first.
_CI = re.compile(
    r"(^|/)\.(github|buildkite|circleci|gitlab|azure-pipelines)/|(^|/)\.gitlab-ci\.yml$"
)
_BUILD = re.compile(
    r"(^|/)(Dockerfile[^/]*|[^/]*\.dockerfile|Makefile|CMakeLists\.txt|[^/]*\.cmake|setup\.(py|cfg)"
    r"|pyproject\.toml|MANIFEST\.in|requirements[^/]*\.(txt|in)|tox\.ini|noxfile\.py)$"
    r"|(^|/)(requirements|docker|cmake)/",
    re.IGNORECASE,
)
_UNREAD = ("lock file", "vendored", "generated", "binary")
_CODE_KINDS = ("source", "config", "build")
KIND_ORDER = ("source", "build", "CI", "config", "tests", "docs", *_UNREAD)


def file_kind(f: ChangedFile) -> str:
    """What a changed file is: source, tests, docs, CI, build or config, or the reason its diff
    is not read (lock file, vendored, generated, binary)."""
    reason = exclusion_reason(f)
    if reason in _UNREAD:
        return reason
    if _CI.search(f.filename):
        return "CI"
    if _BUILD.search(f.filename):
        return "build"
    return ("source", "config", "tests", "docs")[priority(f.filename)]


def _kind_counts(files: Iterable[ChangedFile]) -> tuple[KindCount, ...]:
    counts: dict[str, int] = {}
    for f in files:
        kind = file_kind(f)
        counts[kind] = counts.get(kind, 0) + 1
    return tuple(KindCount(k, counts[k]) for k in KIND_ORDER if k in counts)


def common_dir(paths: list[str]) -> str:
    """The deepest folder all of `paths` are in ("" for none)."""
    parents = [PurePosixPath(p).parent.parts for p in paths]
    common: list[str] = []
    for parts in zip(*parents, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return "/".join(common)


def _file_changes(files: Iterable[ChangedFile]) -> tuple[FileChange, ...]:
    out: list[FileChange] = []
    for f in files:
        if f.status == "renamed" and f.previous_filename:
            same_dir = PurePosixPath(f.filename).parent == PurePosixPath(f.previous_filename).parent
            out.append(
                FileChange("renamed" if same_dir else "moved", f.filename, f.previous_filename)
            )
        elif f.status in ("added", "removed"):
            out.append(FileChange(f.status, f.filename))
    return tuple(out)


# -- parsers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Grammar:
    name: str  # python, cpp, cuda, yaml
    language: Language
    query: Query


_PY_QUERY = """
(function_definition) @def
(class_definition) @def
(class_definition body: (block (expression_statement (assignment type: (_))) @field))
(module (expression_statement (assignment type: (_))) @loose)
"""
_CPP_QUERY = """
(function_definition) @def
(declaration declarator: (function_declarator)) @def
(field_declaration declarator: (function_declarator)) @def
(struct_specifier name: (_) body: (_)) @def
(class_specifier name: (_) body: (_)) @def
"""
_YAML_QUERY = """
(block_mapping_pair key: (_)) @pair
(block_sequence_item (flow_node) @item)
"""

_SUFFIXES = {
    ".py": "python", ".pyi": "python", ".cu": "cuda", ".cuh": "cuda", ".cpp": "cpp",
    ".cc": "cpp", ".cxx": "cpp", ".c": "cpp", ".h": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".inl": "cpp", ".yaml": "yaml", ".yml": "yaml",
}  # fmt: skip
_grammars: dict[str, _Grammar] = {}
_local = threading.local()  # a Parser is not shared between threads


def _grammar(name: str) -> _Grammar:
    if name not in _grammars:
        # Imported here so a process that never reads a diff never loads a grammar.
        if name == "python":
            import tree_sitter_python as module

            text = _PY_QUERY
        elif name == "yaml":
            import tree_sitter_yaml as module  # type: ignore[no-redef]

            text = _YAML_QUERY
        elif name == "cuda":
            import tree_sitter_cuda as module  # type: ignore[no-redef]

            text = _CPP_QUERY
        else:
            import tree_sitter_cpp as module  # type: ignore[no-redef]

            text = _CPP_QUERY
        language = Language(module.language())
        _grammars[name] = _Grammar(name, language, Query(language, text))
    return _grammars[name]


_TRIPLE = re.compile(r'"""|\'\'\'')
# What may stand before a triple quote that opens a string: `x = `, `f(`, `r`, `return `.
_OPENS = re.compile(r"(?:^|[=(\[,:{]|\breturn|\b[rRbBuUfF]{1,2})\s*$")
_CODE_START = re.compile(
    r"\s*(?:(?:return|def|class|if|elif|else|for|while|with|try|raise|pass)\b|@\w|self\.\w+ =)"
)


def _docstring_tail_blanked(side: Side) -> bytes:
    """The Python fragment with the end of a docstring it starts inside made blank: a hunk
    that starts at a docstring's last line (`will use the default version.` and its closing
    triple quote) would otherwise parse as one string up to the next quote, and every
    definition and field after it is lost (vLLM #35060's removed config field, #33443's new
    methods). Rows keep their numbers."""
    lines = side.lines
    for row, line in enumerate(lines):
        quotes = _TRIPLE.findall(line)
        if not quotes:
            continue
        at = line.find(quotes[0])
        before, after = line[:at], line[at + 3 :]
        if len(quotes) % 2 == 0 or (before.strip() and _OPENS.search(before)):
            break  # a whole string on one line, or one that opens here
        if not before.strip():
            nxt = next((rest for rest in lines[row + 1 :] if rest.strip()), "")
            if after.strip() or not _CODE_START.match(nxt):
                break  # `"""Summary …` opens a docstring, and so does a bare quote before prose
        blank = [""] * (row + 1) + lines[row + 1 :]  # prose, then the quote that closes it
        return "\n".join(blank).encode("utf-8", "replace") + b"\n"
    return side.source


def _python_source(side: Side) -> bytes:
    """The Python fragment made whole enough to parse: its docstring tail blanked, and the
    brackets it leaves open at its end closed. A hunk that ends inside `input_text = (` would
    otherwise make the whole fragment one error node, and the function it changes is lost
    (vLLM #34990's skipped test). Rows keep their numbers."""
    source = _docstring_tail_blanked(side)
    text = source.decode("utf-8", "replace")
    closers = unclosed(text)
    if not closers:
        return source
    return source + closers.encode() + _open_def_body(text).encode() + b"\n"


_DEF_OPENED = re.compile(r"^([ \t]*)(?:async\s+)?def\s+\w+\s*\(", re.MULTILINE)


def _open_def_body(text: str) -> str:
    """What a `def` whose parameter list the fragment ends inside needs after its `)` to be
    a function: vLLM #35383's hunk adds two parameters to `propose` and ends before its `)`,
    and its signature change was lost."""
    opened = list(_DEF_OPENED.finditer(text))
    if not opened or not unclosed(text[opened[-1].end() - 1 :]).endswith(")"):
        return ""
    return f":\n{opened[-1].group(1)}    pass"


_CONDITIONAL = re.compile(r"\s*#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")


def _c_source(side: Side) -> bytes:
    """The C, C++ or CUDA fragment with its `#if`/`#elif`/`#else`/`#endif` lines blank: a
    fragment holds one end of a conditional and not the other, and an `#else` with no `#if`
    makes what follows an error node. vLLM #34052 turns `#elif defined(__aarch64__)` into
    `#else` above a specialization it keeps, which read as that specialization removed.
    Its brackets left open at its end are closed, as in Python. Rows keep their numbers;
    each branch's definitions read as definitions."""
    text = "\n".join("" if _CONDITIONAL.match(line) else line for line in side.lines) + "\n"
    return (text + unclosed(text, comment="//") + "\n").encode("utf-8", "replace")


def _parse(grammar: _Grammar, source: bytes) -> dict[str, list[Node]]:
    parsers = _local.__dict__.setdefault("parsers", {})
    if grammar.name not in parsers:
        parsers[grammar.name] = Parser(grammar.language)
    tree = parsers[grammar.name].parse(source)
    # In the file's order: the cursor's own order varies from run to run, and with it the
    # order of the facts a summary states.
    captures = QueryCursor(grammar.query).captures(tree.root_node)
    return {name: sorted(nodes, key=lambda n: n.start_byte) for name, nodes in captures.items()}


def _text(node: Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", "replace")


def _squeeze(text: str) -> str:
    """Code on one line, as a signature is compared and shown: `(self, x,\n  y,)` is `(self,
    x, y)`."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"([(\[<]) ", r"\1", text)
    return re.sub(r",? ([)\]>])", r"\1", re.sub(r",([)\]>])", r"\1", text))


# -- definitions on one side of a hunk -------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    """A definition whose first line is in the fragment."""

    name: str
    kind: str
    signature: str | None
    params: tuple[str, ...]
    head: int  # the row of its name
    start: int  # its first row, decorators and template line included
    end: int


@dataclass(frozen=True)
class _Scope:
    """What the hunk header says encloses the fragment's first lines, and up to which row."""

    name: str | None
    kind: str
    until: int


_PY_HEADER = re.compile(r"^(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)")
_C_TYPE_HEADER = re.compile(r"^(?:template\s*<.*>\s*)?(struct|class)\s+([A-Za-z_]\w*)(?!.*;)")
_C_FUNC_HEADER = re.compile(r"([A-Za-z_~][\w:~]*)\s*\(")
_ANY_HEADER = re.compile(r"\b(def|function|func|fn|class|struct|sub)\s+([A-Za-z_]\w*)")
_C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "catch"}


def _scope(header: str, grammar: str, lines: list[str]) -> _Scope:
    """The definition the hunk header names, enclosing the fragment until a line at column 0
    starts something else (or, in C and C++, a `}` at column 0 closes it)."""
    name, kind = None, "function"
    if grammar == "python":
        m = _PY_HEADER.match(header)
        if m:
            name, kind = m.group(2), "class" if m.group(1) == "class" else "function"
    elif grammar in ("cpp", "cuda"):
        m = _C_TYPE_HEADER.match(header)
        if m:
            name, kind = m.group(2), m.group(1)
        else:
            call = _C_FUNC_HEADER.search(header)
            if call and call.group(1) not in _C_KEYWORDS:
                name = call.group(1)
                kind = MACRO_BLOCK if _MACRO.fullmatch(name) else kind
    else:
        m = _ANY_HEADER.search(header)
        if m:
            name, kind = m.group(2), "class" if m.group(1) in ("class", "struct") else "function"
    return _Scope(name, kind, _scope_end(lines, grammar))


def _scope_end(lines: list[str], grammar: str) -> int:
    end = _first_outside(lines, grammar)
    if grammar == "python" and end < len(lines):
        # A comment at column 0 just above the next top-level statement heads that statement,
        # not the definition above it (vLLM #35283: a block comment above new tests).
        while end > 0 and (not lines[end - 1].strip() or lines[end - 1].startswith("#")):
            end -= 1
    return end


def _first_outside(lines: list[str], grammar: str) -> int:
    for row, line in enumerate(lines):
        if not line.strip() or line[0] in " \t#/":
            continue
        if grammar == "python":
            if line[0] not in ")]":
                return row
        elif line[0] == "}":
            return row + 1
        elif line[0] != "{":
            return row
    return len(lines)


def _qualify(node: Node, name: str, scope: _Scope, row: int, python: bool) -> tuple[str, str]:
    """The definition's qualified name and the kind of what encloses it ("" at the top)."""
    outer: list[str] = []
    parent_kind = ""
    sep = "." if python else "::"
    containers = ("class_definition", "function_definition") if python else _C_TYPES
    p = node.parent
    while p is not None:
        if p.type in containers:
            outer.append(_text(p.child_by_field_name("name")))
            parent_kind = parent_kind or ("function" if "function" in p.type else "class")
        p = p.parent
    if not outer and scope.name and row < scope.until and node.start_point.column > 0:
        outer, parent_kind = [scope.name], scope.kind
    if not python and "::" in name:
        return name, parent_kind
    return sep.join([*reversed(outer), name]), parent_kind


_C_TYPES = ("struct_specifier", "class_specifier")
_KERNEL_DECORATOR = re.compile(r"@\s*(triton\.)?(jit|autotune|heuristics)\b")


def _python_found(node: Node, scope: _Scope) -> _Found:
    name = _text(node.child_by_field_name("name"))
    row = node.start_point.row
    qualified, parent = _qualify(node, name, scope, row, python=True)
    start = node.parent.start_point.row if node.parent.type == "decorated_definition" else row
    if node.type == "class_definition":
        bases = node.child_by_field_name("superclasses")
        return _Found(
            qualified, "class", _squeeze(_text(bases)), (), row, start, node.end_point.row
        )
    kind = "method" if parent in ("class", "struct") else "function"
    if node.parent.type == "decorated_definition" and _KERNEL_DECORATOR.search(_text(node.parent)):
        kind = "kernel"
    params = node.child_by_field_name("parameters")
    returns = node.child_by_field_name("return_type")
    signature = _squeeze(_text(params)) + (f" -> {_squeeze(_text(returns))}" if returns else "")
    names = tuple(
        _squeeze(_text(p)) for p in (params.named_children if params else []) if p.type != "comment"
    )
    return _Found(qualified, kind, signature, names, row, start, node.end_point.row)


def _c_declarator(node: Node) -> Node | None:
    d = node.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    return d


MACRO_BLOCK = "macro block"
_MACRO = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _c_found(node: Node, scope: _Scope) -> _Found | None:
    end = node.end_point.row
    start = (
        node.parent.start_point.row
        if node.parent.type == "template_declaration"
        else node.start_point.row
    )
    if node.type in _C_TYPES:
        name, _ = _qualify(
            node, _text(node.child_by_field_name("name")), scope, node.start_point.row, False
        )
        return _Found(name, node.type.split("_")[0], None, (), node.start_point.row, start, end)
    declarator = _c_declarator(node)
    if declarator is None:
        return None
    row = declarator.start_point.row
    name, parent = _qualify(
        node, _text(declarator.child_by_field_name("declarator")), scope, row, False
    )
    params = declarator.child_by_field_name("parameters")
    template = ""
    if node.parent.type == "template_declaration":
        template = _squeeze(_text(node.parent.child_by_field_name("parameters")))
    prefix = _text(node)[: declarator.start_byte - node.start_byte]
    if "__global__" in prefix:
        kind = "kernel"
    elif node.type != "function_definition":
        kind = "declaration"
    elif node.child_by_field_name("type") is None and _MACRO.fullmatch(name):
        # `TORCH_LIBRARY_IMPL_EXPAND(NAME, CUDA, m) { ... }`: a macro given a body, where ops
        # are registered; nothing calls it (vLLM #35123 read as "adds a function").
        kind = MACRO_BLOCK
    else:
        kind = "method" if parent or "::" in name else "function"
    names = tuple(
        _squeeze(_text(p)) for p in (params.named_children if params else []) if p.type != "comment"
    )
    return _Found(name, kind, template + _squeeze(_text(params)), names, row, start, end)


def _found(grammar: _Grammar, captures: dict[str, list[Node]], scope: _Scope) -> list[_Found]:
    if grammar.name == "python":
        found = [_python_found(n, scope) for n in captures.get("def", [])]
    else:
        found = [f for f in (_c_found(n, scope) for n in captures.get("def", [])) if f is not None]
    return sorted(found, key=lambda f: f.head)


def _innermost(found: list[_Found], row: int) -> _Found | None:
    inside = [f for f in found if f.start <= row <= f.end]
    return min(inside, key=lambda f: f.end - f.start) if inside else None


# -- one file --------------------------------------------------------------------------------


@dataclass
class _Seen:
    """A definition as one side of the file's diff shows it, over all its hunks."""

    kind: str
    signature: str | None
    params: tuple[str, ...]
    whole: bool = False  # its first line changed: it was added (new side) or removed (old side)
    touched: bool = False  # a changed line is inside it
    code: bool = False  # a changed line of code (not a comment or docstring) is inside it
    body: str = ""  # its lines, white space squeezed, when all of them are changed lines


@dataclass
class _FileRead:
    """What the hunks of one file show, side by side."""

    path: str
    old: dict[str, _Seen] = field(default_factory=dict)
    new: dict[str, _Seen] = field(default_factory=dict)
    enclosing: dict[str, str] = field(default_factory=dict)  # named by a hunk header only
    reworded: dict[str, str] = field(default_factory=dict)  # the same, comments changed only
    old_fields: dict[str, tuple[str, bool]] = field(default_factory=dict)  # text, changed
    new_fields: dict[str, tuple[str, bool]] = field(default_factory=dict)
    deletions: list[Deletion] = field(default_factory=list)
    opened: list[OpenedSignature] = field(default_factory=list)  # see opened_signatures.py


def _read_side(
    grammar: _Grammar, side: Side, header: str, read: _FileRead, new: bool, edited: set[int]
) -> list[_Found]:
    """The definitions the side shows, and which of them its changed lines touch: in code,
    or in comments and docstrings only (`edited`: rows changed only in a trailing comment)."""
    scope = _scope(header, grammar.name, side.lines)
    source = _python_source(side) if grammar.name == "python" else _c_source(side)
    captures = _parse(grammar, source)
    found = _found(grammar, captures, scope)
    seen = read.new if new else read.old
    for f in found:
        entry = seen.setdefault(f.name, _Seen(f.kind, f.signature, f.params))
        entry.whole |= f.head in side.changed
        if all(r in side.changed for r in range(f.start, f.end + 1)):
            entry.body = "\n".join(_squeeze(line) for line in side.lines[f.start : f.end + 1])
    prose = prose_lines(side.lines, grammar.name == "python") if side.changed else []
    prose = [p or row in edited for row, p in enumerate(prose)]
    for row in side.changed:
        if not side.lines[row].strip():
            continue
        owner = _innermost(found, row)
        if owner is not None:
            seen[owner.name].touched = True
            seen[owner.name].code |= not prose[row]
        elif scope.name and row < scope.until:
            named = read.reworded if prose[row] else read.enclosing
            named.setdefault(scope.name, scope.kind)
    if grammar.name == "python":
        _read_fields(captures, side, scope, read.new_fields if new else read.old_fields)
    return found


_CONFIG_CLASS = re.compile(r"(Config|Args|Arguments|Options|Settings|Params|Parameters)$")


def _read_fields(
    captures: dict[str, list[Node]], side: Side, scope: _Scope, out: dict[str, tuple[str, bool]]
) -> None:
    """The annotated fields of config classes (`max_num_seqs: int = 128` in `SchedulerConfig`):
    in a class the fragment shows, or indented under the class the hunk header names."""
    for node in captures.get("field", []) + captures.get("loose", []):
        row = node.start_point.row
        if node.parent.type == "module":
            if (
                scope.kind != "class"
                or not scope.name
                or row >= scope.until
                or node.start_point.column == 0
            ):
                continue
            owner = scope.name
        else:
            cls = node.parent.parent
            owner, _ = _qualify(
                cls, _text(cls.child_by_field_name("name")), scope, cls.start_point.row, True
            )
        if not _CONFIG_CLASS.search(owner):
            continue
        assignment = node.named_children[0]
        name = f"{owner}.{_text(assignment.child_by_field_name('left'))}"
        text = _squeeze(_text(node))
        previous = out.get(name)
        out[name] = (text, row in side.changed or (previous is not None and previous[1]))


def _read_deletion(
    found: list[_Found], hunk: Hunk, header: str, grammar: str, read: _FileRead
) -> None:
    """A hunk that removes lines and adds none, unless all it removes are whole definitions
    (reported as removed definitions)."""
    if hunk.new.changed:
        return
    rows = sorted(r for r in hunk.old.changed if hunk.old.lines[r].strip())
    if not rows:
        return
    gone = [f for f in found if f.head in hunk.old.changed]
    if all(any(f.start <= r <= f.end for f in gone) for r in rows):
        return
    if all(is_import(hunk.old.lines, r, hunk.header) for r in rows):
        return  # imports dropped: nothing a reader acts on
    owner = _innermost(found, rows[0])
    scope = _scope(header, grammar, hunk.old.lines)
    enclosing = owner.name if owner else (scope.name if rows[0] < scope.until else None)
    text = hunk.old.lines[rows[0]].strip()[:120]
    entries = tuple(m.group(1) for r in rows if (m := _ENTRY.fullmatch(hunk.old.lines[r])))
    entries = entries if len(entries) == len(rows) <= _ENTRIES_SHOWN else ()
    read.deletions.append(Deletion(read.path, len(rows), enclosing, text, entries))


# One entry of a list, a set or a call's arguments on a line of its own: `"VLLM_CPU_KVCACHE",`,
# `CpuArchEnum.POWERPC,`. Several read as lines of code ("removes the lines that bind CPU
# threads", vLLM #35119) unless the facts show them as the entries they are.
_ENTRY = re.compile(r"\s*((?:[A-Za-z_][\w.]*|\"[^\"]*\"|'[^']*'|-?\d[\w.]*)),\s*")
_ENTRIES_SHOWN = 6


_IMPORT = re.compile(r"\s*(import\s|from\s+\S+\s+import\b|#\s*include\b)")
_IMPORTED_NAME = re.compile(r"\s+[\w.]+(\s+as\s+\w+)?,?\s*$|\)\s*$")


def is_import(lines: list[str], row: int, header: str = "") -> bool:
    """An import line, or a name inside a parenthesized `from x import (` above it: in the
    fragment, or in the hunk's `header` where the fragment starts inside the parentheses
    (vLLM #35400's `prepare_kernel_block_sizes,` was said as a line of code added)."""
    if _IMPORT.match(lines[row]):
        return True
    if not _IMPORTED_NAME.match(lines[row]):
        return False
    above = (line for line in reversed(lines[:row]) if not _IMPORTED_NAME.match(line))
    return bool(_IMPORT_OPENED.match(next(above, header)))


_IMPORT_OPENED = re.compile(r"from\s+\S+\s+import\s*\(\s*(?:#.*)?$")  # `# noqa`


_YAML_ITEM = re.compile(r"^-\s+")  # a list item's dash: the item is what follows it
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?([\w.-]+):(?:\s|$)")


def _read_file(f: ChangedFile, grammar: _Grammar | None) -> _FileRead:
    read = _FileRead(f.filename)
    for hunk in parse_hunks(f.patch or ""):
        found: list[_Found] = []
        if grammar is not None and grammar.name != "yaml":
            old, new = comment_edits(hunk, grammar.name == "python")
            found = _read_side(grammar, hunk.old, hunk.header, read, False, old)
            _read_side(grammar, hunk.new, hunk.header, read, True, new)
            if grammar.name == "python" and (opened := opened_signature(hunk)):
                read.opened.append(opened)
        _read_deletion(found, hunk, hunk.header, grammar.name if grammar else "", read)
    return read


def _definitions(read: _FileRead) -> tuple[list[Definition], list[SignatureChange]]:
    """Compare the two sides: a name on both is changed (its signature, when that differs); on
    one side only, added or removed when its first line is a changed line."""
    defs: list[Definition] = []
    sigs: list[SignatureChange] = []
    path = read.path
    for name in dict.fromkeys([*read.old, *read.new]):
        old, new = read.old.get(name), read.new.get(name)
        if old and new:
            if old.body and old.body == new.body:
                continue  # removed here and added there unchanged: the moved lines say where
            if old.signature != new.signature and old.kind == new.kind:
                removed = tuple(p for p in old.params if p not in new.params)
                added = tuple(p for p in new.params if p not in old.params)
                sigs.append(
                    SignatureChange(
                        path,
                        name,
                        new.kind,
                        old.signature or "",
                        new.signature or "",
                        removed,
                        added,
                    )
                )
                defs.append(Definition(path, name, new.kind, "changed"))
            elif old.code or new.code or old.whole or new.whole:
                defs.append(Definition(path, name, new.kind, "changed"))
            elif old.touched or new.touched:
                defs.append(Definition(path, name, new.kind, "reworded"))
        elif old and (old.whole or old.touched):
            defs.append(Definition(path, name, old.kind, _one_side(old, "removed")))
        elif new and (new.whole or new.touched):
            defs.append(Definition(path, name, new.kind, _one_side(new, "added")))
    sigs += _opened_changes(read, {s.name for s in sigs})
    named = {d.name for d in defs}
    for change, enclosing in (("changed", read.enclosing), ("reworded", read.reworded)):
        for name, kind in enclosing.items():
            if name not in named:
                defs.append(Definition(path, name, kind, change))
                named.add(name)
    # Code changed below the hunk header that names a definition another hunk only reworded
    # (vLLM #33839: a docstring added in one hunk, the logic rewritten in the next).
    return [
        replace(d, change="changed") if d.change == "reworded" and d.name in read.enclosing else d
        for d in defs
    ], sigs


def _opened_changes(read: _FileRead, known: set[str]) -> list[SignatureChange]:
    """The signatures changed below a `def` the hunk header names, one per function."""
    out: dict[str, SignatureChange] = {}
    for o in read.opened:
        if o.name in known or o.name in out:
            continue
        removed = tuple(p for p in o.old_params if p not in o.new_params)
        added = tuple(p for p in o.new_params if p not in o.old_params)
        out[o.name] = SignatureChange(
            read.path, o.name, "function", o.shown(new=False), o.shown(new=True), removed, added
        )
    return list(out.values())


def _one_side(seen: _Seen, whole: str) -> str:
    """A definition the diff shows on one side only: added or removed when its first line
    changed, else changed in its code, or in its comments and docstrings alone."""
    return whole if seen.whole else "changed" if seen.code else "reworded"


def _config_fields(read: _FileRead) -> list[Setting]:
    out: list[Setting] = []
    for name in dict.fromkeys([*read.old_fields, *read.new_fields]):
        old, new = read.old_fields.get(name), read.new_fields.get(name)
        if old and new:
            if old[0] != new[0]:
                out.append(Setting("config field", name, "changed", read.path, old[0], new[0]))
        elif old and old[1]:
            out.append(Setting("config field", name, "removed", read.path, old[0]))
        elif new and new[1]:
            out.append(Setting("config field", name, "added", read.path, new=new[0]))
    return out


# -- YAML ------------------------------------------------------------------------------------


def _segments(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """The fragment cut where it dedents below where it started, each piece dedented: YAML
    depends on indentation, and a fragment that starts deep in a list and leaves it does not
    parse as one document."""
    start, base, item = 0, None, False
    for row, line in enumerate(lines):
        stripped = line.lstrip(" ")
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(stripped)
        is_item = stripped.startswith("- ") or stripped == "-"
        if base is None:
            base, item = indent, is_item
        elif indent < base or (indent == base and is_item != item):
            # A list that gives way to a key at its own level (`- a` then `commands:`) is
            # valid in the file, under a key above the fragment, but not as a fragment.
            yield start, [text[base:] for text in lines[start:row]]
            start, base, item = row, indent, is_item
    if base is not None:
        yield start, [text[base:] for text in lines[start:]]


_ITEM_KEYS = ("label", "name", "id")


def _yaml_item_label(item: Node) -> str | None:
    """A list item's `label:` or `name:` (how CI steps are told apart), if it has one."""
    for child in item.named_children:
        mapping = (
            child.named_children[0] if child.type == "block_node" and child.named_children else None
        )
        if mapping is None or mapping.type != "block_mapping":
            continue
        for pair in mapping.named_children:
            if _text(pair.child_by_field_name("key")) in _ITEM_KEYS:
                return _squeeze(_text(pair.child_by_field_name("value")))
    return None


def _yaml_path(pair: Node) -> tuple[str, bool]:
    """The pair's path as far as the hunk shows it (`steps > LoRA Test > commands`), and
    whether it names a list item."""
    key = _text(pair.child_by_field_name("key"))
    parts = [key]
    names_item = key in _ITEM_KEYS and pair.parent.parent.parent.type == "block_sequence_item"
    p = pair.parent
    while p is not None:
        if p.type == "block_mapping_pair":
            parts.append(_text(p.child_by_field_name("key")))
        elif p.type == "block_sequence_item":
            parts.append(_yaml_item_label(p) or "[]")
        p = p.parent
    return " > ".join(reversed(parts)), names_item


def _read_yaml_side(side: Side, grammar: _Grammar) -> dict[str, tuple[str, bool, bool]]:
    """Each key's path: its scalar value ("" for a block), whether its line changed, and
    whether it is a list item's label."""
    out: dict[str, tuple[str, bool, bool]] = {}
    for offset, lines in _segments(side.lines):
        source = "\n".join(lines).encode("utf-8", "replace")
        captures = _parse(grammar, source)
        for pair in captures.get("pair", []):
            path, names_item = _yaml_path(pair)
            value = pair.child_by_field_name("value")
            scalar = value is not None and value.type == "flow_node"
            changed = pair.start_point.row + offset in side.changed
            out[path] = (_squeeze(_text(value))[:80] if scalar else "", changed, names_item)
        for item in captures.get("item", []):
            # A scalar list item (a CI step's command) is known by its text under its key.
            owner = item.parent
            while owner is not None and owner.type != "block_mapping_pair":
                owner = owner.parent
            path = (
                _yaml_path(owner)[0]
                if owner is not None
                else _key_above(side.lines, item.start_point.row + offset)
            )
            text = _squeeze(_text(item))[:120]
            changed = item.start_point.row + offset in side.changed
            out[f"{path}\0{text}"] = (text, changed, False)
    return out


def _key_above(lines: list[str], row: int) -> str:
    keys = (_YAML_KEY.match(line) for line in reversed(lines[:row]))
    return next((k.group(1) for k in keys if k), "")


def _yaml_settings(f: ChangedFile, grammar: _Grammar, ci: bool) -> list[Setting]:
    old: dict[str, tuple[str, bool, bool]] = {}
    new: dict[str, tuple[str, bool, bool]] = {}
    for hunk in parse_hunks(f.patch or ""):
        old.update(_read_yaml_side(hunk.old, grammar))
        new.update(_read_yaml_side(hunk.new, grammar))
    out: list[Setting] = []
    reported: list[str] = []  # keys added or removed whole: what is under them is not repeated
    for path in dict.fromkeys([*old, *new]):
        if any(path.startswith(r + " > ") for r in reported):
            continue
        o, n = old.get(path), new.get(path)
        if o and n:
            if o[0] != n[0] and (o[1] or n[1]):
                out.append(Setting("YAML key", path, "changed", f.filename, o[0], n[0]))
            continue
        entry, change = (o, "removed") if o else (n, "added")
        if entry is None or not entry[1]:
            continue
        if "\0" in path:
            owner, text = path.split("\0")
            out.append(Setting("YAML list item", owner, change, f.filename, new=text))
        elif entry[2]:
            item = path.rsplit(" > ", 1)[0]
            out.append(Setting("CI step" if ci else "YAML item", item, change, f.filename))
            reported.append(item)
        else:
            out.append(Setting("YAML key", path, change, f.filename))
            reported.append(path)
    return out


# -- flags and environment variables ---------------------------------------------------------

_ENV_READ = re.compile(
    r"""os\.(?:environ\.get|getenv)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
    r"""|os\.environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\](?!\s*=[^=])"""
    r"""|\benvs\.(VLLM_[A-Z0-9_]+)|\bgetenv\(\s*"([A-Z][A-Z0-9_]+)\""""
    r"""|["']([A-Z][A-Z0-9_]+)["']\s+(?:not\s+)?in\s+os\.environ\b"""
)
_ENV_SET = re.compile(
    r"""os\.environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]\s*=[^=]"""
    r"""|(?:setenv|environ\.setdefault)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
)
# The definitions in an `envs.py`: `"VLLM_FOO": lambda: ...` and `VLLM_FOO: bool = False`.
_ENV_DEFINE = re.compile(
    r"""^\s*(?:["'](VLLM_[A-Z0-9_]+)["']\s*:|(VLLM_[A-Z0-9_]+)\s*:\s*[\w\[])"""
)
_ENV_DEFAULT = re.compile(
    r"""(?:getenv|environ\.get)\(\s*["']([A-Z][A-Z0-9_]+)["']\s*,\s*([^)]*)\)"""
)
_FLAG = re.compile(r"""["'](--[A-Za-z0-9][\w-]*)["']""")
_FLAG_CALL = re.compile(r"add_argument\(|\boption\(|Option\(")
_ENV_KINDS = (("environment variable", _ENV_DEFINE), ("environment variable read", _ENV_READ),
              ("environment variable set", _ENV_SET))  # fmt: skip


def _line_settings(side: Side, path: str) -> Iterator[tuple[str, str, str]]:
    """The flags and environment variables named on the side's changed lines, with the line
    (or the default) that says what they are."""
    envs_file = PurePosixPath(path).name == "envs.py"
    for row in sorted(side.changed):
        line = side.lines[row]
        for kind, pattern in _ENV_KINDS:
            if kind == "environment variable" and not envs_file:
                continue
            for m in pattern.finditer(line):
                yield kind, next(g for g in m.groups() if g), line.strip()
        for m in _ENV_DEFAULT.finditer(line):
            yield "environment variable default", m.group(1), m.group(2).strip()
        flags = _FLAG.findall(line)
        if flags and any(_FLAG_CALL.search(side.lines[r]) for r in range(max(0, row - 3), row + 1)):
            for flag in flags:
                yield "CLI flag", flag, ""


def _settings_added_removed(reads: list[tuple[str, Hunk]]) -> list[Setting]:
    """Flags and variables that the PR's added lines name and its removed lines do not (added),
    or the reverse; a flag named on both sides in two files moved between them, one named on
    both sides of one file is unchanged."""
    plus: dict[tuple[str, str], tuple[str, str]] = {}
    minus: dict[tuple[str, str], tuple[str, str]] = {}
    for path, hunk in reads:
        for kind, name, text in _line_settings(hunk.new, path):
            plus.setdefault((kind, name), (path, text))
        for kind, name, text in _line_settings(hunk.old, path):
            minus.setdefault((kind, name), (path, text))
    out: list[Setting] = []
    for (kind, name), (path, text) in plus.items():
        if (kind, name) not in minus:
            if kind != "environment variable default":
                out.append(Setting(kind, name, "added", path))
        elif kind == "CLI flag" and minus[(kind, name)][0] != path:
            out.append(Setting(kind, name, "moved", path, old=minus[(kind, name)][0]))
        elif kind in _CHANGEABLE and minus[(kind, name)][1] != text:
            out.append(Setting(kind, name, "changed", path, minus[(kind, name)][1], text))
    out += [
        Setting(k, n, "removed", path)
        for (k, n), (path, _) in minus.items()
        if (k, n) not in plus and k != "environment variable default"
    ]
    return out


# A variable's definition line in `envs.py` and its `getenv` default say what changed about it.
_CHANGEABLE = ("environment variable", "environment variable default")


# -- moves -----------------------------------------------------------------------------------


def _move_key(d: Definition) -> tuple[str, str]:
    # A method or declaration keeps its full name (`forward` alone says nothing); a function or
    # class moved to another module is known by its own name.
    if d.kind in ("method", "declaration"):
        return d.kind, d.name
    return d.kind, short_name(d.name)


def _moves(
    defs: list[Definition], renamed: set[tuple[str, str, str]] = frozenset()
) -> tuple[list[Definition], list[Move]]:
    """Definitions removed in one place and added in another become moves; one removed and
    one added where a `def` line was edited in place (`renamed`: file, old, new) a rename."""
    added: dict[tuple[str, str], list[Definition]] = {}
    for d in defs:
        if d.change == "added":
            added.setdefault(_move_key(d), []).append(d)
    moves: list[Move] = []
    paired: set[int] = set()
    for d in defs:
        if d.change != "removed":
            continue
        for t in defs:
            key = (d.file, short_name(d.name), short_name(t.name))
            if (
                t.change == "added" and id(t) not in paired and t.kind == d.kind
                and t.file == d.file and key in renamed
            ):  # fmt: skip
                moves.append(Move(d.kind, d.name, d.file, t.name, t.file))
                paired.update((id(d), id(t)))
                break
    for d in defs:
        if id(d) in paired:
            continue
        if d.change != "removed" or not added.get(_move_key(d)):
            continue
        to = added[_move_key(d)].pop(0)
        moves.append(Move(d.kind, d.name, d.file, to.name, to.file))
        paired.update((id(d), id(to)))
    for d, to in _made_public(defs, paired):
        moves.append(Move(d.kind, d.name, d.file, to.name, to.file))
        paired.update((id(d), id(to)))
    return [d for d in defs if id(d) not in paired], moves


def _made_public(defs: list[Definition], paired: set[int]) -> Iterator[tuple[Definition, Definition]]:
    """A private method or function removed, and a function of its name without the
    underscore added to another module: moved out and made public (vLLM #34628 moved
    `OpenAISpeechToText._split_audio` to `vllm/multimodal/audio.py` as `split_audio`, and
    the summary said it "adds two new functions")."""
    free = [t for t in defs if t.change == "added" and t.kind == "function" and id(t) not in paired]
    for d in defs:
        old = short_name(d.name)
        if d.change != "removed" or id(d) in paired or d.kind not in ("method", "function"):
            continue
        if not old.startswith("_") or old.startswith("__"):
            continue
        to = next((t for t in free if t.file != d.file and short_name(t.name) == old[1:]), None)
        if to is not None:
            free.remove(to)
            yield d, to


def _head(line: str) -> tuple[str | None, str]:
    """The name a `def` or `class` line defines, and the rest of the line after it."""
    m = _PY_HEADER.match(line.lstrip())
    return (m.group(2), line.lstrip()[m.end() :]) if m else (None, "")


def _renamed_heads(path: str, hunks: list[Hunk]) -> set[tuple[str, str, str]]:
    """`def old(...)` removed and `def new(...)` added at the same place with the same rest
    of the line: the definition renamed where it stands (its body, around, unchanged)."""
    found: set[tuple[str, str, str]] = set()
    for h in hunks:
        olds = [(r, *_head(h.old.lines[r])) for r in h.old.changed]
        news = [(r, *_head(h.new.lines[r])) for r in h.new.changed]
        for (ro, a, rest_a), (rn, b, rest_b) in ((x, y) for x in olds for y in news):
            if a and b and a != b and rest_a == rest_b and abs(ro - rn) <= 2:
                found.add((path, a, b))
    return found


def _renamed_by_use(
    defs: list[Definition], lines: list[tuple[str, Hunk]]
) -> set[tuple[str, str, str]]:
    """A definition removed and one of its kind added in the same file, where the PR rewrites
    a line that uses the old name into the same line with the new name, and leaves the old
    name on no added line, and whose head is rewritten in place (`_head_renamed`): a rename.
    vLLM #33724 renamed `compute_pplx_data` to `compute_batched_moe_data` and rewrapped its
    C++ head, which `_renamed_heads` cannot match, and the summary said "adds
    `compute_batched_moe_data`". The line must use the name, not define it: #34175 wrote a
    new method in the place of `_block_hashes_to_keys`."""
    gone = [d for d in defs if d.change == "removed"]
    new = [d for d in defs if d.change == "added"]
    if not gone or not new:
        return set()
    old_lines = {_norm(h.old.lines[r]) for _, h in lines for r in h.old.changed}
    new_lines = {_norm(h.new.lines[r]) for _, h in lines for r in h.new.changed}
    found: set[tuple[str, str, str]] = set()
    for d, t in ((d, t) for d in gone for t in new if t.file == d.file and t.kind == d.kind):
        a, b = short_name(d.name), short_name(t.name)
        word_a, word_b = re.compile(rf"\b{re.escape(a)}\b"), re.compile(rf"\b{re.escape(b)}\b")
        if a == b or any(word_a.search(x) for x in new_lines):
            continue
        if any(word_b.search(x) for x in old_lines):
            continue
        uses = (x for x in old_lines if _used(a, x))
        if any(word_a.sub(b, x) in new_lines for x in uses) and _head_renamed(d.file, lines, a, b):
            found.add((d.file, a, b))
    return found


def _head_renamed(path: str, lines: list[tuple[str, Hunk]], a: str, b: str) -> bool:
    """A change block of the file that removes the lines defining `a` and adds, in their
    place, the same text with `b` for `a`, white space aside: the head renamed, rewrapped
    perhaps, and not a new definition written where the old one stood."""
    word = re.compile(rf"\b{re.escape(a)}\b")
    for p, hunk in lines:
        if p != path:
            continue
        added = rows_by_block(hunk.new)
        for block, rows in rows_by_block(hunk.old).items():
            heads = [r for r in rows if word.search(hunk.old.lines[r])]
            if block not in added or not any(not _used(a, hunk.old.lines[r]) for r in heads):
                continue  # a block that only calls `a` says nothing of its definition
            old = "".join(hunk.old.lines[r] for r in rows)
            new = "".join(hunk.new.lines[r] for r in added[block])
            if "".join(word.sub(b, old).split()) == "".join(new.split()):
                return True
    return False


# A name after a word that is not an operator is being defined (`def f`, `class C`, `void f`,
# `__global__ void f`): a head rewritten with another name says nothing of a rename, since a
# new definition in the old one's place looks the same.
_DEFINED_AFTER = re.compile(r"\b(?!(?:return|await|yield|new|else|in|and|or|not)\b)\w+\s+$")


def _used(name: str, line: str) -> bool:
    return any(
        not _DEFINED_AFTER.search(line[: m.start()])
        for m in re.finditer(rf"\b{re.escape(name)}\b", line)
    )


_MOVED_AT_LEAST = 3  # non-blank lines: fewer is a coincidence (`)`, `return x`, `else:`)
_MOVED_SHARE = 0.8  # of a removed run's lines found added together elsewhere
_COMMON = 50  # hunks adding one line (`)`, `return x`) counted as candidates, at most


def _norm(line: str) -> str:
    return " ".join(line.split())


def changed_runs(side: Side) -> Iterator[list[int]]:
    """Rows of consecutive changed lines (blank ones inside a run kept in it)."""
    run: list[int] = []
    for row in range(len(side.lines)):
        if row in side.changed:
            run.append(row)
        elif run:
            yield run
            run = []
    if run:
        yield run


def enclosing_definition(path: str, hunk: Hunk, new: bool, row: int) -> str | None:
    """The top-level definition that line `row` of the hunk's new (or old) side lies in."""
    return _enclosing(path, hunk, hunk.new if new else hunk.old, row)


def _enclosing(path: str, hunk: Hunk, side: Side, row: int) -> str | None:
    """The top-level definition `row` lies in: one that starts above it in the hunk, else the
    one the hunk header names."""
    grammar = _SUFFIXES.get(PurePosixPath(path).suffix.lower(), "")
    for line in reversed(side.lines[:row] if grammar == "python" else []):
        if line[:1] not in ("", " ", "\t", "#", ")", "]", "@"):
            m = _PY_HEADER.match(line)
            return m.group(2) if m else None
    scope = _scope(hunk.header, grammar, side.lines)
    return scope.name if row < scope.until else None


def _moved_lines(reads: list[tuple[str, Hunk]]) -> list[MovedLines]:
    """Runs of removed lines whose lines are added together in another hunk: a block moved.
    The PR's facts then say "moved" where they would say "removed" and "added"."""
    added = [{_norm(h.new.lines[r]) for r in h.new.changed} - {""} for _, h in reads]
    # Which hunks add each line: a run's candidates are the hunks its lines point to, so a PR
    # of thousands of hunks is read once, not once a run.
    adders: dict[str, list[int]] = {}
    for j, lines in enumerate(added):
        for line in lines:
            adders.setdefault(line, []).append(j)
    out: list[MovedLines] = []
    for i, (path, hunk) in enumerate(reads):
        blocks: _HunkBlocks | None = None  # read once a hunk, when a run needs them
        for run in changed_runs(hunk.old):
            texts = [_norm(hunk.old.lines[r]) for r in run if hunk.old.lines[r].strip()]
            if len(texts) < _MOVED_AT_LEAST:
                continue
            blocks = blocks or _HunkBlocks.of(hunk)
            if (within := _moved_within(path, hunk, blocks, run, texts)) is not None:
                out.append(within)
                continue
            if _rewritten_in_place(blocks, run, texts):
                continue
            votes = Counter(j for t in texts for j in adders.get(t, ())[:_COMMON] if j != i)
            for j, _ in votes.most_common(3):
                if sum(t in added[j] for t in texts) >= _MOVED_SHARE * len(texts):
                    out.append(_moved(path, hunk, run, texts, *reads[j]))
                    break
    return out


def _rewritten_in_place(blocks: _HunkBlocks, run: list[int], texts: list[str]) -> bool:
    """Lines replaced where they stood by as much new code: the old code rewritten, and the
    copy of it elsewhere kept beside the new (a benchmark's `old_default_config` to compare
    against, vLLM #34846), not the code moved there. A block extracted into a helper leaves
    a line or two behind in its hunk: its call."""
    new = set().union(*blocks.added.values()) - set(texts)
    return len(new) >= max(_REWRITE_AT_LEAST, len(texts))


_REWRITE_AT_LEAST = 3
_DEFINES = re.compile(r"(?:async\s+)?(?:def|class)\s")  # a run holding one moves a definition
_NOT_CODE = ("#", "//", "/*", "*", '"""', "'''")


def is_code_line(line: str) -> bool:
    """Not blank, and not a comment or a docstring's quotes."""
    text = line.strip()
    return bool(text) and not text.startswith(_NOT_CODE)


def _first_text(side: Side, run: list[int]) -> str:
    return next((side.lines[r].strip() for r in run if side.lines[r].strip()), "")[:120]


@dataclass(frozen=True)
class _HunkBlocks:
    """A hunk's change blocks, read once for all of its removed runs."""

    removed: dict[int, int]  # each removed row's block
    added: dict[int, list[str]]  # each block's added lines, normalized, in order
    firsts: dict[int, int]  # each block's first added row
    unchanged: list[str]  # the unchanged lines, in order

    @classmethod
    def of(cls, hunk: Hunk) -> _HunkBlocks:
        added: dict[int, list[str]] = {}
        firsts: dict[int, int] = {}
        for row, at in change_blocks(hunk.new).items():
            if line := _norm(hunk.new.lines[row]):
                added.setdefault(at, []).append(line)
                firsts.setdefault(at, row)
        unchanged = [line for row, line in enumerate(hunk.old.lines) if row not in hunk.old.changed]
        return cls(change_blocks(hunk.old), added, firsts, unchanged)


def _moved_within(
    path: str, hunk: Hunk, blocks: _HunkBlocks, run: list[int], texts: list[str]
) -> MovedLines | None:
    """A run of removed lines added again in another change block of the same hunk: the same
    code run earlier or later (wrapping lines in a new `if` re-adds them in their own block,
    and is no move)."""
    block = blocks.removed[run[0]]
    for at, lines in blocks.added.items():
        passed = blocks.unchanged[min(at, block) : max(at, block)]
        if at == block or not any(is_code_line(line) for line in passed):
            continue  # the same block, or only blank lines or comments between: no reorder
        if _kept_together(texts, lines):
            old = _enclosing(path, hunk, hunk.old, run[0])
            new = _enclosing(path, hunk, hunk.new, blocks.firsts[at])
            # Only within one definition is it the same code run in another order; into
            # another definition it is a move, as between files.
            within = old is not None and old == new and not any(map(_DEFINES.match, texts))
            moved = hunk.old.lines[run[0] : run[-1] + 1]
            return MovedLines(
                len(texts), path, path, _first_text(hunk.old, run), old, new,
                earlier=at < block if within else None,
                passed=_first_statement(passed) if within else "",
                raises=raised_message(moved) if within else "",
                passed_raises=raised_message(passed) if within else "",
            )  # fmt: skip
    return None


def _kept_together(texts: list[str], lines: list[str]) -> bool:
    """Most of a removed run's lines added again in their order, and not spread among as
    many new ones: a tuple of 4 fields rewritten as one of 7 is no block moved (vLLM #35383)."""
    matches = [m for m in SequenceMatcher(None, texts, lines, autojunk=False).get_matching_blocks() if m.size]
    if sum(m.size for m in matches) < _MOVED_SHARE * len(texts):
        return False
    span = matches[-1].b + matches[-1].size - matches[0].b
    return span * _MOVED_SHARE <= len(texts)


# `try:`, `else:`, a closing bracket: a line that names nothing the reader could look up.
_BARE = re.compile(r"\s*(?:try|else|finally|pass|break|continue|return|[)\]}]+)\s*:?\s*")


_RAISED = re.compile(r"^\s*raise\s+[A-Za-z_][\w.]*\(")
# The first string literal of a raise: its message, an f-string's fields as written.
_MESSAGE = re.compile(
    r"(?<!\w)[fr]?\"((?:[^\"\\`]|\\.){8,120})\"|(?<!\w)[fr]?'((?:[^'\\`]|\\.){8,120})'"
)
_MESSAGE_LINES = 4  # a raise's call wrapped over this many lines, at most


def raised_message(lines: list[str]) -> str:
    """The message of the first `raise Error("...")` among `lines`, or ""."""
    for row, line in enumerate(lines):
        if _RAISED.match(line):
            call = " ".join(t.strip() for t in lines[row : row + _MESSAGE_LINES])
            m = _MESSAGE.search(call)
            return (m.group(1) or m.group(2)) if m else ""
    return ""


def _first_statement(lines: list[str]) -> str:
    """The first line of code among `lines` that names something."""
    return next((t.strip() for t in lines if is_code_line(t) and not _BARE.fullmatch(t)), "")


def _moved(
    path: str, hunk: Hunk, run: list[int], texts: list[str], new_path: str, new_hunk: Hunk
) -> MovedLines:
    added = sorted(r for r in new_hunk.new.changed if _norm(new_hunk.new.lines[r]))
    # Where the run's first line went; a common line (`)`, `break`) may be added elsewhere.
    first = next((r for r in added if _norm(new_hunk.new.lines[r]) == texts[0]), added[0])
    # In Python the innermost definition: lines extracted into a new method are said to go
    # there (vLLM #35422's KV-cache write, into `FlashInferImpl.do_kv_cache_update`).
    return MovedLines(
        len(texts), path, new_path, _first_text(hunk.old, run),
        line_owner(path, hunk, False, run[0]),
        line_owner(new_path, new_hunk, True, first),
    )  # fmt: skip


def line_owner(path: str, hunk: Hunk, new: bool, row: int) -> str | None:
    """The definition line `row` of the hunk's new (or old) side lies in: in Python the
    innermost one, qualified by its class (`Request.update_block_hashes`); elsewhere the
    top-level one."""
    side = hunk.new if new else hunk.old
    if not path.endswith(".py"):
        return _enclosing(path, hunk, side, row)
    if (decorated := _decorated(side.lines, row, hunk.header)) is not None:
        return decorated  # a decorator is part of what it decorates (a test's parameters)
    return _owner(side.lines, row, hunk.header) or _enclosing(path, hunk, side, row)


def _decorated(lines: list[str], row: int, header: str) -> str | None:
    """The `def` or `class` a decorator line heads, qualified as `_owner` qualifies."""
    if not lines[row].lstrip().startswith("@"):
        return None
    indent = len(lines[row]) - len(lines[row].lstrip())
    for r in range(row + 1, len(lines)):
        text = lines[r].lstrip()
        depth = len(lines[r]) - len(text)
        if not text or depth > indent or text[:1] in ")]}@":
            continue  # a decorator's arguments over several lines, or the next decorator
        if depth < indent or not (m := _PY_HEADER.match(text)):
            return None
        outer = (_owner(lines, r, header) or _class_named(header)) if depth else None
        return f"{outer}.{m.group(2)}" if outer else m.group(2)
    return None


def _edits(path: str, hunks: list[Hunk], prose: bool = False) -> list[LineEdit]:
    """The file's lines changed in place, imports left out (a module path edited says less
    than the facts' definitions do)."""

    def where(index: int, row: int, new: bool) -> str | None:
        return None if prose else line_owner(path, hunks[index], new, row)

    def imports(index: int, row: int) -> bool:  # a name in `from x import (` too
        return not prose and is_import(hunks[index].new.lines, row, hunks[index].header)

    return [
        e for e in file_edits(path, ((h.old, h.new) for h in hunks), where, prose, imports)
        if not _IMPORT.match(e.old) and not _IMPORT.match(e.new)
    ]  # fmt: skip


def _class_named(header: str) -> str | None:
    m = _PY_HEADER.match(header)
    return m.group(2) if m and m.group(1) == "class" else None


def _owner(lines: list[str], row: int, header: str) -> str | None:
    """The innermost Python `def` above `row` in the hunk, qualified by the class around
    it (`Request.update_block_hashes`): one in the hunk, or the one its header names."""
    names: list[str] = []
    indent = len(lines[row]) - len(lines[row].lstrip())
    for line in reversed(lines[:row]):
        depth = len(line) - len(line.lstrip())
        # A signature's closing `) -> T:` stands at its `def`'s depth but is part of it.
        if not line.strip() or depth >= indent or line.lstrip()[:1] in ")]}":
            continue
        if m := _PY_HEADER.match(line.lstrip()):
            if m.group(1) == "def" and names:
                break  # a function nested in a function is named by the outer one alone
            names.insert(0, m.group(2))
        indent = depth
        if depth == 0:
            break
    if names and indent > 0 and (outer := _class_named(header)):
        names.insert(0, outer)
    return ".".join(names) or None


def _not_moved(deletions: list[Deletion], moved: list[MovedLines]) -> list[Deletion]:
    """A hunk's removed lines that were moved are not "removed with nothing in their place"."""
    gone = {(m.old_file, m.text) for m in moved}
    return [d for d in deletions if (d.file, d.text) not in gone]


# -- the PR ----------------------------------------------------------------------------------


def _grammar_for(f: ChangedFile, kind: str) -> _Grammar | None:
    name = _SUFFIXES.get(PurePosixPath(f.filename).suffix.lower())
    return _grammar(name) if name and kind != "docs" else None


def extract_facts(pr: PullRequest) -> ChangeFacts:
    """The facts the PR's diff shows, exactly: see the module's docstring."""
    from summarizer.diff_budget import rank_files  # noqa: PLC0415 (kept next to its one use)

    defs: list[Definition] = []
    sigs: list[SignatureChange] = []
    settings: list[Setting] = []
    deletions: list[Deletion] = []
    edits: list[LineEdit] = []
    lines: list[tuple[str, Hunk]] = []
    renamed: set[tuple[str, str, str]] = set()
    budget, unread = TOTAL_CHARS, 0
    for f in rank_files(pr.files):
        kind = file_kind(f)
        if kind in _UNREAD or kind == "docs" or not f.patch:
            continue
        if budget <= 0:
            unread += 1
            continue
        budget -= min(len(f.patch), PATCH_CHARS)
        grammar = _grammar_for(f, kind)
        if grammar is not None and grammar.name == "yaml":
            # Its keys and list items say what a deletion-only hunk would; a line edited in
            # place (a CI command given another flag) is an edit as in code.
            settings += _yaml_settings(f, grammar, ci=kind == "CI")
            edits += [
                replace(e, old=_YAML_ITEM.sub("", e.old), new=_YAML_ITEM.sub("", e.new))
                for e in _edits(f.filename, parse_hunks(f.patch))
            ]
            continue
        read = _read_file(f, grammar)
        found, changed = _definitions(read)
        defs += found
        sigs += changed
        settings += _config_fields(read)
        deletions += read.deletions if f.status != "removed" else []
        hunks = parse_hunks(f.patch)
        if grammar is not None and grammar.name == "python":
            renamed |= _renamed_heads(f.filename, hunks)
        lines += [(f.filename, h) for h in hunks]
        edits += _edits(f.filename, hunks)
    edits += _docs_edits(pr)
    defs, moves = _moves(defs, renamed | _renamed_by_use(defs, lines))
    settings += _settings_added_removed(lines)
    moved_lines = _moved_lines(lines)
    return ChangeFacts(
        definitions=tuple(defs),
        signatures=tuple(sigs),
        moves=tuple(moves),
        moved_lines=tuple(moved_lines),
        settings=tuple(settings),
        files=_file_changes(pr.files),
        deletions=tuple(_not_moved(deletions, moved_lines)),
        edits=grouped(edits),
        kinds=_kind_counts(pr.files),
        files_total=max(pr.changed_files or 0, len(pr.files)),
        files_unread=unread,
    )


def _docs_edits(pr: PullRequest) -> list[LineEdit]:
    """The docs' lines edited in place, for a PR that changes no code (only docs, tests, CI
    or comments): "`'{"image":2}'` becomes `--limit-mm-per-prompt.image 2`" in five guides is
    what such a PR does, and without it its facts were file names only."""
    if any(file_kind(f) in _CODE_KINDS and not only_prose(f) for f in pr.files):
        return []
    docs = [f for f in pr.files if file_kind(f) == "docs" and f.patch]
    return [e for f in docs for e in _edits(f.filename, parse_hunks(f.patch or ""), prose=True)]


# -- the block the model reads ---------------------------------------------------------------


def _code(text: str, limit: int = 100) -> str:
    """Text shown in backticks: one line, no backtick of its own, cut at `limit`."""
    text = _squeeze(text).replace("`", "'")
    return f"`{text if len(text) <= limit else text[: limit - 1] + '…'}`"


@dataclass(frozen=True)
class _Line:
    text: str
    facts: int  # how many facts the line states


def _grouped(verb: str, defs: list[Definition], cap: int = 6) -> Iterator[_Line]:
    """One line per file: `Removed: function `a`, method `B.c` (path)`."""
    by_file: dict[str, list[Definition]] = {}
    for d in defs:
        by_file.setdefault(d.file, []).append(d)
    for path, items in by_file.items():
        # What is inside a class or function added (or removed) whole goes with it.
        outer = [d for d in items if not any(d.name.startswith(o.name + ".") for o in items)]
        inner = {o.name: [d for d in items if d.name.startswith(o.name + ".")] for o in outer}
        said = [f"{d.kind} {_code(d.name)}{_inside(inner[d.name])}" for d in outer[:cap]]
        more = f" and {len(outer) - cap} more" if len(outer) > cap else ""
        yield _Line(f"{verb}: {', '.join(said)}{more} ({path})", len(items))


def _inside(inner: list[Definition], cap: int = 4) -> str:
    if not inner:
        return ""
    names = ", ".join(_code(d.name.rsplit(".", 1)[-1]) for d in inner[:cap])
    return f" (with {names}{' and more' if len(inner) > cap else ''})"


def _signature_line(s: SignatureChange) -> _Line:
    old, new = f"{s.name}{s.old}", f"{s.name}{s.new}"
    if len(old) + len(new) <= 160:
        return _Line(f"Signature changed: {_code(old, 120)} -> {_code(new, 120)} ({s.file})", 1)
    parts = (
        [f"parameters removed {', '.join(_code(p, 60) for p in s.removed_params)}"]
        if s.removed_params
        else []
    )
    if s.added_params:
        parts.append(f"parameters added {', '.join(_code(p, 60) for p in s.added_params)}")
    said = "; ".join(parts) or f"now {_code(s.new, 120)}"
    return _Line(f"Signature changed: {_code(s.name)}: {said} ({s.file})", 1)


_SETTING_VERBS = {
    ("environment variable read", "added"): "Environment variable newly read",
    ("environment variable read", "removed"): "Environment variable no longer read",
    ("environment variable set", "added"): "Environment variable newly set",
    ("environment variable set", "removed"): "Environment variable no longer set",
}


def _setting_line(s: Setting) -> _Line:
    verb = _SETTING_VERBS.get((s.kind, s.change), f"{s.kind[0].upper()}{s.kind[1:]} {s.change}")
    if s.change == "moved":
        return _Line(f"{verb}, unchanged: {_code(s.name)} from {s.old} to {s.file}", 1)
    if s.change == "changed":
        return _Line(
            f"{verb}: {_code(s.name)}: {_code(s.old, 60)} -> {_code(s.new, 60)} ({s.file})", 1
        )
    if s.kind == "YAML list item":
        under = f" under {_code(s.name)}" if s.name else ""
        return _Line(f"{verb}{under}: {_code(s.new or s.old, 100)} ({s.file})", 1)
    value = f" {_code(s.new or s.old, 80)}" if s.kind == "config field" else ""
    return _Line(f"{verb}: {_code(s.name)}{value} ({s.file})", 1)


def _file_lines(files: tuple[FileChange, ...], cap: int = 5) -> Iterator[_Line]:
    for change in ("renamed", "moved"):
        for f in (f for f in files if f.change == change):
            yield _Line(f"File {change}: {f.previous} -> {f.file}", 1)
    for change in ("added", "removed"):
        paths = [f.file for f in files if f.change == change]
        if paths:
            more = f" and {len(paths) - cap} more" if len(paths) > cap else ""
            yield _Line(f"Files {change}: {', '.join(paths[:cap])}{more}", len(paths))


def _deletion_lines(deletions: tuple[Deletion, ...]) -> Iterator[_Line]:
    """Removing the same one line in many places (a keyword argument from five calls) is one
    fact, said once with its places."""
    verb = "Removed with nothing added in their place"
    same: dict[tuple[int, str | None], list[Deletion]] = {}
    for d in deletions:
        same.setdefault((d.lines, d.text), []).append(d)
    for (lines, text), places in same.items():
        what = _code(text or "", 80) if lines == 1 else f"{lines} lines"
        first = f" starting {_code(text, 60)}" if lines > 1 and text else ""
        if lines > 1 and places[0].entries:
            shown = ", ".join(map(_code, places[0].entries))
            what, first = f"{lines} entries", f" ({shown})"
        where = ", ".join(
            f"{_code(d.enclosing)} ({d.file})" if d.enclosing else d.file for d in places[:5]
        )
        more = f" and {len(places) - 5} more" if len(places) > 5 else ""
        count = f" in {len(places)} places:" if len(places) > 1 else " in"
        yield _Line(f"{verb}: {what}{first}{count} {where}{more}", len(places))


def _moved_lines_line(m: MovedLines) -> _Line:
    def place(path: str, enclosing: str | None) -> str:
        return f"{_code(enclosing)} ({path})" if enclosing else path

    if m.reordered:
        when = "earlier" if m.earlier else "later"
        if m.passed:
            when = f"{'before' if m.earlier else 'after'} {_code(m.passed, 60)}"
        return _Line(
            f"Reordered: {m.lines} unchanged lines starting {_code(m.text, 60)} now run "
            f"{when} in {place(m.old_file, m.old_enclosing)}",
            1,
        )
    return _Line(
        f"Moved unchanged: {m.lines} lines starting {_code(m.text, 60)} from "
        f"{place(m.old_file, m.old_enclosing)} to {place(m.new_file, m.new_enclosing)}",
        1,
    )


_EDITS_SHOWN = 4  # more lines edited in place are a rewrite the diff itself shows better


def _edit_line(e: LineEdit) -> _Line:
    where = f"{_code(e.enclosing)} ({e.file})" if e.enclosing else e.file
    places = f" in {e.places} places" if e.places > 1 else ""
    if not e.old:  # a statement added on its own
        return _Line(f"Added in {where}{places}: {_quoted(e.new)}", e.places)
    return _Line(f"Edited in {where}{places}: {_quoted(e.old)} -> {_quoted(e.new)}", e.places)


def _quoted(text: str, limit: int = 100) -> str:
    """Code in backticks as the diff has it (spacing kept: the summary may quote it)."""
    text = text.replace("`", "'")
    return f"`{text if len(text) <= limit else text[: limit - 1] + '…'}`" if text else "nothing"


def _kinds_line(facts: ChangeFacts) -> str:
    counts = ", ".join(f"{k.files} {k.kind}" for k in facts.kinds) or "none"
    listed = sum(k.files for k in facts.kinds)
    total = (
        f" (GitHub listed {listed} of {facts.files_total})" if facts.files_total > listed else ""
    )
    unread = f"; {facts.files_unread} not read" if facts.files_unread else ""
    return f"Files: {counts}{total}{unread}"


def _lines(facts: ChangeFacts) -> Iterator[_Line]:
    with_signature = {(s.file, s.name) for s in facts.signatures}
    yield from _grouped("Removed", facts.of("removed"))
    yield from _grouped("Added", facts.of("added"))
    yield from (_signature_line(s) for s in facts.signatures)
    for m in facts.moves:
        if m.renamed:
            renamed = f"{m.kind} {_code(m.old_name)} to {_code(m.new_name)}"
            yield _Line(f"Renamed: {renamed} ({m.new_file})", 1)
            continue
        to = f" as {_code(m.new_name)}" if m.new_name != m.old_name else ""
        yield _Line(f"Moved: {m.kind} {_code(m.old_name)} from {m.old_file} to {m.new_file}{to}", 1)
    yield from (_moved_lines_line(m) for m in facts.moved_lines)
    changed = [d for d in facts.of("changed") if (d.file, d.name) not in with_signature]
    yield from _grouped("Changed code in", changed)
    yield from _grouped("Comments or docstrings only in", facts.of("reworded"))
    yield from (_setting_line(s) for s in facts.settings)
    yield from _file_lines(facts.files)
    yield from _deletion_lines(facts.deletions)
    # Lines edited in place first: they are the mechanism a small model most often inverts.
    # A statement added on its own is the mechanism only of a small change; in a larger one
    # it is a detail the definitions say better.
    small = len(facts.edits) <= _EDITS_SHOWN
    edits = sorted((e for e in facts.edits if e.old or small), key=lambda e: not e.old)
    yield from (_edit_line(e) for e in edits[:_EDITS_SHOWN])


def render_facts(facts: ChangeFacts, max_chars: int = 1500) -> str:
    """The "Change facts" block: one fact a line, the most telling first, within `max_chars`
    (the file-kind line is always kept: it is what says a PR only touches tests)."""
    last = _kinds_line(facts)
    budget = max_chars - len(last) - 1
    shown: list[str] = []
    left = 0
    for line in _lines(facts):
        if left or len(line.text) + 1 > budget - 20:  # room kept for "… and N more"
            left += line.facts
            continue
        shown.append(line.text)
        budget -= len(line.text) + 1
    if left:
        shown.append(f"… and {left} more")
    return "\n".join([*shown, last])


# -- storage ---------------------------------------------------------------------------------

_ITEMS = {
    "definitions": Definition, "signatures": SignatureChange, "moves": Move,
    "moved_lines": MovedLines, "settings": Setting,
    "files": FileChange, "deletions": Deletion, "edits": LineEdit, "kinds": KindCount,
}  # fmt: skip


def facts_to_json(facts: ChangeFacts) -> dict[str, Any]:
    return asdict(facts)


def facts_from_json(data: dict[str, Any]) -> ChangeFacts:
    """The facts as `facts_to_json` wrote them; fields a newer version added are ignored and
    missing ones take their defaults, so stored facts outlive changes to this module."""
    values: dict[str, Any] = {}
    for name, item in _ITEMS.items():
        known = set(item.__dataclass_fields__)
        values[name] = tuple(
            item(
                **{k: tuple(v) if isinstance(v, list) else v for k, v in row.items() if k in known}
            )
            for row in data.get(name, ())
        )
    for name in ("files_total", "files_unread"):
        values[name] = int(data.get(name, 0))
    return ChangeFacts(**values)
