"""Facts: what a path found beyond its verdict that the page shows (a display field).

A path declares its facts once, in ``PathSpec.facts``; each names a value of the path's own record
fields (``PathSpec.record_fields``) by a dotted ``field`` ("executorch.delegated_share"). The
engine reads the declaration from the path's description (docs/formats.md section 1), merge copies
each fact's value from the record into the snapshot's outcome (``facts``, section 5), and the page
shows it: every fact in the row's details, a ``cell`` fact beside the verdict ("yes, XNNPACK 72%"),
and a ``flag`` fact as a filter of the rows where the path is supported and the flag is set
("runs, but not delegated to XNNPACK"). Nothing in the engine names a fact.

Kinds (the value's form in the record, and how the page writes it):
- ``share``: a number from 0 to 1, written as a percentage ("72%");
- ``count``: a whole number;
- ``kb``: a size in KiB ("22.3 KiB");
- ``text``: a string;
- ``counts``: an object name -> whole number ("aten.where.self ×4, aten.convolution.default");
- ``flag``: true or false; shown only as its filter.

A fact's value must not be a timing or anything else that differs between two runs of the same
job (the snapshot is byte-identical when regenerated, and re-measured results only differ where
the library or the environment did): keep those in the record only.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

KINDS = ("share", "count", "kb", "text", "counts", "flag")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclasses.dataclass(frozen=True)
class Fact:
    """One display field of a path (see the module docstring)."""

    id: str  # persisted (the snapshot's key, the filter's name): lowercase letters, digits, '_'
    title: str  # for the details and the filter: "share of the operators XNNPACK runs"
    kind: str  # one of KINDS
    field: str  # where the record holds it: "<record field>[.<key>...]"
    label: str = ""  # short, before the value in the cell: "XNNPACK" (cell facts)
    cell: bool = False  # shown beside the verdict in the path's cell

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"fact id {self.id!r}: lowercase letters, digits and '_'")
        if self.kind not in KINDS:
            raise ValueError(f"fact {self.id!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if not self.field or any(not part for part in self.field.split(".")):
            raise ValueError(f"fact {self.id!r}: field {self.field!r} is not a dotted record field")
        if self.cell and (self.kind == "flag" or not self.label):
            raise ValueError(f"fact {self.id!r}: a cell fact needs a label and a value to show")

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "kind": self.kind, "field": self.field,
                **({"label": self.label} if self.label else {}), **({"cell": True} if self.cell else {})}


def check_facts(path_id: str, facts: tuple[Fact, ...], record_fields: dict[str, Any]) -> None:
    """A path's facts name distinct ids and fields the path itself writes (raises ValueError)."""
    seen: set[str] = set()
    for fact in facts:
        if fact.id in seen:
            raise ValueError(f"path {path_id}: fact {fact.id!r} declared twice")
        seen.add(fact.id)
        if fact.field.split(".", 1)[0] not in record_fields:
            raise ValueError(f"path {path_id}: fact {fact.id!r} reads {fact.field!r}, not one of the path's record fields")
