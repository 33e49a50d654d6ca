"""The ``aoti`` path: the exported program compiled ahead of time by AOTInductor into a package,
loaded and run, and compared with eager: what a server that loads the package from C++ runs.

Steps, in order: ``export`` (torch.export.export(module, inputs, strict=False), as the export
path), ``compile`` (``torch._inductor.aoti_compile_and_package``: inductor's code generation and
the C++ compiler, into a ``.pt2`` package in the job's private folder), ``load``
(``torch._inductor.aoti_load_package``), ``run`` (the loaded model on the trace inputs, on fresh
inputs and, for check=False cases, under several seeds: ``ProbeContext.verify``), ``compare``.

Its results depend on torch (common to every path) and on the C++ compiler (env ``cxx``: "g++
12.2.0"), which compiles every kernel and the model's wrapper.

Inductor is configured as the compile path configures it (``configure_inductor``: one compile
thread per worker thread), and its cache is the one every compile job uses
(``TORCHINDUCTOR_CACHE_DIR``, which ``opsweep run`` puts beside the database, under
``.opsweep/``), so a rerun reuses the generated kernels; the package itself is built anew for each
job and removed with the job's folder. A shared object of that cache left damaged by a killed
compile is handled by the job runner, as for the compile path.

``record["aoti"]`` (docs/formats.md section 3), once the package was written: its size
(``package_kb``) and the time of the compile (``compile_s``), of the export (``export_s``) and of
the load (``load_s``). Neither goes to the snapshot: the package's size differs between two
compiles of the same program (its build ids), and timings never do.
Timings: capture_s = export + compile + load; run_s = the run on the trace inputs.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import time
from typing import Any, Callable

from opsweep.paths import Outcome, PathSpec, ProbeContext, Reproducer
from opsweep.paths.compile import configure_inductor
from opsweep.paths.export import exported_state


def compile_package(program: Any, folder: str) -> str:
    """An exported program compiled by AOTInductor into ``folder/model.pt2``: the package's path."""
    import torch

    return torch._inductor.aoti_compile_and_package(program, package_path=os.path.join(folder, "model.pt2"))


def package_runner(package: str) -> Callable[[tuple[Any, ...]], list[Any]]:
    """An AOTInductor package loaded as a runner: the model called on the inputs by position under
    no_grad, its outputs as a list."""
    import torch

    model = torch._inductor.aoti_load_package(package)

    def run(inputs: tuple[Any, ...]) -> list[Any]:
        with torch.no_grad():
            out = model(*inputs)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    return run


@functools.lru_cache(maxsize=None)
def cxx_env() -> dict[str, Any]:
    """The C++ compiler AOTInductor builds the package with: inductor's default, ``$CXX`` else g++
    (``torch._inductor.config.cpp.cxx``; read without importing inductor, which a worker's start
    cannot afford), by its ``-dumpfullversion``; "" when it is not found. torch itself is common."""
    cxx = os.environ.get("CXX") or "g++"
    found = shutil.which(cxx)
    if found is None:
        return {"cxx": ""}
    try:
        out = subprocess.run([found, "-dumpfullversion"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    return {"cxx": f"{os.path.basename(cxx)} {out}".strip()}


def build_and_load(ctx: ProbeContext, program: Any, t0: float, exported: float) -> Callable[[tuple[Any, ...]], list[Any]]:
    """The exported ``program`` (export started at ``t0``, ended at ``exported``) compiled into a
    package and loaded, at steps ``compile`` and ``load``; ``record["aoti"]`` and ``capture_s`` set.
    The loaded package as a runner. Shared by the aoti and aoti-dynamic paths."""
    ctx.step = "compile"
    package = compile_package(program, ctx.workdir)
    compiled = time.perf_counter()
    ctx.fields["aoti"] = {"package_kb": round(os.path.getsize(package) / 1024.0, 1),
                          "compile_s": round(compiled - exported, 3), "export_s": round(exported - t0, 3),
                          "load_s": None}
    ctx.step = "load"
    run = package_runner(package)
    loaded = time.perf_counter()
    ctx.fields["aoti"]["load_s"] = round(loaded - compiled, 3)
    ctx.capture_s = loaded - t0
    return run


def probe_aoti(ctx: ProbeContext) -> Outcome:
    import torch

    configure_inductor(ctx.threads)
    ctx.step = "export"
    t0 = time.perf_counter()
    program = torch.export.export(ctx.module(flat_outputs=True), ctx.inputs(), strict=False)
    exported = time.perf_counter()
    run = build_and_load(ctx, program, t0, exported)
    return ctx.verify(run, "run", state=exported_state(ctx, program))


# The reproducer: the same export and AOTInductor compile (the package is written beside the
# script), then the package loaded, run and judged as verify does.
REPRO = Reproducer(
    script='''\
print("capture: torch.export.export(module(True), INPUTS, strict=False)")
try:
    program = torch.export.export(module(True), INPUTS, strict=False)
except Exception as e:
    failed("export", e)
print("compile: torch._inductor.aoti_compile_and_package(program, package_path='model.pt2')")
try:
    package = compile_package(program, HERE)
except Exception as e:
    failed("compile", e)
print(f"package: {os.path.getsize(package) / 1024.0:.1f} KiB")
try:
    run = package_runner(package)
except Exception as e:
    failed("load", e)
check(run, "run", "AOTInductor package", state=state_after_call(program.module))
print("opsweep-repro: ok: the AOTInductor package matches eager")
''',
    calls=(compile_package, package_runner),
)

PATH = PathSpec(
    id="aoti",
    title="AOTInductor",
    label="AOTI",
    description=(
        "torch.export, compiled ahead of time by AOTInductor into a package (aoti_compile_and_package), "
        "loaded (aoti_load_package), run and compared with eager"
    ),
    steps=("export", "compile", "load", "run", "compare"),
    expected_seconds=60,
    probe=probe_aoti,
    env=cxx_env,
    order=70,
    group="deployment targets",
    record_fields={"aoti": None},
    repro=REPRO,
    uses=("opsweep.paths.compile", "opsweep.paths.export"),
)
