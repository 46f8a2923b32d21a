"""Where new code is reached from: the code that was there that calls a new definition, and
the `if` it calls it under.

"`generate_timeline_plot` is new and no test covers it" tells a reviewer little; where it
runs tells them who meets a mistake in it. vLLM #35220's `main_async` calls it only where
`start_times and ttfts and itls` holds; #32365's `NixlConnectorWorker` calls
`discover_numa_topology` only where `self.device_type == "cpu"`. The call sites are in the
diff, on lines the PR adds to code that was there; a call from another new definition says
nothing of the reach.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.models import PullRequest
from summarizer.code_hunks import code_hunks, if_condition
from summarizer.facts import Definition, line_owner, short_name


@dataclass(frozen=True)
class Reach:
    definition: str  # the new definition, as its facts name it
    caller: str  # the definition of code that was there that calls it
    condition: str  # the `if` the call stands under


def reach(pr: PullRequest, new: list[Definition]) -> Reach | None:
    """The first call, under an `if`, of one of the `new` definitions from code the PR does
    not add, in the order of `new`."""
    added = {d.name for d in new}
    # A method named one plain word (`observe`) shares its name with other objects' methods.
    for d in [d for d in new if "." not in d.name or "_" in short_name(d.name).strip("_")]:
        name = re.escape(short_name(d.name))
        call = re.compile(rf"(?:(?<![\w.])|(?<=\.)){name}\(")
        for path, hunk in code_hunks(pr):
            for row in sorted(hunk.new.changed):
                line = hunk.new.lines[row]
                if not call.search(line) or line.lstrip().startswith(("def ", "async def ")):
                    continue
                caller = line_owner(path, hunk, True, row)
                condition = if_condition(hunk.new, row)
                if caller and caller not in added and condition:
                    return Reach(d.name, caller, condition)
    return None


def reach_clause(r: Reach) -> str:
    """ "`main_async` calls `generate_timeline_plot` only where `x` holds" """
    return f"`{r.caller}` calls `{short_name(r.definition)}` only where `{r.condition}` holds"
