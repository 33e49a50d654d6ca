#!/usr/bin/env python3
"""A fake opsweep worker: speaks protocol 3 (docs/formats.md section 2) and needs no torch.

The engine runs it through OPSWEEP_WORKER_CMD="python3 tests/fake_workers/fake_worker.py". Its
registries are JSON files (--registry FILE, repeatable):

  {"harness": "h1",                         # optional; hello.harness
   "env": {"torch": "2.13.0+cpu"},          # optional; merged into hello.env
   "paths": ["onnx", "export", "compile"],  # optional; the ids of hello.paths: the bundled paths are
                                            #   described as tests/fixtures/paths.json says, others
                                            #   get a made-up description (steps ["capture"])
   "describe": {"onnx": {"harness": "x"}},  # optional; fields that replace those of a description
   "startup": {"sleep": 0, "error": null, "exit": null, "garbage": false, "protocol": 3},
   "index": {"functions": {"lib/a.py:f": "d1"}, "modules": {"lib/a.py": "m1"}},   # optional; the
                                            #   index message (default: empty maps); a file name
                                            #   (a string) is read at start-up instead
   "state_dir": "/tmp/x",                   # optional; where once-only behaviours keep markers
   "journal": "/tmp/x/journal",             # optional; "case|path" appended as each job starts
   "cases": [{"name": "a", "group": "color", "fingerprint": "f1",
              "do": "ok",                   # default behaviour for every path
              "paths": {"compile": "segv"}, # optional per-path behaviour
              "sleep": 0.0,                 # optional seconds before the behaviour
              "deps": {"functions": {...}, "modules": {...}},  # optional; record.deps (else null)
              "subverdicts": {"onnx": {"openvino": {"status": "fail", "step": "load", ...}}},
                                            # optional; record.subverdicts of a path's results
              "recipe": "r1",               # optional; the inventory entry's recipe
              "later": {"fingerprint": "f2"}}]}   # optional; see below

A case's "later" (needs "state_dir") applies to every worker but the first to start: its fields
replace the case's in the inventory ({"fingerprint": "f2"}: a registry that draws other inputs in
each process), and "later": null leaves the case out of their inventory (a registry that changed).

`--library NAME` becomes hello.env.library.name; `--opsets LIST` becomes hello.env.opsets. A case without "do" takes its behaviour from its name's first word (split on "_"), so a case named
"segv_blur" segfaults. Behaviours:
  ok, fail, mismatch, na     a result with that status
  sleep                      same as ok (use "sleep" for the duration)
  hang                       never answers
  segv                       kills itself with SIGSEGV
  exit7                      os._exit(7)
  flood                      writes 8 MB to stdout (the log), then ok
  badjson                    writes a line that is not JSON on the protocol
  wrongid                    answers with another job id
  badstatus                  answers with status "crash" (engine-only)
  poisoned                   sends poisoned (without a record), exits 3
  poisononce                 poisoned the first time (marker in state_dir), ok afterwards
  poisonrecord               sends poisoned with the job's record (status fail), exits 3
  alloc                      allocates and touches 600 MB, then waits (for the memory limit)
"""

import argparse
import json
import os
import signal
import sys
import time

BUNDLED_PATHS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "paths.json")


