"""Areas: every PR of a day in exactly one area, from the repository's own conventions.

A PR's area is decided in this order (the first that gives one wins):

1. the `[areas]` map of prdigest.toml (`AreaMap`): its rules in file order, the first that
   claims the PR by a title tag or by paths;
2. the title's leading tags (`title_tags`), normalized (`[BugFix]`, `[BUGFIX]`, `[Bug]` are
   all "Bugfix"): the first tag that names a part of the code (`[ROCm]`, `[Kernel]`,
   `[Model Runner V2]`) wins over one that only says what kind of change it is (`[Bugfix]`,
   `[Perf]`, `[Misc]`), which is used when there is nothing more specific;
3. the paths the PR changes (`area_from_paths`): docs, CI and build files, benchmarks, tests,
   else the first directory below the package, by where most changed files are;
4. "Other".

Everything here is pure and deterministic: the same PRs always give the same areas and the
same grouping, whatever order they come in.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.core.errors import ConfigurationError, PRDigestError
from bot.core.globs import any_glob_matches, compile_glob
from bot.core.models import AreaGroup, ChangedFile, PullRequest

OTHER = "Other"
AREA_KEYS = ("paths", "tags")  # what an [areas.Name] table may hold

# -- title tags ----------------------------------------------------------------------------------


def _key(text: str) -> str:
    """What two spellings of one name share: `Model Runner V2`, `ModelRunner-V2` and
    `model_runner_v2` are one; so are the tag `[LoRA]` and the directory `lora/`."""
    return re.sub(r"[\W_]+", "", text.casefold())


def _aliases(table: Mapping[str, Sequence[str]]) -> dict[str, str]:
    return {_key(alias): name for name, aliases in table.items() for alias in (name, *aliases)}


# Tags that say what kind of change a PR is, not which part of the code it changes. A title
# often carries one next to an area tag (`[Bugfix][ROCm]`, `[Kernel][Perf]`); the area tag is
# what a reader scanning the day wants grouped, so a kind wins only when there is no area tag.
_KIND_ALIASES = {
    "Bugfix": ("bug fix", "bugfixes", "bug", "bugs", "fix", "fixes", "fixed", "hotfix"),
    "Feature": ("feat", "features", "new feature", "enhancement", "improvement"),
    "Performance": ("perf", "optimization", "optimisation", "optimize", "speedup"),
    "Refactor": ("refactoring", "refactors", "restructure"),
    "Misc": (
        "miscellaneous", "chore", "chores", "cleanup", "clean up", "cleaning", "minor",
        "trivial", "nit", "nits", "update", "updates", "maintenance", "typo",
    ),
    "Revert": ("reverts", "rollback"),
    "Backport": ("cherry-pick", "cherry pick", "cherrypick"),
    "Breaking Change": ("breaking", "breaking changes"),
}  # fmt: skip

# Area names common to many repositories, with the spellings people use for them.
_AREA_ALIASES = {
    "Doc": ("docs", "documentation", "document", "readme"),
    "CI": (
        "ci/build", "build/ci", "build", "ci failure", "ci fix", "ci/cd", "cicd", "infra",
        "github actions", "workflow", "workflows",
    ),
    "Tests": ("test", "testing", "unit test", "unit tests", "e2e"),
    "Benchmarks": ("benchmark", "bench", "benches", "benchmarking"),
    "Dependencies": ("deps", "dependency", "dep"),
    "Model": ("models", "new model"),
    "Frontend": (),
    "Core": (),
    "Kernel": ("kernels",),
    "Quantization": ("quant",),
    "Compile": ("compilation", "compiler", "torch.compile", "torch compile"),
    "Multimodal": ("mm", "multi-modal", "multi modal", "vlm"),
    "LoRA": (),
    "ROCm": ("amd", "hip"),
    "CPU": (),
    "TPU": (),
    "XPU": (),
    "Security": (),
    "API": (),
}  # fmt: skip

_AREAS = _aliases(_AREA_ALIASES)
_CANONICAL = {**_aliases(_KIND_ALIASES), **_AREAS}
_KIND_NAMES = frozenset(_KIND_ALIASES)

# Tags that only say which family the next tag belongs to: `[Hardware][AMD]` is about AMD.
_UMBRELLAS = frozenset({_key(t) for t in ("Hardware", "Platform", "Platforms")})

# Brackets that are not tags: a series marker (`[1/N]`, `[2/3]`, `[Part 2]`), a state
# (`[WIP]`, `[Draft]`, `[DNM]`), a CI directive (`[skip ci]`), a number or a version.
_NOT_TAGS = frozenset(
    _key(t)
    for t in (
        "WIP", "Draft", "DNM", "Do not merge", "Don't merge", "RFC", "Ready", "Ready for review",
        "skip ci", "ci skip", "no ci", "skip-ci",
    )
)  # fmt: skip
_NOT_TAG_PATTERN = re.compile(
    r"(?:\d+|n)\s*/\s*(?:\d+|n|m)|part\s*\d+|#?\d+|v?\d+(?:\.\d+)+", re.IGNORECASE
)
_MAX_TAG_WORDS = 4  # a longer bracket is a remark, not a tag

_LEADING_TAG = re.compile(r"\s*\[([^\[\]]*)\]")
# Conventional Commits, as many repositories title PRs: `fix(parser)!: ...`, `docs: ...`.
_CONVENTIONAL = re.compile(
    r"\s*(?P<type>feat|fix|docs|style|refactor|perf|test|tests|build|ci|chore|revert|deps)"
    r"(?:\((?P<scope>[^()]*)\))?!?:\s",
    re.IGNORECASE,
)
_CONVENTIONAL_TYPES = {"style": "Misc"}  # the other types are tags of their own
_REVERT_QUOTED = re.compile(r"^\s*\[?revert\]?\s*:?\s*[\"“](?P<title>.+)[\"”]", re.IGNORECASE)


def normalize_tag(tag: str) -> str:
    """One tag in its canonical spelling, or "" when the bracket is not a tag.

    Known names are matched ignoring case, spaces and punctuation (`[BugFix]`, `[BUGFIX]`,
    `[Bug]`, `[bug-fix]` are "Bugfix"; `[CI/Build]` is "CI"); other tags keep their spelling,
    with whitespace tidied (`[Model Runner V2]`).
    """
    text = " ".join(tag.strip(" \t:-|").split())
    key = _key(text)
    if (
        key in _NOT_TAGS
        or _NOT_TAG_PATTERN.fullmatch(text)
        or len(text.split()) > _MAX_TAG_WORDS
        or not key
    ):
        return ""
    return _CANONICAL.get(key, text)


def title_tags(title: str) -> list[str]:
    """The title's leading tags, normalized, in title order.

    `[Bugfix][ROCm] Fix ...` gives ["Bugfix", "ROCm"]; `[Llama4,CI]` is two tags; brackets
    that are not tags (`[1/N]`, `[WIP]`) are dropped. A Conventional Commits prefix counts too:
    `fix(reasoning): ...` gives ["Bugfix", "reasoning"]. A revert the revert button titled
    (`Revert "[Kernel] ..."`) has the tags of the title it reverts, so it lands in their area.
    """
    if quoted := _REVERT_QUOTED.match(title):
        title = quoted.group("title")
    tags: list[str] = []
    pos = 0
    while match := _LEADING_TAG.match(title, pos):
        tags.extend(filter(None, (normalize_tag(part) for part in match.group(1).split(","))))
        pos = match.end()
    if conventional := _CONVENTIONAL.match(title, pos):
        kind = conventional.group("type").lower()
        tags.append(_CONVENTIONAL_TYPES.get(kind) or normalize_tag(kind))
        scope = conventional.group("scope") or ""
        tags.extend(filter(None, (normalize_tag(part) for part in scope.split(","))))
    return list(dict.fromkeys(tags))  # each once, first place kept


def area_from_tags(tags: Sequence[str]) -> str | None:
    """The area normalized tags name: the first area tag, else the first kind tag, else None.

    An umbrella tag yields to the tag after it (`[Hardware][AMD]` is "ROCm"). Among area
    tags the first wins because titles put the main subject first: `[ROCm][Quantization]`.
    """
    areas = [t for t in tags if t not in _KIND_NAMES]
    for i, tag in enumerate(areas):
        if _key(tag) in _UMBRELLAS and i + 1 < len(areas):
            continue
        return tag
    return tags[0] if tags else None


# -- paths ---------------------------------------------------------------------------------------

_DOC_DIRS = frozenset({"docs", "doc", "documentation", "examples", "example"})
_DOC_FILES = re.compile(r".*\.(?:md|mdx|rst|adoc)|mkdocs\.ya?ml|\.readthedocs\.ya?ml", re.I)
_CI_DIRS = frozenset(
    {
        ".github", ".buildkite", ".circleci", ".gitlab", ".ci", "ci", ".azure-pipelines",
        ".devcontainer", "docker", "requirements", "cmake",
    }
)  # fmt: skip
# Build and CI files at the top of the repository.
_CI_FILES = re.compile(
    r"dockerfile.*|.*\.dockerfile|\.dockerignore|cmakelists\.txt|makefile|setup\.(?:py|cfg)"
    r"|pyproject\.toml|manifest\.in|requirements.*\.txt|tox\.ini|noxfile\.py|\.gitlab-ci\.yml"
    r"|\.travis\.yml|azure-pipelines\.yml|jenkinsfile|\.pre-commit-config\.yaml|package\.json"
    r"|package-lock\.json|yarn\.lock|pnpm-lock\.yaml|cargo\.(?:toml|lock)|go\.(?:mod|sum)"
    r"|\.gitignore|\.gitattributes|uv\.lock|poetry\.lock",
    re.IGNORECASE,
)
_BENCH_DIRS = frozenset({"benchmarks", "benchmark", "bench", "benches"})
_TEST_DIRS = frozenset({"tests", "test", "testing", "__tests__"})  # at any depth
_TEST_TOP_DIRS = _TEST_DIRS | {"spec", "e2e"}
_TEST_FILES = re.compile(
    r"test_.*\.py|.*_test\.(?:py|go|rs|cc|cpp)|.*\.(?:test|spec)\.[jt]sx?|conftest\.py"
)
# Directories that only hold the code, above the directories that name its parts.
_CONTAINERS = frozenset({"src", "lib", "pkg", "internal", "packages", "crates", "libs", "apps"})
_VERSION_DIR = re.compile(r"v\d+")


def path_area(path: str, repo: str = "") -> str | None:
    """The area one changed file speaks for: "Doc", "CI", "Benchmarks", "Tests", or the first
    directory below the package, named as written (`vllm/lora/layers.py` is "lora"; a
    `src/`, `lib/`, a directory named like the repository and a version directory like `v1/`
    are skipped). None for a file directly in the package or the repository's root."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        return None
    top, name = parts[0].lower(), parts[-1]
    if len(parts) == 1:
        if _CI_FILES.fullmatch(name):
            return "CI"
        return "Doc" if _DOC_FILES.fullmatch(name) else None
    if top in _CI_DIRS:
        return "CI"
    if top in _DOC_DIRS or _DOC_FILES.fullmatch(name):
        return "Doc"
    if top in _BENCH_DIRS:
        return "Benchmarks"
    if (
        top in _TEST_TOP_DIRS
        or _TEST_FILES.fullmatch(name)
        or any(p.lower() in _TEST_DIRS for p in parts[:-1])
    ):
        return "Tests"
    dirs = parts[:-1]
    package = {_key(repo.rpartition("/")[2])} - {""}
    while dirs and (dirs[0].lower() in _CONTAINERS or _key(dirs[0]) in package):
        dirs = dirs[1:]
    while dirs and _VERSION_DIR.fullmatch(dirs[0].lower()):
        dirs = dirs[1:]
    if not dirs:
        return None
    # A directory is named as written, except the common area names of its key: `lora/` is
    # "LoRA", `core/` "Core", so it groups with the tag. Never a kind: `features/` is a place.
    return _AREAS.get(_key(dirs[0]), dirs[0])


