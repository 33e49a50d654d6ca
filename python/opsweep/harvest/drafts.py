"""Draft registries: the harvested cases as the suite will load them, each line guarded.

A draft registry (``assemble draft``) is the final registry with every case written
``("name", lambda: case(...))``: ``built(__file__, entries)`` builds them one by one, so a line
whose target cannot be built again when the registry loads (a constructor that raised the second
time) costs that case only. ``FAILED`` keeps why, by case name, for the checks to report (the case
is dropped: its final line would make the whole registry fail to load).
"""

from __future__ import annotations

from typing import Any, Callable

FAILED: dict[str, str] = {}


def built(registry_file: str, entries: list[tuple[str, Callable[[], Any]]]) -> list:
    from opsweep.toolkit.harvested import harvested_cases

    cases = []
    for name, build in entries:
        try:
            cases.append(build())
        except Exception as e:  # noqa: BLE001 - the case's line fails; the others stand
            from opsweep.harvest.worker import error_text

            FAILED[name] = error_text(e)[:200]
    return harvested_cases(registry_file, cases)