def describe(ids, overrides):
    """Protocol 2 path descriptions for these ids."""
    with open(BUNDLED_PATHS, encoding="utf-8") as f:
        bundled = {d["id"]: d for d in json.load(f)}
    out = []
    for i, pid in enumerate(ids):
        d = dict(bundled.get(pid) or {
            "id": pid, "title": pid.capitalize(), "label": pid, "description": f"the made-up path {pid}",
            "steps": ["capture"], "expected_seconds": 1, "order": 100 + i, "env": ["python", "torch"],
            "subverdicts": [], "harness": f"harness-{pid}"})
        d.update(overrides.get(pid, {}))
        out.append(d)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proto-in", type=int, required=True)
    ap.add_argument("--proto-out", type=int, required=True)
    ap.add_argument("--registry", action="append", default=[])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--library", default=None)
    ap.add_argument("--opsets", default=None)  # the real worker's onnx opsets: recorded in hello.env
    args, _ = ap.parse_known_args()
    proto_in = os.fdopen(args.proto_in, "r", encoding="utf-8")
    proto_out = os.fdopen(args.proto_out, "w", encoding="utf-8")

    def send(obj):
        proto_out.write(json.dumps(obj) + "\n")
        proto_out.flush()

    config = {"cases": []}
    for reg in args.registry:
        try:
            with open(reg, encoding="utf-8") as f:
                data = json.load(f)
        except Exception as e:  # noqa: BLE001 - reported like a registry error
            send({"type": "error", "message": f"{os.path.basename(reg)}: cannot load: {e}"})
            sys.exit(2)
        for k, v in data.items():
            if k == "cases":
                config["cases"].extend(v)
            else:
                config[k] = v
    startup = config.get("startup", {})
    print(f"fake worker {os.getpid()} starting (threads={args.threads}, OMP={os.environ.get('OMP_NUM_THREADS')}, "
          f"memory limit {os.environ.get('OPSWEEP_MEMORY_LIMIT_MIB')} MiB)", flush=True)
    time.sleep(startup.get("sleep", 0))
    if startup.get("exit") is not None:
        print("fake worker: exiting at startup as asked", flush=True)
        os._exit(startup["exit"])
    if startup.get("garbage"):
        proto_out.write("this is not a hello\n")
        proto_out.flush()
        time.sleep(30)
    names = [c["name"] for c in config["cases"]]
    dup = {n for n in names if names.count(n) > 1}
    if startup.get("error") or dup:
        msg = startup.get("error") or f"duplicate case name '{sorted(dup)[0]}'"
        send({"type": "error", "message": msg})
        sys.exit(2)
    env = {"python": "3.11.0", "torch": "2.13.0+cpu", "onnx": "1.0", "onnxscript": "0.1", "onnxruntime": "1.0",
           "numpy": "2.0", "opset": 18, "device": "cpu",
           "library": {"name": "kornia", "version": "0.9.0", "fingerprint": "lib1"}}
    env.update(config.get("env", {}))
    if args.library:
        env["library"] = dict(env["library"], name=args.library)
    if args.opsets:
        env["opsets"] = args.opsets
    paths = describe(config.get("paths", ["onnx", "export", "compile"]), config.get("describe", {}))
    steps = {d["id"]: d["steps"] for d in paths}
    send({"type": "hello", "protocol": startup.get("protocol", 3), "pid": os.getpid(),
          "harness": config.get("harness", "harness1"), "paths": paths, "env": env})
    state_dir = config.get("state_dir")
    later = False  # not the first worker to start: cases' "later" apply
    if state_dir:
        try:
            os.close(os.open(os.path.join(state_dir, "first-worker-started"), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            later = True
    by_name = {}
    inventory = []
    for c in config["cases"]:
        if later and "later" in c:
            if c["later"] is None:
                continue
            c = dict(c, **c["later"])
        by_name[c["name"]] = c
        inventory.append({"name": c["name"], "group": c.get("group", "misc"), "registry": "fake.json",
                          "fingerprint": c.get("fingerprint", "fp-" + c["name"]), "target": "fake." + c["name"],
                          "check": True, "skip": None, "note": "", "tags": [], "method": None, "origin": "fake.json:1",
                          **({"recipe": c["recipe"]} if "recipe" in c else {})})
    send({"type": "inventory", "cases": inventory})
    index = config.get("index", {})
    if isinstance(index, str):
        with open(index, encoding="utf-8") as f:
            index = json.load(f)
    send({"type": "index", "version": 3, "library": env["library"]["name"],
          "functions": index.get("functions", {}), "modules": index.get("modules", {})})

    for line in proto_in:
        msg = json.loads(line)
        if msg.get("type") == "shutdown":
            break
        jid, name, path = msg["id"], msg["case"], msg["path"]
        c = by_name.get(name, {})
        if config.get("journal"):
            with open(config["journal"], "a", encoding="utf-8") as j:
                j.write(f"{name}|{path}\n")
        behaviour = c.get("paths", {}).get(path) or c.get("do") or name.split("_")[0]
        time.sleep(c.get("sleep", 0))

        def record(status, detail=""):
            return {"status": status, "step": "" if status == "ok" else steps.get(path, ["worker"])[0],
                    "detail": detail, "error": None, "graph_breaks": None, "break_reasons": [], "onnx": None,
                    "outputs": None, "timings": {"total_s": 0.0}, "sources": [], "deps": c.get("deps"),
                    "subverdicts": c.get("subverdicts", {}).get(path, {})}

        def result(status, detail=""):
            send({"type": "result", "id": jid, "case": name, "path": path, "record": record(status, detail)})

        if behaviour == "hang":
            time.sleep(3600)
        elif behaviour == "segv":
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(10)
        elif behaviour == "exit7":
            os._exit(7)
        elif behaviour == "flood":
            chunk = "x" * 1023 + "\n"
            sys.stdout.write(chunk * 8192)
            sys.stdout.flush()
            result("ok")
        elif behaviour == "badjson":
            proto_out.write("{not json\n")
            proto_out.flush()
            time.sleep(30)
        elif behaviour == "wrongid":
            send({"type": "result", "id": jid + 1000, "case": name, "path": path, "record": {"status": "ok"}})
            time.sleep(30)
        elif behaviour == "badstatus":
            result("crash")
            time.sleep(30)
        elif behaviour == "poisoned" or (behaviour == "poisononce" and state_dir
                                         and not os.path.exists(os.path.join(state_dir, f"{name}.{path}.poisoned"))):
            if state_dir:
                open(os.path.join(state_dir, f"{name}.{path}.poisoned"), "w").close()
            send({"type": "poisoned", "id": jid, "case": name, "path": path, "reason": "default dtype changed to float64"})
            sys.exit(3)
        elif behaviour == "poisonrecord":
            send({"type": "poisoned", "id": jid, "case": name, "path": path,
                  "reason": "inference mode changed from False to True", "record": record("fail", "fake fail")})
            sys.exit(3)
        elif behaviour == "alloc":
            block = bytearray(b"\x01") * (600 << 20)
            time.sleep(60)
            del block
            result("ok")
        elif behaviour in ("fail", "mismatch"):
            result(behaviour, "fake " + behaviour)
        elif behaviour == "na":
            result("n/a", "fake n/a")
        else:
            result("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