def area_from_paths(files: Sequence[ChangedFile], repo: str = "") -> str | None:
    """The area most of the changed files speak for (`path_area`), or None.

    Files are counted, not lines: a generated config or a moved test file should not outvote
    the change itself. Tests count only when the PR changes nothing else with an area, since
    they usually come with the code they test. Ties go to the area with more changed lines,
    then to the name first in alphabetical order.
    """
    votes: dict[str, list[int]] = {}
    tests: list[int] = [0, 0]
    for f in files:
        area = path_area(f.filename, repo)
        if area is None:
            continue
        tally = tests if area == "Tests" else votes.setdefault(area, [0, 0])
        tally[0] += 1
        tally[1] += f.additions + f.deletions
    if not votes:
        return "Tests" if tests[0] else None
    return min(votes, key=lambda a: (-votes[a][0], -votes[a][1], a.casefold(), a))


# -- the [areas] map -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AreaRule:
    """One area of the `[areas]` map: the PRs whose title has one of `tags`, or at least half
    of whose changed files match `paths` (the globs of `bot.core.globs`)."""

    name: str
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    def matches(self, pr: PullRequest, pr_tags: Sequence[str] | None = None) -> bool:
        wanted = {_key(t) for t in self.tags}
        tags = title_tags(pr.title) if pr_tags is None else pr_tags
        if wanted and any(_key(t) in wanted for t in tags):
            return True
        if not self.paths or not pr.files:
            return False
        hits = sum(1 for f in pr.files if any_glob_matches(self.paths, f.filename))
        return hits > 0 and 2 * hits >= len(pr.files)


