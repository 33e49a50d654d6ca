"""run_job and a damaged file of inductor's cache (job.py contract, point 6): a shared object the
loader refuses as damaged is removed and the job runs once more; a second failure stands."""

import os
import types

import torch

from opsweep import case as make_case
from opsweep import evidence, job
from opsweep.paths.spec import Outcome

torch.set_num_threads(1)


def _fake_path(tmp_path, damage_every_time):
    """A path whose probe, while the cache holds no good copy of its .so, fails as inductor does
    when it loads a half-written one; with the file gone it compiles (writes it whole) and passes."""
    so = tmp_path / "cache" / "5t" / "c5t2g4x.main.so"
    so.parent.mkdir(parents=True, exist_ok=True)
    so.write_bytes(b"\x7fEL")  # what a killed compile leaves
    calls = []

    def probe(ctx):
        calls.append(so.exists())
        ctx.step = "compile"
        if damage_every_time:  # the compile is killed again: another half-written file
            so.write_bytes(b"\x7fEL")
        if so.exists() and (damage_every_time or len(calls) == 1):
            raise ImportError(f"{so}: file too short")
        so.write_bytes(b"\x7fELF whole")
        return Outcome("ok", "compile")

    return so, calls, types.SimpleNamespace(probe=probe, record_fields={})


def _job(monkeypatch, tmp_path, damage_every_time):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(evidence, "_scrubbers", {})  # a worker's cache folder is fixed; each test has its own
    so, calls, spec = _fake_path(tmp_path, damage_every_time)
    monkeypatch.setitem(job.PATHS, "fake-compile", spec)
    c = make_case("add_one", "fixtures.basic", lambda x: x + 1, [torch.ones(2, 3)])
    return so, calls, job.run_job(c, "fake-compile", library=None, threads=1)


def test_a_damaged_shared_object_is_removed_and_the_job_runs_again(monkeypatch, tmp_path):
    so, calls, record = _job(monkeypatch, tmp_path, damage_every_time=False)
    assert calls == [True, False]  # the second run found the damaged file gone
    assert record["status"] == "ok", record
    assert record["error"] is None
    assert record["notes"] == ["ran again after removing 1 damaged file(s) of the inductor cache: "
                               "<inductor-cache>/5t/c5t2g4x.main.so"]


def test_a_second_failure_of_the_kind_stands_as_measured(monkeypatch, tmp_path):
    so, calls, record = _job(monkeypatch, tmp_path, damage_every_time=True)
    assert len(calls) == 2  # once more, not in a loop
    assert record["status"] == "fail" and record["step"] == "compile"
    assert "<inductor-cache>/5t/c5t2g4x.main.so: file too short" in record["error"]["message"]
    assert record["notes"][-1].startswith("ran again after removing 1 damaged file(s)")


def test_other_failures_and_files_outside_the_cache_are_left_alone(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"))
    outside = tmp_path / "elsewhere.so"
    outside.write_bytes(b"x")
    (tmp_path / "cache" / "ab").mkdir(parents=True)
    kept = tmp_path / "cache" / "ab" / "cab.main.so"
    kept.write_bytes(b"x")
    assert job.damaged_cache_files({"detail": "<inductor-cache>/../elsewhere.so: file too short"}) == []
    assert job.damaged_cache_files({"detail": "<inductor-cache>/ab/cab.main.so: undefined symbol: f"}) == []
    assert job.damaged_cache_files({"error": {"message": "<inductor-cache>/ab/cab.main.so: invalid ELF header"}}) == [
        str(kept)]
    monkeypatch.delenv("TORCHINDUCTOR_CACHE_DIR")
    assert job.damaged_cache_files({"detail": "<inductor-cache>/ab/cab.main.so: file too short"}) == []
