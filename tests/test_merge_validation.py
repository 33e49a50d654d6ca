"""`opsweep merge` refuses what it must not publish, says why in one message, and touches nothing."""

from __future__ import annotations

import json
import os
import pathlib
import sqlite3
import sys

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "merge"
sys.path.insert(0, str(FIXTURES))

import merge_db  # noqa: E402
from merge_db import record, run_merge, standard_survey, write_db  # noqa: E402

OLD = '{"old": "snapshot"}\n'


def existing_snapshot(tmp_path):
    out = tmp_path / "snapshot.json"
    out.write_text(OLD)
    return out


def assert_untouched(tmp_path, out):
    assert out.read_text() == OLD
    assert not (tmp_path / "snapshot.timings.json").exists()
    leftovers = [p.name for p in tmp_path.iterdir() if ".tmp." in p.name]
    assert leftovers == []


def test_incomplete_survey_is_refused_naming_a_few(tmp_path):
    survey = standard_survey()
    for name in ["LoFTR", "equalize", "draw_line"]:
        del survey.results[(name, "compile")]
    db = write_db(survey, tmp_path / "results.db")
    out = existing_snapshot(tmp_path)
    proc = run_merge(db, "-o", str(out))
    assert proc.returncode == 1, proc.stderr
    assert "the survey is incomplete: 3 of 24 jobs have no result" in proc.stderr
    assert "LoFTR / compile" in proc.stderr and "draw_line / compile" in proc.stderr
    assert "--force" in proc.stderr
    assert_untouched(tmp_path, out)


def test_force_writes_an_incomplete_survey_marking_the_gaps(tmp_path):
    survey = standard_survey()
    del survey.results[("LoFTR", "compile")]
    db = write_db(survey, tmp_path / "results.db")
    out = existing_snapshot(tmp_path)
    proc = run_merge(db, "-o", str(out), "--force")
    assert proc.returncode == 1, proc.stderr  # written, with findings
    assert "warning" in proc.stderr and "incomplete" in proc.stderr
    data = json.loads(out.read_text())
    loftr = next(r for r in data["records"] if r["name"] == "LoFTR")
    assert loftr["paths"]["compile"]["reason"] == "missing-result"
    assert loftr["paths"]["compile"]["status"] == "n/a"
    assert "missing-result" in data["reasons"]