@dataclass(frozen=True)
class AreaMap:
    """The `[areas]` table of prdigest.toml: rules in file order; the first that matches wins."""

    rules: tuple[AreaRule, ...] = ()

    def area_of(self, pr: PullRequest, pr_tags: Sequence[str] | None = None) -> str | None:
        tags = title_tags(pr.title) if pr_tags is None else pr_tags
        return next((r.name for r in self.rules if r.matches(pr, tags)), None)

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> AreaMap:
        """The map from the parsed `[areas]` table (tomllib keeps the file's order).

        Each area is a table with `paths` (a list of globs) and/or `tags` (a list of title
        tags, matched as normalized). A mistake is one ConfigurationError naming the area.
        """
        if not isinstance(table, Mapping):
            raise ConfigurationError(
                '[areas] must be a table of areas, e.g. [areas.Docs] paths = ["docs/**"]'
            )
        return cls(tuple(_rule(name, spec) for name, spec in table.items()))


def _rule(name: str, spec: Any) -> AreaRule:
    where = f"[areas.{_toml_key(name)}]"
    if not str(name).strip():
        raise ConfigurationError(f"{where}: an area needs a name")
    if not isinstance(spec, Mapping):
        raise ConfigurationError(f"{where} must be a table with paths and/or tags")
    for key in spec:
        if key not in AREA_KEYS:
            raise ConfigurationError(f"{where}: {_unknown_key(key)}; an area takes paths and tags")
    paths = _strings(where, "paths", spec.get("paths", []))
    for pattern in paths:
        try:
            compile_glob(pattern)
        except PRDigestError as exc:
            raise ConfigurationError(f"{where}: bad path glob {pattern!r}: {exc}") from None
    tags = _strings(where, "tags", spec.get("tags", []))
    normalized = tuple(normalize_tag(t.strip().strip("[]")) for t in tags)
    for tag, norm in zip(tags, normalized, strict=True):
        if not norm:
            raise ConfigurationError(f"{where}: {tag!r} is not a title tag")
    if not paths and not tags:
        raise ConfigurationError(f"{where} has no paths and no tags, so it matches nothing")
    return AreaRule(name=" ".join(str(name).split()), paths=paths, tags=normalized)


