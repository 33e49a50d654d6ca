"""Run the cases of registry files eagerly, as the harness's eager reference does, and say for each
whether it returns tensors: `python scripts/check_eager.py REGISTRY... [-k SUBSTRING]`.

For registry authors: a new case must run eagerly and return tensors (or be a real defect of the
library, recorded as such). Prints one line per case (status, seconds, output shapes or the error)
and exits 1 when any case raises or returns no tensor.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings

import torch


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("registries", nargs="+")
    ap.add_argument("-k", default="")
    ap.add_argument("--slow", type=float, default=2.0, help="flag cases slower than this (seconds)")
    args = ap.parse_args(argv)
    from opsweep.case import materialize
    from opsweep.flatten import flatten
    from opsweep.case_module import fresh_inputs, make_module
    from opsweep.randomness import seed_everything
    from opsweep.registry import load_registries

    bad = 0
    for loaded in load_registries(args.registries):
        c = loaded.case
        if args.k not in c.name:
            continue
        if c.skip:
            print(f"SKIP      {c.name}: {c.skip}")
            continue
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c = materialize(c)  # a lazy target is built now, as a job does
                module = make_module(c, flat_outputs=False)
                seed_everything(0)
                with torch.no_grad():
                    out = flatten(module(*fresh_inputs(c)))
        except Exception as e:  # noqa: BLE001
            bad += 1
            print(f"RAISE     {c.name}: {type(e).__name__}: {' '.join(str(e).split())[:200]}")
            continue
        dt = time.perf_counter() - t0
        if not out:
            bad += 1
            print(f"NO-TENSOR {c.name}")
            continue
        nonfinite = sum(int(not torch.isfinite(t).all()) for t in out if t.is_floating_point())
        flag = " SLOW" if dt > args.slow else ""
        flag += f" NONFINITE({nonfinite})" if nonfinite else ""
        print(f"OK{flag:8s}{dt:6.2f}s {c.name}: {[list(t.shape) for t in out][:4]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
