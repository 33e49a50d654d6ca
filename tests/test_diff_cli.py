"""`opsweep diff OLD NEW` end to end: what it reports (text, Markdown, JSON), its exit status (0 nothing
regressed, 1 a regression or with --fail-on change any change, 2 bad input), and escaping."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "fixtures" / "history"))
import variants as v  # noqa: E402


def diff(binary, old, new, *args):
    return subprocess.run([str(binary), "diff", str(old), str(new), *args], capture_output=True, text=True, timeout=60)


@pytest.fixture()
def pair(tmp_path):
    base = v.load()
    new = v.variant(base, "2.15.0", "2026-12-01", {
        ("rgb_to_grayscale", "onnx"): v.outcome("fail", "onnx-missing-lowering", "torch.atan2 has no ONNX lowering"),
        ("rgb_to_grayscale", "export"): v.outcome("n/a", "torch-api-missing", "torch.x.y does not exist in torch 2.15.0"),
        ("find_fundamental", "onnx"): v.outcome("ok", op_types=["Add"]),
        ("equalize", "export"): v.outcome("crash", "worker-crash", "worker exited with signal 11 (SIGSEGV)"),
        ("draw_line", "onnx"): v.outcome("fail", "onnx-missing-lowering", "torch.line has no ONNX lowering"),
    }, drop=["LoFTR"], add=[v.record("new_op", "color", "", {
        "onnx": v.outcome("ok"), "export": v.outcome("ok"), "compile": v.outcome("fail", "inductor-lowering-error",
                                                                                  step="compile")})])
    rc = next(r for r in new["records"] if r["name"].startswith("RandomCrop"))
    rc["paths"]["compile"]["graph_breaks"] = 2
    rc["paths"]["compile"]["detail"] = "2 graph breaks"
    return v.write(base, tmp_path / "old" / "snapshot.json"), v.write(new, tmp_path / "new" / "snapshot.json")


def test_text_report_lists_every_kind_grouped_by_reason(binary, pair):
    old, new = pair
    p = diff(binary, old, new)
    assert p.returncode == 1, p.stderr
    out = p.stdout
    assert out.startswith("opsweep diff: 2 regressions, 1 progression, 1 status change, 1 reason change, "
                          "1 detail change, 1 new case, 1 removed case\n")
    # the environment difference comes first, before any result
    assert out.index("Environment changes:") < out.index("Compared 7 cases on ONNX, torch.export and torch.compile.")
    assert "  torch  2.13.0+cpu -> 2.15.0\n" in out
    regressions = out[out.index("Regressions: 2"):out.index("Progressions: 1")]
    assert "No ONNX lowering [onnx-missing-lowering]: 1" in regressions
    assert "Not in this torch release [torch-api-missing]: 1" in regressions
    assert "rgb_to_grayscale  ONNX  ok -> fail  torch.atan2 has no ONNX lowering" in regressions
    progressions = out[out.index("Progressions: 1"):]
    # filed under the reason it failed with before: what got fixed
    assert "No ONNX lowering [onnx-missing-lowering]: 1\n    find_fundamental  ONNX  fail -> ok  was: " in progressions
    assert "equalize  torch.export  timeout -> crash" in out
    assert "draw_line  ONNX  fail  " in out and "-> No ONNX lowering: torch.line has no ONNX lowering" in out
    assert "graph breaks 1 -> 2" in out
    assert "New cases: 1\n  new_op: ONNX ok, torch.export ok, torch.compile fail" in out
    assert "Removed cases: 1\n  LoFTR: " in out


def test_markdown_report_for_a_pull_request(binary, pair):
    old, new = pair
    p = diff(binary, old, new, "--format", "md")
    assert p.returncode == 1
    md = p.stdout
    assert md.startswith("### opsweep diff: 2 regressions, ")
    assert "| torch | `2.13.0+cpu` | `2.15.0` |" in md
    assert "<details open>\n<summary><b>No ONNX lowering</b> (<code>onnx-missing-lowering</code>): 1</summary>" in md
    assert "| `rgb_to_grayscale` | ONNX | ✓ ok → ✗ fail | torch.atan2 has no ONNX lowering |" in md
    assert "#### Progressions: 1" in md and "<details>\n<summary><b>No ONNX lowering</b>" in md


def test_json_report_for_tools(binary, pair):
    old, new = pair
    p = diff(binary, old, new, "--format", "json")
    assert p.returncode == 1
    data = json.loads(p.stdout)
    assert p.stdout == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["format"] == "opsweep-diff" and data["schema"] == 1
    assert data["counts"] == {"regression": 2, "progression": 1, "status": 1, "reason": 1, "detail": 1,
                              "new_cases": 1, "removed_cases": 1}
    kinds = {(c["case"], c["path"]): c["kind"] for c in data["changes"]}
    assert kinds[("rgb_to_grayscale", "onnx")] == "regression"
    assert kinds[("find_fundamental", "onnx")] == "progression"
    assert kinds[("draw_line", "onnx")] == "reason"
    reg = next(c for c in data["changes"] if c["case"] == "rgb_to_grayscale" and c["path"] == "onnx")
    assert reg["old"]["status"] == "ok" and reg["new"]["status"] == "fail" and reg["group"] == "onnx-missing-lowering"
    assert {"field": "torch", "old": "2.13.0+cpu", "new": "2.15.0"} in data["environment"]
    assert [c["case"] for c in data["new_cases"]] == ["new_op"] and data["regression"] is True


def test_exit_status_gates(binary, tmp_path):
    base = v.load()
    old = v.write(base, tmp_path / "old.json")
    better = v.write(v.variant(base, "2.13.0+cpu", "2026-11-30", {("find_fundamental", "onnx"): v.outcome("ok")}),
                     tmp_path / "better.json")
    worse = v.write(v.variant(base, "2.13.0+cpu", "2026-11-30", {("rgb_to_grayscale", "onnx"): v.outcome(
        "mismatch", "value-mismatch")}), tmp_path / "worse.json")
    env_only = v.write(v.variant(base, "2.15.0", "2026-12-02", environment={"onnxruntime": "1.33.0"}),
                       tmp_path / "env.json")
    assert diff(binary, old, old).returncode == 0
    assert diff(binary, old, old, "--fail-on", "change").returncode == 0
    assert diff(binary, old, better).returncode == 0                          # a progression is no regression
    assert diff(binary, old, better, "--fail-on", "change").returncode == 1   # ... but the committed snapshot lags
    assert diff(binary, old, worse).returncode == 1
    assert diff(binary, old, worse, "--fail-on", "change").returncode == 1
    p = diff(binary, old, env_only, "--fail-on", "change")
    assert p.returncode == 0, p.stdout                                        # same results under other versions
    assert p.stdout.startswith("opsweep diff: no change\n")
    assert "  onnxruntime  1.32.0 -> 1.33.0\n" in p.stdout and "  torch        2.13.0+cpu -> 2.15.0\n" in p.stdout


def test_other_library_and_tool_versions_are_compared_environment_first(binary, tmp_path):
    base = v.load()
    newer = v.variant(base, "2.13.0+cpu", "2026-12-01", {("find_fundamental", "onnx"): v.outcome("ok")})
    newer["library"]["version"] = "0.9.1"
    newer["library"]["fingerprint"] = "0" * 32
    newer["tool"]["version"] = "0.2.0"
    old, new = v.write(base, tmp_path / "a.json"), v.write(newer, tmp_path / "b.json")
    p = diff(binary, old, new)
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    env = lines[lines.index("Environment changes:") + 1:]
    assert env[0].split() == ["library", "kornia", "0.9.0", "->", "kornia", "0.9.1"]
    assert env[1].split()[:2] == ["library", "sources"]
    assert any(line.split()[0] == "tool" for line in env[:5])


def test_bad_input_is_one_line_and_exit_2(binary, tmp_path):
    good = v.write(v.load(), tmp_path / "good.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema": 2, "records": [')
    other = v.load()
    other["library"]["name"] = "torchvision"
    other = v.write(other, tmp_path / "other.json")
    cases = [
        ([tmp_path / "missing.json", good], "missing.json: cannot read"),
        ([good, broken], "broken.json: not valid JSON"),
        ([good, other], "OLD is a survey of kornia, NEW of torchvision"),
        ([good, good, "--format", "html"], "--format"),
        ([good, good, "--fail-on", "everything"], "--fail-on"),
        ([good, good, "--limit", "-3"], "--limit"),
    ]
    for args, text in cases:
        p = subprocess.run([str(binary), "diff", *map(str, args)], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (args, p.returncode, p.stdout, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and text in lines[0], (args, p.stderr)
        assert p.stdout == ""


def test_folders_output_files_and_limits(binary, pair, tmp_path):
    old, new = pair
    out = tmp_path / "report.md"
    p = diff(binary, old.parent, new.parent, "--format", "md", "-o", out)
    assert p.returncode == 1 and p.stdout == ""
    assert out.read_text().startswith("### opsweep diff: 2 regressions")
    p = diff(binary, old, new, "--limit", "1")
    assert p.returncode == 1
    base = v.load()
    many = v.variant(base, "2.15.0", "2026-12-01", {(r["name"], "compile"): v.outcome(
        "fail", "onnx-missing-lowering", step="compile") for r in base["records"]
        if r["paths"]["compile"]["status"] in v.SUPPORTED})
    worse = v.write(many, tmp_path / "many.json")
    p = diff(binary, old, worse, "--limit", "1")
    assert "    ... and 3 more\n" in p.stdout, p.stdout


def test_probed_text_is_escaped_in_every_format(binary, tmp_path):
    base = v.load()
    nasty = "bad | <script>alert(1)</script> \x1b[31mred\x1b[0m `tick` *star*\nsecond line"
    new = v.variant(base, "2.15.0", "2026-12-01", {("rgb_to_grayscale", "onnx"): v.outcome(
        "fail", "onnx-missing-lowering", nasty)})
    old, new = v.write(base, tmp_path / "a.json"), v.write(new, tmp_path / "b.json")
    text = diff(binary, old, new).stdout
    assert "\x1b" not in text and "bad | <script>" in text and "\nsecond line" not in text
    md = diff(binary, old, new, "--format", "md").stdout
    assert "<script>" not in md and "\x1b" not in md
    row = next(line for line in md.splitlines() if line.startswith("| `rgb_to_grayscale`"))
    assert row.count(" | ") == 3  # the detail's own | is escaped, the table keeps its 4 columns
    data = json.loads(diff(binary, old, new, "--format", "json").stdout)
    assert data["changes"][0]["new"]["detail"] == nasty  # JSON carries the text verbatim, quoted
