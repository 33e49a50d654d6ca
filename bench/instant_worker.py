#!/usr/bin/env python3
"""A benchmark worker: starts exactly like ``python -m opsweep.worker`` (torch, the registries, the
library and its index: the same hello, inventory and index), then answers every job at once with a
synthetic ``ok`` record whose ``deps`` are current (functions and modules of the real index, 20 of
each, chosen by the case's name). It probes nothing.

    OPSWEEP_WORKER_CMD="python3 bench/instant_worker.py" opsweep run --db synthetic.db ...

bench/bench_refresh.py --synthetic uses it to fill a database with one current result per job of
the whole bundled survey in seconds, so that the next `opsweep run`, with the real worker, measures
the "nothing changed" path at full scale (start-up, planning 6,084 results, the database) without a
full survey. Its records are not measurements and must never reach a snapshot.
"""

from __future__ import annotations

import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

from opsweep import worker  # noqa: E402

PER_JOB = 20


def pick(names: list[str], key: str, n: int) -> list[str]:
    if not names:
        return []
    start = int.from_bytes(hashlib.blake2b(key.encode(), digest_size=4).digest(), "little") % len(names)
    return [names[(start + 37 * i) % len(names)] for i in range(min(n, len(names)))]


def main() -> int:
    args = worker.parse_args(None)
    import time

    channel = worker.start_up(args)
    loaded = worker.load(args, started=time.time())
    if not worker.send_hello(channel, loaded):
        return 2
    index = worker.index_message(loaded)
    functions, modules = sorted(index["functions"]), sorted(index["modules"])
    from opsweep.job import new_record

    while True:
        message = channel.receive()
        if message is None or message["type"] == "shutdown":
            return 0
        record = new_record()
        key = f"{message['case']}|{message['path']}"
        record.update(status="ok", detail="synthetic (bench/instant_worker.py): nothing was probed")
        record["timings"]["total_s"] = 0.0
        record["deps"] = {"functions": {n: index["functions"][n] for n in sorted(pick(functions, key, PER_JOB))},
                          "modules": {n: index["modules"][n] for n in sorted(pick(modules, key, PER_JOB))}}
        channel.send({"type": "result", "id": message["id"], "case": message["case"], "path": message["path"],
                      "record": record})


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