def test_crash_and_timeout_are_results_not_gaps(tmp_path):
    survey = standard_survey()
    assert any(r["record"]["status"] == "crash" for r in survey.results.values())
    assert any(r["record"]["status"] == "timeout" for r in survey.results.values())
    proc = run_merge(write_db(survey, tmp_path / "r.db"), "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 0, proc.stderr


def test_mixed_environments_are_refused_naming_field_and_values(tmp_path):
    survey = standard_survey()
    survey.result("LoFTR", "onnx", record("n/a", "skip", detail="x"), torch="2.12.0+cpu")
    survey.result("LoFTR", "export", record("n/a", "skip", detail="x"), onnxruntime="1.31.0")
    db = write_db(survey, tmp_path / "results.db")
    out = existing_snapshot(tmp_path)
    proc = run_merge(db, "-o", str(out))
    assert proc.returncode == 1
    assert "different environments: torch is '2.12.0+cpu' in 1 result " in proc.stderr
    assert "'2.13.0+cpu' in 23 results" in proc.stderr
    # An export key has no onnxruntime field: the override changes nothing there.
    assert "onnxruntime" not in proc.stderr
    assert_untouched(tmp_path, out)


def test_a_path_specific_field_is_compared_among_the_paths_that_depend_on_it(tmp_path):
    survey = standard_survey()
    survey.result("LoFTR", "onnx", record("n/a", "skip", detail="x"), onnxruntime="1.31.0")
    db = write_db(survey, tmp_path / "results.db")
    proc = run_merge(db, "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 1
    assert ("different environments: onnxruntime is '1.31.0' in 1 result (" + db + "), '1.32.0' in 7 results ("
            + db + ")") in proc.stderr


def test_shards_of_different_environments_are_refused(tmp_path):
    survey = standard_survey()
    keys = sorted(survey.results)
    a = write_db(survey, tmp_path / "a.db", results=keys[0::2])
    other = standard_survey()
    other.harnesses["export"] = "ffffffffffffffffffffffffffffffff"
    b = write_db(other, tmp_path / "b.db", results=keys[1::2])
    proc = run_merge(a, b, "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if "different environments" in line]
    assert len(lines) == 1, proc.stderr  # only the export path's harness differs
    assert "harness (path export) is '" in lines[0]
    assert "'ffffffffffffffffffffffffffffffff' in 4 results (" + b + ")" in lines[0] and a in lines[0]


def test_databases_from_different_registries_or_paths_are_refused(tmp_path):
    survey = standard_survey()
    keys = sorted(survey.results)
    a = write_db(survey, tmp_path / "a.db", results=keys[0::2])
    b = write_db(survey, tmp_path / "b.db", results=keys[1::2], cases=[c for c in survey.cases if c != "LoFTR"],
                 paths=["onnx", "export"])
    proc = run_merge(a, b, "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 1
    assert "come from different registries: 1 case only in" in proc.stderr and "(LoFTR)" in proc.stderr
    assert "probed different paths: onnx, export, compile in" in proc.stderr


def test_registries_option_checks_the_inventory(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    proc = run_merge(db, "-o", str(tmp_path / "s.json"), "--registries", "cases_color.py", "cases_new.py")
    assert proc.returncode == 1
    assert "named by --registries but not surveyed: cases_new.py" in proc.stderr
    assert "not named by --registries: cases_aug.py" in proc.stderr


def test_bad_graph_break_counts_are_problems(tmp_path):
    survey = standard_survey()
    survey.result("draw_line", "compile", record("ok", graph_breaks=-1))
    survey.result("LoFTR", "compile", record("ok-breaks", graph_breaks=1.5))
    db = write_db(survey, tmp_path / "results.db")
    proc = run_merge(db, "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 1
    assert "draw_line / compile: graph_breaks is -1 (must be 0 or more)" in proc.stderr
    assert "LoFTR / compile: graph_breaks is 1.5 (must be a whole number, 0 or more)" in proc.stderr


def test_checks_notes_and_break_frames_of_the_wrong_shape_are_problems(tmp_path):
    # A check that ran must say whether it passed: guessing "not run" or "passed" for it would put
    # a claim on the page that nobody measured.
    survey = standard_survey()
    check = merge_db.check
    survey.result("draw_line", "compile", record("ok", graph_breaks=0, checks={"fresh_inputs": check(True, None)}))
    survey.result("rgb_to_grayscale", "onnx", record("ok", checks={"fresh_inputs": {"passed": True}}))
    survey.result("rgb_to_grayscale", "export", record("ok", checks={"fresh_inputs": check(False, True, "x")}))
    survey.result("rgb_to_grayscale", "compile", record("ok", graph_breaks=0, checks=["fresh_inputs"]))
    survey.result("find_fundamental", "export", record("ok", notes="a note"))
    survey.result("LoFTR", "compile", record("n/a", "skip", notes=[{"text": "x"}]))
    survey.result("RandomCrop[p=0.5][random]", "compile", record(
        "ok-breaks", graph_breaks=1, break_reasons=["x"], break_frames=["kornia/x.py:1"]))
    survey.result("LoFTR", "onnx", record("n/a", "skip", checks={"Fresh": check(False)}))
    db = write_db(survey, tmp_path / "results.db")
    out = existing_snapshot(tmp_path)
    proc = run_merge(db, "-o", str(out))
    assert proc.returncode == 1
    for needle in ["draw_line / compile: checks.fresh_inputs ran but 'passed' is not true or false",
                   "rgb_to_grayscale / onnx: checks.fresh_inputs.ran is not true or false",
                   "rgb_to_grayscale / export: checks.fresh_inputs did not run but has 'passed' true",
                   "rgb_to_grayscale / compile: checks is not an object",
                   "find_fundamental / export: notes is not a list",
                   "LoFTR / compile: notes holds something that is not text",
                   "RandomCrop[p=0.5][random] / compile: break_frames holds something that is not a list of frames",
                   "LoFTR / onnx: check id 'Fresh' is not lowercase letters, digits, '_' or '-'"]:
        assert needle in proc.stderr, (needle, proc.stderr)
    assert_untouched(tmp_path, out)


def test_every_problem_is_listed_in_one_message(tmp_path):
    survey = standard_survey()
    del survey.results[("LoFTR", "onnx")]
    survey.result("draw_line", "compile", record("ok", graph_breaks=-3))
    survey.result("equalize", "export", record("timeout", "worker"), numpy="1.26.0")
    db = write_db(survey, tmp_path / "results.db")
    proc = run_merge(db, "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 1
    # The bad record is left out, so draw_line / compile is missing too: one "incomplete" line names both.
    assert f"refusing to write {tmp_path / 's.json'}: 3 problems:" in proc.stderr
    for needle in ["graph_breaks is -3", "numpy is", "incomplete: 2 of 24 jobs have no result"]:
        assert needle in proc.stderr, needle


def test_unreadable_database_is_named_and_left_untouched(tmp_path):
    good = write_db(standard_survey(), tmp_path / "good.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(os.urandom(4096))
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE photos(id INTEGER)")
    con.commit()
    con.close()
    before = {p: p.read_bytes() for p in (junk, foreign)}
    out = existing_snapshot(tmp_path)
    proc = run_merge(good, str(junk), str(foreign), "-o", str(out), "--force")
    assert proc.returncode == 2
    assert f"{junk}: not an SQLite database (left untouched)" in proc.stderr
    assert f"{foreign}: not an opsweep results database" in proc.stderr
    for p, data in before.items():
        assert p.read_bytes() == data
    assert not pathlib.Path(str(foreign) + "-wal").exists()
    assert_untouched(tmp_path, out)


def test_missing_database_is_named(tmp_path):
    out = existing_snapshot(tmp_path)
    proc = run_merge(str(tmp_path / "nope.db"), "-o", str(out))
    assert proc.returncode == 2
    assert "nope.db: no such results database" in proc.stderr
    assert not (tmp_path / "nope.db").exists()
    assert_untouched(tmp_path, out)


def test_unreadable_record_is_a_problem(tmp_path):
    survey = standard_survey()
    db = write_db(survey, tmp_path / "results.db")
    con = sqlite3.connect(db)
    con.execute("UPDATE results SET record_json='{not json' WHERE case_name='LoFTR' AND path='onnx'")
    con.execute("UPDATE results SET record_json=?, status='ok' WHERE case_name='LoFTR' AND path='export'",
                (json.dumps(record("great")),))
    con.commit()
    con.close()
    proc = run_merge(db, "-o", str(tmp_path / "s.json"))
    assert proc.returncode == 1
    assert "LoFTR / onnx: the record is not valid JSON" in proc.stderr
    assert "LoFTR / export: unknown status 'great'" in proc.stderr


def test_broken_rules_are_refused(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "bad.json").write_text('{"version": 1, "rules": [{"id": "x", "order": 1}]}')
    out = existing_snapshot(tmp_path)
    proc = run_merge(db, "-o", str(out), "--rules", str(rules))
    assert proc.returncode == 2
    assert "bad.json: rule 'x': missing 'title'" in proc.stderr
    assert_untouched(tmp_path, out)


def test_bad_objects_inv_is_refused(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    inv = tmp_path / "objects.inv"
    inv.write_text("# Sphinx inventory version 2\n# Project: x\n# Version: 1\n# zlib\nnot compressed")
    proc = run_merge(db, "-o", str(tmp_path / "s.json"), "--objects-inv", str(inv))
    assert proc.returncode == 2
    assert "objects.inv: the compressed part is damaged" in proc.stderr


def test_groups_merge_a_survey_of_some_groups_and_refuse_an_unknown_group(tmp_path):
    # A run limited with --groups leaves the other groups unprobed: merged with the same --groups,
    # the snapshot holds exactly those groups' cases, and nothing is incomplete.
    survey = standard_survey()
    groups = {name: c["group"] for name, c in survey.cases.items()}
    kept = {name for name, g in groups.items() if g == "geometry" or g.startswith("geometry.") or g == "color"}
    assert kept and len(kept) < len(groups)
    for (name, path) in list(survey.results):
        if name not in kept:
            del survey.results[(name, path)]
    db = write_db(survey, tmp_path / "results.db")
    out = tmp_path / "snapshot.json"
    assert run_merge(db, "-o", str(out)).returncode == 1  # without --groups: incomplete
    proc = run_merge(db, "-o", str(out), "--groups", "geometry,color")
    assert proc.returncode == 0, proc.stderr
    assert f"left out {len(groups) - len(kept)} cases outside --groups" in proc.stdout + proc.stderr
    snap = json.loads(out.read_text())
    assert {r["name"] for r in snap["records"]} == kept
    assert snap["groups"] == ["geometry", "color"]  # the page says the other groups are not in it
    # an unknown group writes nothing, even with --force
    other = tmp_path / "other"
    other.mkdir()
    old = existing_snapshot(other)
    for extra in ((), ("--force",)):
        proc = run_merge(db, "-o", str(old), "--groups", "geometry,nope", *extra)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.strip() == (f"opsweep merge: nothing written to {old}: --groups: unknown group 'nope': "
                                       "no case's group is or lies under it")
        assert_untouched(other, old)


def test_the_snapshot_folder_is_made_only_when_writing(tmp_path):
    survey = standard_survey()
    db = write_db(survey, tmp_path / "results.db")
    out = tmp_path / "new" / "deeper" / "snapshot.json"
    proc = run_merge(db, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.is_file() and (out.parent / "snapshot.timings.json").is_file()
    # a refused merge makes no folder
    del survey.results[("LoFTR", "compile")]
    incomplete = write_db(survey, tmp_path / "incomplete.db")
    refused = tmp_path / "never" / "snapshot.json"
    assert run_merge(incomplete, "-o", str(refused)).returncode == 1
    assert not refused.parent.exists()
