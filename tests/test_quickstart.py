"""The README's first command (scripts/quickstart.sh) on the bundled suites: its survey command, as
the script writes it, must plan the quick preset's jobs with the real workers. opsweep bundles
several suites, so a `run` that does not name one is refused; this once broke the first command
unnoticed, because the test command never runs it."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[1]


def survey_command(paths: str, db: str) -> list[str]:
    """The `opsweep run` line of scripts/quickstart.sh, continuation lines joined, its variables filled."""
    text = (REPO / "scripts" / "quickstart.sh").read_text(encoding="utf-8").replace("\\\n", " ")
    line = next(l for l in text.splitlines() if l.strip().startswith("opsweep run "))
    line = line.replace('"$paths"', paths).replace('"$out/results.db"', db)
    assert "$" not in line, line
    return re.split(r"\s+", line.strip())


def test_the_quickstart_survey_plans_the_quick_preset(binary, python_with_torch, tmp_path):
    cmd = survey_command("onnx,export,compile", str(tmp_path / "results.db"))
    assert cmd[:2] == ["opsweep", "run"] and "--suite" in cmd
    env = dict(os.environ, PYTHONPATH=f"{REPO / 'python'}:{os.environ.get('PYTHONPATH', '')}")
    p = subprocess.run([str(binary), *cmd[1:], "--python", python_with_torch, "--dry-run"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    planned = re.search(r"([\d,]+) jobs planned \(from ([\d,]+) cases x 3 paths\)", p.stdout + p.stderr)
    assert planned, p.stdout + p.stderr
    assert int(planned.group(2)) == 14  # the quick preset's cases, as the README says
