"""Which cases of a suite update their module's state (opsweep/state.py): each case's target built
and called once on its trace inputs, as the eager reference of every job is. The cases it lists are
the only ones whose results the state check can change (the harness migration that introduced the
check names them by their records' state-check text; a suite without any has nothing to re-run).

    PYTHONPATH=python python3 scripts/state_scan.py python/opsweep_suites/kornia [--json OUT]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

import torch


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", help="a suite folder (its cases_*.py registries)")
    parser.add_argument("--json", help="write {case: [state names]} here")
    args = parser.parse_args()
    from opsweep import state
    from opsweep.case import materialize
    from opsweep.case_module import fresh_inputs, make_module
    from opsweep.randomness import seed_everything
    from opsweep.registry import load_registries

    torch.set_num_threads(1)
    files = sorted(glob.glob(os.path.join(args.suite, "cases_*.py")))
    cases = load_registries(files)
    found: dict[str, list[str]] = {}
    raised = 0
    t0 = time.monotonic()
    for i, lc in enumerate(cases, 1):
        case = lc.case
        if case.skip:
            continue
        try:
            case = materialize(case)
            module = make_module(case, flat_outputs=False)
            before = state.snapshot(module)
            seed_everything(0)
            with torch.no_grad():
                module(*fresh_inputs(case))
            changed = state.updated(module, before)
        except Exception:  # noqa: BLE001 - a case eager cannot run is n/a on every path
            raised += 1
            continue
        if changed:
            found[case.name] = sorted(changed)
            print(f"{case.name}: {', '.join(sorted(changed))}", flush=True)
        if i % 200 == 0:
            print(f"state_scan: {i}/{len(cases)} cases, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    print(f"state_scan: {len(found)} of {len(cases)} cases update their module's state "
          f"({raised} raised in eager), {time.monotonic() - t0:.0f} s", file=sys.stderr)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(found, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