def _unknown_key(key: Any) -> str:
    """`unknown key 'path' (did you mean 'paths'?)`: a typo is named with its likely fix."""
    text = str(key)
    close = difflib.get_close_matches(text.strip().lower(), AREA_KEYS, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key {text[:40]!r}{hint}"


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigurationError(f"{where}: {key} must be a list of strings, e.g. {key} = [...]")
    return tuple(value)


def _toml_key(name: Any) -> str:
    text = str(name)
    return text if re.fullmatch(r"[A-Za-z0-9_-]+", text) else '"' + text.replace('"', '\\"') + '"'


# -- a PR's area, and a day's groups -------------------------------------------------------------


def area_of(pr: PullRequest, area_map: AreaMap | None = None) -> str:
    """The one area of `pr`: the map, else the title tags, else the paths, else "Other"."""
    tags = title_tags(pr.title)
    return (
        (area_map.area_of(pr, tags) if area_map else None)
        or area_from_tags(tags)
        or area_from_paths(pr.files, pr.repo)
        or OTHER
    )


class _NumberedPR(Protocol):
    number: int


class _Entry(Protocol):
    @property
    def pr(self) -> _NumberedPR: ...

    @property
    def area(self) -> str: ...


def group_areas(entries: Iterable[_Entry]) -> tuple[AreaGroup, ...]:
    """The day's areas: each PR in exactly one group, biggest group first, ties by name,
    "Other" last; PR numbers in the entries' order (newest merge first).

    Spellings of one name (`ModelRunner V2` and `Model Runner V2`; the tag `LoRA` and the
    directory `lora`) are one group, named as most of its PRs spell it (on a tie, a spelling
    with capitals over an all-lowercase directory name, then alphabetical order). A PR listed
    twice is counted once, under its first entry.
    """
    numbers: dict[str, list[int]] = {}
    spellings: dict[str, dict[str, int]] = {}
    seen: set[int] = set()
    for entry in entries:
        number = entry.pr.number
        if number in seen:
            continue
        seen.add(number)
        name = " ".join((entry.area or "").split()) or OTHER
        key = _key(name) or _key(OTHER)
        numbers.setdefault(key, []).append(number)
        counts = spellings.setdefault(key, {})
        counts[name] = counts.get(name, 0) + 1

    def display(key: str) -> str:
        if key == _key(OTHER):
            return OTHER
        counts = spellings[key]
        return min(counts, key=lambda s: (-counts[s], s.islower(), s.casefold(), s))

    groups = [AreaGroup(display(key), tuple(nums)) for key, nums in numbers.items()]
    return tuple(
        sorted(
            groups,
            key=lambda g: (g.name == OTHER, -len(g.numbers), g.name.casefold(), g.name),
        )
    )
