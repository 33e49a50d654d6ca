"""What a probe works with: ``ProbeContext``, and how a captured program is judged.

Contract of a probe (``PathSpec.probe``, paths/spec.py)::

    def probe_xxx(ctx: ProbeContext) -> Outcome

- The job runner (job.py) has already computed the eager reference (``ctx.expected``) and handled
  the n/a cases; a probe only captures, runs and judges.
- Before each stage the probe sets ``ctx.step`` (a step name of docs/formats.md section 1). An
  exception that escapes the probe is data: the runner records status ``fail`` at ``ctx.step``.
- The probe returns an ``Outcome`` (status, step, detail). ``ctx.verify(run, run_step)`` runs a
  captured program and judges it: on the trace inputs, on the fresh input set (opsweep/fresh_set.py)
  and, for check=False cases, under several seeds (opsweep/randomness.py); ``ctx.judge(outputs)``
  and ``ctx.judge_against(expected, outputs, ...)`` implement the comparison rules for both
  check=True and check=False cases. Every check's result goes to ``ctx.checks``.
- Optional findings go on the context: ``capture_s`` / ``run_s`` timings, ``side_error`` (an
  exception that did not stop the job, e.g. a failed explain; recorded as the record's
  ``error``), ``notes`` (extra detail text), and the record fields the path declares
  (``PathSpec.record_fields``) in ``ctx.fields``.
- ``ctx.module(flat_outputs=...)`` gives a fresh ``CaseModule`` (a deep copy of the target, in
  eval mode for check=True cases); ``ctx.inputs()`` fresh copies of the inputs.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from typing import Any, Callable

import torch

from opsweep.case import Case
from opsweep.case_module import CaseModule, fresh_inputs, make_module
from opsweep.compare import as_tensor, check_unverified, compare, seed_varying_dims
from opsweep.evidence import first_line, scrub
from opsweep.fresh_set import FreshSet, fresh_sets, perturbed, set_words, SET_WORDS
from opsweep.library import Library
from opsweep.paths.spec import Outcome
from opsweep.randomness import (
    FROZEN_ALPHA,
    MORE_RANDOM_SEEDS,
    RANDOM_SEEDS,
    commonest_count,
    frozen_bound,
    outputs_equal,
    seed_everything,
    varying_outputs,
)

# Detail prefixes the reason rules key on (rules/outcomes.json); part of the record format.
FRESH_MISMATCH = "matches eager on its trace inputs only; on fresh inputs"
# What a passed fresh-input check adds when a set differed only by the target's own state.
FRESH_STATEFUL = "the target keeps state between calls: matches eager called with the same history"
RANDOMNESS_FROZEN = "randomness frozen at capture"
# A check=False case that draws no randomness reaching its outputs, and differs from eager.
DETERMINISTIC_MISMATCH = "no randomness reaches the outputs (eager's are the same under every seed), and they differ"
# A capture whose outputs match but which does not leave the module's state as eager's call does
# (opsweep/state.py).
STATE_LOST = "state update lost"


@dataclasses.dataclass
class Check:
    """One extra check of a captured program (docs/formats.md section 3, ``checks``)."""

    ran: bool
    passed: bool | None = None
    why: str = ""  # when it did not run: the reason; when it failed: what differed

    def as_record(self) -> dict[str, Any]:
        return {"ran": self.ran, "passed": self.passed, "why": self.why}


# A captured program run on a given input set: inputs -> flat outputs. The caller seeds torch /
# numpy / random right before the call (runtimes without an RNG ignore it).
Runner = Callable[[tuple[torch.Tensor, ...]], list[Any]]
# The eager reference: calls (inputs, seed) made in turn on ONE fresh module, each call's flat
# outputs (job.py ``eager_calls``). One call is the plain reference; several reproduce a history.
EagerFn = Callable[[list[tuple[tuple[torch.Tensor, ...], int]]], list[list[torch.Tensor]]]


class RecordFields(dict):
    """A path's own record fields by name (``PathSpec.record_fields``): setting a field the path
    did not declare raises KeyError, so a misspelt name is no silent extra field."""

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self:
            raise KeyError(f"record field {key!r} is not declared by the path (PathSpec.record_fields)")
        super().__setitem__(key, value)


@dataclasses.dataclass
class ProbeContext:
    """What a probe works with (see the module docstring): the case, eager's outputs, the job's
    resources, and what the probe found for the record."""

    case: Case
    expected: list[torch.Tensor]  # flattened eager outputs on the trace inputs, seed 0
    threads: int
    workdir: str  # a private temp dir for this job, removed afterwards
    library: Library | None = None
    eager: EagerFn | None = None  # the eager reference on other inputs / seeds
    step: str = ""
    capture_s: float | None = None
    run_s: float | None = None
    side_error: BaseException | None = None
    notes: list[str] = dataclasses.field(default_factory=list)  # extra detail text
    checks: dict[str, Check] = dataclasses.field(default_factory=dict)
    # The record fields the path declares (PathSpec.record_fields), preset to their empty values:
    # the compile path's graph_breaks, the onnx paths' onnx, the dynamic-shape paths' dynamic ...
    fields: RecordFields = dataclasses.field(default_factory=lambda: RecordFields())
    # The engine's time limit of this job (s) and the time.monotonic() at which it kills the worker;
    # None when the job has none. The sub-verdicts stop before it (runtimes/verdicts.py), so the
    # path's own verdict, known by then, is not lost to a slow sub-verdict.
    timeout_s: float | None = None
    deadline: float | None = None
    # The state eager's call on the trace inputs updated (opsweep/state.py ``updated``): name ->
    # value after the call; empty when the call updates none (the usual case).
    state_expected: dict[str, Any] = dataclasses.field(default_factory=dict)
    _fresh: tuple[list[FreshSet], str] | None = None
    _eager_cache: dict[Any, list[torch.Tensor] | BaseException] = dataclasses.field(default_factory=dict)

    def module(self, flat_outputs: bool) -> CaseModule:
        return make_module(self.case, flat_outputs)

    def inputs(self) -> tuple[torch.Tensor, ...]:
        return fresh_inputs(self.case)

    def fresh_sets(self) -> tuple[list[FreshSet], str]:
        """The fresh input sets (drawn once per job; fresh copies on every call) or ([], why there
        are none)."""
        sets, why = self._drawn_sets()
        return [(name, tuple(x.clone() for x in inputs)) for name, inputs in sets], why

    def _drawn_sets(self) -> tuple[list[FreshSet], str]:
        if self._fresh is None:
            self._fresh = fresh_sets(self.case)
        return self._fresh

    def _input_set(self, which: str) -> tuple[torch.Tensor, ...]:
        """The inputs called ``which``: ``trace``, a fresh set's name, or ``perturbed:<name>``."""
        if which == "trace":
            return self.inputs()
        name = which.removeprefix("perturbed:")
        found = dict(self._drawn_sets()[0])[name]
        return perturbed(found, self.case.name) if which != name else tuple(x.clone() for x in found)

    def eager_on(self, which: str, seed: int) -> list[torch.Tensor] | BaseException:
        """Eager's flat outputs on the inputs called ``which`` (``_input_set``) under ``seed``, each
        on a fresh module (cached); the exception when eager raises there."""
        return self.eager_history([(which, seed)])

    def eager_history(self, calls: list[tuple[str, int]]) -> list[torch.Tensor] | BaseException:
        """Eager's flat outputs of the LAST of ``calls`` ((input set name, seed) pairs) made in
        turn on one fresh module (cached); the exception when eager raises."""
        key = tuple(calls)
        if key not in self._eager_cache:
            try:
                if self.eager is None:
                    raise RuntimeError("no eager reference function in this context")
                outs = self.eager([(self._input_set(which), seed) for which, seed in calls])
                self._eager_cache[key] = outs[-1]
            except Exception as e:  # noqa: BLE001 - eager failing here is a reason not to check
                self._eager_cache[key] = e
        return self._eager_cache[key]

    def seed_varying_dims(self, which: str | tuple[torch.Tensor, ...]) -> dict[int, set[int]]:
        """The dimensions of each output whose size varies with the seed in eager, on the ``which``
        inputs (as ``judge_against``), under seed 0 and MORE_RANDOM_SEEDS (compare.seed_varying_dims).
        Seeds under which eager raises are left out."""
        shapes = []
        for seed in (0, *MORE_RANDOM_SEEDS):
            if isinstance(which, str):
                out = self.eager_on(which, seed)
            else:
                try:
                    if self.eager is None:
                        raise RuntimeError("no eager reference function in this context")
                    out = self.eager([(tuple(x.clone() for x in which), seed)])[-1]
                except Exception as e:  # noqa: BLE001 - a seed eager raises under tells nothing
                    out = e
            if not isinstance(out, BaseException):
                shapes.append([list(as_tensor(x).shape) for x in out])
        return seed_varying_dims(shapes)

    def op_call_stack(self, ops: list[Any]) -> list[tuple[str, int]]:
        """Where the eager call (trace inputs, seed 0) first invokes one of the aten ``ops``
        (OpOverload or OpOverloadPacket): the Python stack at that moment as ``(filename, line)``
        pairs, outermost first; [] when it never does or eager raises. For failures raised while
        a captured graph is translated, when no library frame is on the stack."""
        if self.eager is None or not ops:
            return []
        from torch.utils._python_dispatch import TorchDispatchMode

        packets = {getattr(op, "overloadpacket", op) for op in ops}

        class Recorder(TorchDispatchMode):
            stack: list[tuple[str, int]] | None = None

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                if Recorder.stack is None and getattr(func, "overloadpacket", func) in packets:
                    frames = traceback.StackSummary.extract(traceback.walk_stack(None), lookup_lines=False)
                    Recorder.stack = [(f.filename, f.lineno or 0) for f in reversed(frames)]
                return func(*args, **(kwargs or {}))

        try:
            with Recorder():
                self.eager([(self.inputs(), 0)])
        except Exception:  # noqa: BLE001 - a location is a bonus; eager already ran once
            pass
        return Recorder.stack or []

    def judge(self, actual: list[Any], ok_status: str = "ok", ok_detail: str = "") -> Outcome:
        """Compare ``actual`` (flat, on the trace inputs) with eager by the case's rules."""
        self.step = "compare"
        return self.judge_against(self.expected, actual, ok_status, ok_detail)

    def judge_against(self, expected: list[torch.Tensor], actual: list[Any], ok_status: str, ok_detail: str,
                      which: str | tuple[torch.Tensor, ...] = "trace") -> Outcome:
        """Compare ``actual`` with ``expected`` (eager on the same inputs) by the case's rules:
        ``ok_status`` / ``ok_detail`` when they pass (``ok-unverified`` for a check=False case),
        else a mismatch at ``compare``. ``which``: the inputs both sides ran on (``trace``,
        ``fresh``, or the tensors of another input set), for a check=False case's output shapes
        that vary with the seed. Sets no step."""
        if self.case.check:
            problem = compare(expected, actual, self.case.atol, self.case.rtol)
            if problem is None:
                return Outcome(ok_status, "", ok_detail)
            return Outcome("mismatch", "compare", problem)
        problem = check_unverified(expected, actual, lambda: self.seed_varying_dims(which))
        if problem is None:
            return Outcome("ok-unverified", "", ok_detail)
        return Outcome("mismatch", "compare", problem)

    def verify(self, run: Runner, run_step: str, ok_status: str = "ok", ok_detail: str = "",
               ok: Callable[[], tuple[str, str]] | None = None,
               state: torch.nn.Module | Callable[[list[str]], dict[str, Any]] | None = None) -> Outcome:
        """Run a captured program and judge it: on the trace inputs, on fresh inputs, and (for
        check=False cases) under several seeds. The first check that fails decides the outcome.

        ``run(inputs)`` calls the captured program; it runs at step ``run_step`` (an exception
        escapes to the job runner as a failure at that step; raised on the fresh inputs only, it
        carries ``opsweep_fresh_inputs``). Every check's result is kept in ``checks`` (the
        record's ``checks``), run or not, with why. ``run_s`` is the call on the trace inputs.
        ``ok``, when given, is called once after that first call returned and gives the status and
        detail of a pass (``ok_status``, ``ok_detail``): what only the first call can tell (the
        compile path's graph breaks, counted while that call traced).
        ``state``: the captured module whose state the first call updates as eager's did (the
        exported program's module, the compiled module), or a function that gives the state the
        capture leaves under the names it is given (the deployment paths: the exported program
        they compile, called once); None for a capture that returns outputs only (an ONNX graph). When eager's call updates the module's state
        (``state_expected``), the state after the first call is compared with eager's
        (``checks["state"]``): a capture that does not keep the update is a mismatch
        (``STATE_LOST``), even when its outputs match.
        """
        self.step = run_step
        seed_everything(0)
        t0 = time.perf_counter()
        actual = run(self.inputs())
        self.run_s = time.perf_counter() - t0
        if ok is not None:
            ok_status, ok_detail = ok()
        outcome = self.judge(actual, ok_status, ok_detail)
        if outcome.status != "mismatch" and self.state_expected:
            outcome = self.check_state(state, outcome)
        elif self.state_expected:
            self.checks["state"] = Check(False, None, "the capture already differs on its trace inputs")
        if outcome.status == "mismatch":
            already = ("the capture already loses the state update" if outcome.detail.startswith(STATE_LOST)
                       else "the capture already differs on its trace inputs")
            self.checks["fresh_inputs"] = Check(False, None, already)
            if not self.case.check:
                self.checks["randomness"] = Check(False, None, already)
            return outcome
        fresh = self.check_fresh(run, run_step, ok_status, ok_detail)
        if fresh is not None:
            return fresh
        if not self.case.check:
            random = self.check_randomness(run, run_step, actual, ok_detail)
            if random is not None:
                return random
        return outcome

    def check_state(self, captured: torch.nn.Module | Callable[[list[str]], dict[str, Any]] | None,
                    outcome: Outcome) -> Outcome:
        """The state check of ``verify``, right after the first call: ``outcome`` when the captured
        module's state is eager's after the call, else the mismatch (``STATE_LOST: ...``). For a
        check=False case only the state's shapes and dtypes are compared (its values are draws)."""
        from opsweep.state import capture_problem

        self.step = "compare"
        problem = capture_problem(self.state_expected, captured, self.case.check, self.case.atol, self.case.rtol)
        if problem is None:
            self.checks["state"] = Check(True, True, "")
            return outcome
        self.checks["state"] = Check(True, False, problem)
        return Outcome("mismatch", "compare", f"{STATE_LOST}: {problem}")

    def check_fresh(self, run: Runner, run_step: str, ok_status: str, ok_detail: str) -> Outcome | None:
        """The fresh-input check of ``verify`` (after the trace inputs passed): ``run`` on each fresh
        input set (opsweep/fresh_set.py) against eager there; the first mismatch (detail
        ``FRESH_MISMATCH (<set>): ...``) when one fails, else None. Its result, with the sets that
        ran, goes to ``checks["fresh_inputs"]``; an exception of ``run`` escapes marked
        ``opsweep_fresh_inputs``."""
        sets, why = self.fresh_sets()
        if not sets:
            self.checks["fresh_inputs"] = Check(False, None, why)
            return None
        called: list[str] = []  # the sets the capture has been run on, in order (its history)
        ran: list[str] = []  # those that decided
        skipped: list[str] = []  # why a set decided nothing
        stateful = False
        for name, inputs in sets:
            words = SET_WORDS.get(name, name)
            expected = self.eager_on(name, 0)
            if isinstance(expected, BaseException):
                skipped.append(f"eager raised on the {words} set: {_describe(expected)}")
                continue
            self.step = run_step
            seed_everything(0)
            try:
                actual = run(inputs)
            except Exception as e:  # noqa: BLE001
                self.checks["fresh_inputs"] = Check(True, False, f"raised {type(e).__name__} on the {words} set")
                e.opsweep_fresh_inputs = True  # type: ignore[attr-defined]
                raise
            self.step = "compare"
            kind, detail = self._judge_fresh_set(name, called, expected, actual, ok_status, ok_detail)
            called.append(name)
            if kind == "mismatch":
                self.checks["fresh_inputs"] = Check(True, False, f"on the {words} set: {detail}")
                return Outcome("mismatch", "compare", f"{FRESH_MISMATCH} ({words}): {detail}")
            if kind == "undecided":
                skipped.append(detail)
                continue
            stateful = stateful or kind == "stateful"
            ran.append(name)
        if not ran:
            self.checks["fresh_inputs"] = Check(False, None, "; ".join(skipped))
            return None
        notes = [FRESH_STATEFUL] if stateful else []
        self.checks["fresh_inputs"] = Check(True, True, "; ".join([set_words(ran), *notes, *skipped]))
        return None

    def _judge_fresh_set(self, name: str, before: list[str], expected: list[torch.Tensor], actual: list[Any],
                         ok_status: str, ok_detail: str) -> tuple[str, str]:
        """One fresh set's judgement, (kind, detail): ``passed``; ``stateful`` (the difference is the
        target's own state between calls); ``undecided`` (eager itself is unstable on the set: the
        detail says so); ``mismatch`` (the detail says what differs). ``before``: the fresh sets the
        capture ran on earlier in this check."""
        outcome = self.judge_against(expected, actual, ok_status, ok_detail, name)
        if outcome.status != "mismatch":
            return "passed", ""
        # The captured program has been called before (on the trace inputs), the eager reference
        # was a fresh module: a target that keeps state between calls differs for that reason
        # alone. Eager with the same history (trace inputs, the earlier sets, this set) decides.
        history = self.eager_history([("trace", 0), *((b, 0) for b in before), (name, 0)])
        if (not isinstance(history, BaseException)
                and self.judge_against(expected, history, ok_status, "", name).status == "mismatch"
                and self.judge_against(history, actual, ok_status, "", name).status != "mismatch"):
            return "stateful", ""
        # A set on which float32 rounding alone moves eager's answer beyond the tolerance cannot
        # tell a capture's error from its different order of operations: it decides nothing.
        if self.case.check:
            nudged = self.eager_on("perturbed:" + name, 0)
            if (not isinstance(nudged, BaseException)
                    and self.judge_against(expected, nudged, ok_status, "", name).status == "mismatch"):
                return "undecided", (f"the {SET_WORDS.get(name, name)} set decides nothing: eager's own outputs "
                                     "there move beyond the tolerance when the inputs move by a few units in the "
                                     "last place")
        return "mismatch", outcome.detail

    def check_randomness(self, run: Runner, run_step: str, actual: list[Any], ok_detail: str) -> Outcome | None:
        """The randomness check of ``verify`` (check=False cases, after the fresh-input check):
        the outputs that vary with the seed in eager must vary in the capture (``actual``: its
        outputs on the trace inputs, seed 0). The mismatch (``RANDOMNESS_FROZEN: ...``) when they
        froze, else None; its result goes to ``checks["randomness"]``."""
        eager_runs: list[list[torch.Tensor]] = []
        varying: set[int] = set()
        for seed in RANDOM_SEEDS:
            out = self.eager_on("trace", seed)
            if isinstance(out, BaseException):
                self.checks["randomness"] = Check(False, None, f"eager raised under seed {seed}: {_describe(out)}")
                return None
            eager_runs.append(out)
            varying = varying_outputs(eager_runs)
            if varying:
                break
        if not varying:
            return self._judge_deterministic(actual, ok_detail, len(RANDOM_SEEDS))
        self.step = run_step
        got: list[list[torch.Tensor]] = []
        for seed in RANDOM_SEEDS:
            seed_everything(seed)
            got.append([as_tensor(x) for x in run(self.inputs())])
            if len(got) >= 2 and varying <= varying_outputs(got):
                break
        self.step = "compare"
        stuck = sorted(varying - varying_outputs(got))
        if not stuck:
            self.checks["randomness"] = Check(True, True, "")
            return None
        return self._judge_stuck(run, run_step, stuck, got)

    def _judge_stuck(self, run: Runner, run_step: str, stuck: list[int], got: list[list[torch.Tensor]]) -> Outcome | None:
        """Outputs that vary in eager but were identical in the capture under every one of
        RANDOM_SEEDS: frozen, unless eager's own output changes too rarely for that to tell."""
        eager_runs: list[list[torch.Tensor]] = []
        for seed in MORE_RANDOM_SEEDS:
            out = self.eager_on("trace", seed)
            if isinstance(out, BaseException):
                self.checks["randomness"] = Check(False, None, f"eager raised under seed {seed}: {_describe(out)}")
                return None
            eager_runs.append(out)
        commonest = {i: commonest_count([r[i] for r in eager_runs if len(r) > i]) for i in stuck}

        def undecided() -> list[int]:
            return [i for i in stuck if frozen_bound(commonest[i], len(eager_runs), len(got)) > FROZEN_ALPHA]

        self.step = run_step
        for seed in MORE_RANDOM_SEEDS[len(got):]:
            if not undecided():
                break
            seed_everything(seed)
            got.append([as_tensor(x) for x in run(self.inputs())])
            stuck = [i for i in stuck if i not in varying_outputs(got)]
            if not stuck:
                break
        self.step = "compare"
        if not stuck:
            self.checks["randomness"] = Check(True, True, "")
            return None
        open_ = undecided()
        if open_:
            worst = max(open_, key=lambda i: commonest[i])
            self.checks["randomness"] = Check(
                False, None,
                f"{_outputs_text(open_)} identical under {len(got)} seeds in the capture, but eager's changes too "
                f"rarely to tell (the same under {commonest[worst]} of {len(eager_runs)} seeds)",
            )
            return None
        which = _outputs_text(stuck)
        self.checks["randomness"] = Check(True, False, f"{which} identical under {len(got)} seeds")
        return Outcome("mismatch", "compare", f"{RANDOMNESS_FROZEN}: {which} identical under {len(got)} seeds, eager's vary")

    def _judge_deterministic(self, actual: list[Any], ok_detail: str, seeds: int) -> Outcome | None:
        """A check=False case whose eager outputs are the same under every seed (no randomness
        reaches them): its values are compared with eager like a check=True case's."""
        if not outputs_equal(self.expected, [as_tensor(x) for x in self.eager_on("trace", RANDOM_SEEDS[0])]):  # type: ignore[list-item]
            self.checks["randomness"] = Check(False, None, "eager's outputs under seed 0 differ from the other seeds'")
            return None
        problem = compare(self.expected, actual, self.case.atol, self.case.rtol)
        why = f"eager gives the same outputs under {seeds + 1} seeds (no randomness reaches them): values compared with eager"
        if problem is None:
            self.checks["randomness"] = Check(False, None, why)
            return None
        self.checks["randomness"] = Check(False, None, why)
        return Outcome("mismatch", "compare", f"{DETERMINISTIC_MISMATCH}: {problem}")


def _describe(e: BaseException) -> str:
    return scrub(f"{type(e).__name__}: {first_line(str(e), 200)}".rstrip(": "))


def _outputs_text(indices: list[int]) -> str:
    if len(indices) == 1:
        return f"output {indices[0]}"
    return "outputs " + ", ".join(str(i) for i in indices)


# A probe: the context of one job in, its verdict out (PathSpec.probe).
Probe = Callable[[ProbeContext], Outcome]
