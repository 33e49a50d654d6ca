"""The command line as a whole: every documented command line is accepted, an unknown verb is named,
and every verb follows one exit-status convention (src/cli/exit_status.h, docs/quickstart.md):
0 done, 1 done with findings, 2 bad input or usage."""

import json
import pathlib
import re
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fake_workers"))
sys.path.insert(0, str(REPO / "tests" / "fixtures" / "merge"))
import merge_db  # noqa: E402
import run_helpers as h  # noqa: E402

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
VERBS = ("run", "merge", "render", "coverage", "explain", "results", "diff", "repro")


def code_lines(text):
    """(line number, code) of every fenced code line and every inline code span of a Markdown text.
    A fenced line continued by a trailing backslash or by indented options is joined with its
    continuation, so a command's options all belong to it."""
    fenced, pending = False, None
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            if pending:
                yield pending
            fenced, pending = not fenced, None
            continue
        if not fenced:
            for span in re.findall(r"`([^`]+)`", line):
                yield number, span
            continue
        if pending and (pending[1].endswith("\\") or re.match(r"\s+[-\[]", line)):
            pending = (pending[0], pending[1].rstrip("\\") + " " + line.strip())
            continue
        if pending:
            yield pending
        pending = (number, line)
    if pending:
        yield pending


def documented_command_lines():
    """(file:line, verb, [options]) of every `opsweep WORD ...` in the code of the user docs."""
    found = []
    for doc in DOCS:
        for number, code in code_lines(doc.read_text(encoding="utf-8")):
            for match in re.finditer(r"(?<![\w./-])(?<!from )(?<!import )opsweep ([a-z][\w-]*)([^#;&]*)", code):
                options = re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", match.group(2))
                found.append((f"{doc.relative_to(REPO)}:{number}", match.group(1), options))
    return found


def _subcommands(help_output):
    """The names listed under 'Subcommands:' in a CLI11 help text."""
    if "Subcommands:" not in help_output:
        return []
    block = help_output.split("Subcommands:", 1)[1]
    return re.findall(r"^  ([a-z][\w-]*)\s", block, re.M)


def help_text(binary, verb):
    """The verb's help, with the help of each of its subcommands (`results export`, ...)."""
    p = subprocess.run([str(binary), verb, "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, (verb, p.stderr)
    text = p.stdout
    for sub in _subcommands(p.stdout):
        q = subprocess.run([str(binary), verb, sub, "--help"], capture_output=True, text=True, timeout=30)
        assert q.returncode == 0, (verb, sub, q.stderr)
        text += q.stdout
    return text


def binary_verbs(binary):
    p = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return _subcommands(p.stdout)


def test_the_docs_show_command_lines():
    lines = documented_command_lines()
    assert {verb for _, verb, _ in lines} >= set(VERBS)
    assert sum(len(options) for _, _, options in lines) > 20  # the check below is not vacuous


def accepted_options(help_output):
    """The options a verb's help names (with --help and -h, which CLI11 adds)."""
    return set(re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", help_output)) | {"--help", "-h"}


def test_every_documented_option_exists(binary):
    verbs = binary_verbs(binary)
    assert set(VERBS) <= set(verbs)
    helps = {verb: help_text(binary, verb) for verb in verbs}
    lines = documented_command_lines()
    # The docs show well over a hundred command lines with about as many options (135 and 141 when
    # this was written), every verb with some: far fewer means the docs or the parsing above broke,
    # and the check below would pass by checking nothing.
    assert len(lines) >= 60, f"only {len(lines)} documented command lines found"
    assert {verb for _, verb, _ in lines} >= set(VERBS)
    problems, checked, checked_verbs = [], 0, set()
    for where, verb, options in lines:
        if verb not in helps:
            problems.append(f"{where}: `opsweep {verb}` is not a command")
            continue
        accepted = accepted_options(helps[verb])
        # A help that names every option would accept anything: each has a few, not one made up.
        assert "--no-such-option" not in accepted and len(accepted) > 3, (verb, sorted(accepted))
        problems += [f"{where}: `opsweep {verb}` has no option {o}" for o in options if o not in accepted]
        checked += len(options)
        checked_verbs |= {verb} if options else set()
    assert problems == []
    assert checked >= 60, f"only {checked} documented options checked"
    assert checked_verbs >= set(VERBS), f"no documented option checked for {sorted(set(VERBS) - checked_verbs)}"


def test_an_unknown_verb_is_named_with_the_list_of_verbs(binary):
    p = subprocess.run([str(binary), "teleport"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2
    assert p.stderr == ("opsweep: error: 'teleport' is not a command; the commands are run, merge, render, "
                        "coverage, explain, results, diff, repro and harvest (see opsweep --help)\n")
    p = subprocess.run([str(binary)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "A subcommand is required" in p.stderr


@pytest.mark.parametrize("args", [["run", "--bogus"], ["merge"], ["render", "a", "b"], ["coverage", "--depth", "99"],
                                  ["repro", "x"], ["--bogus"]])
def test_usage_errors_exit_2_in_one_line(binary, args):
    p = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, (args, p.stderr)
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_help_and_version_exit_0(binary):
    for args in (["--help"], ["--version"], ["run", "--help"]):
        assert subprocess.run([str(binary), *args], capture_output=True, timeout=30).returncode == 0, args


def test_one_exit_status_convention_over_run_merge_and_render(binary, tmp_path):
    """0 done, 1 done with findings, 2 bad input, for each verb."""
    # run: 0 when every job has a record; 1 when the restart cap stopped it; 2 for a refused database.
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}, {"name": "segv_b"}, {"name": "segv_c"}])
    assert h.run(["--cases", reg, "--db", "a.db", "--paths", "onnx"], tmp_path).returncode == 0
    p = h.run(["--cases", reg, "--db", "b.db", "--paths", "onnx", "-j", "1", "--max-restarts", "0"], tmp_path)
    assert p.returncode == 1, p.stderr
    (tmp_path / "junk.db").write_text("not a database")
    assert h.run(["--cases", reg, "--db", "junk.db"], tmp_path).returncode == 2
    # merge: 0 written; 1 refused or written with --force (findings); 2 an unreadable input.
    survey = merge_db.standard_survey()
    complete = merge_db.write_db(survey, tmp_path / "complete.db")
    del survey.results[("LoFTR", "onnx")]
    partial = merge_db.write_db(survey, tmp_path / "partial.db")
    out = str(tmp_path / "s.json")
    assert merge_db.run_merge(complete, "-o", out).returncode == 0
    assert merge_db.run_merge(partial, "-o", out).returncode == 1
    assert merge_db.run_merge(partial, "-o", out, "--force").returncode == 1
    assert merge_db.run_merge(str(tmp_path / "junk.db"), "-o", out).returncode == 2
    # render: 0 written; 2 a snapshot that cannot be read or is refused.
    render = [str(binary), "render"]
    assert subprocess.run([*render, out, "--md", str(tmp_path / "p.md")], timeout=60).returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": 99}))
    for snapshot in (str(bad), str(tmp_path / "missing.json")):
        p = subprocess.run([*render, snapshot, "--md", str(tmp_path / "q.md")], capture_output=True, text=True)
        assert p.returncode == 2, p.stderr


def reason_texts():
    """(where, text) of every cause and hint a page can show: the rules' and merge's own ids'."""
    texts = []
    for file in sorted((REPO / "rules").glob("*.json")):
        for rule in json.loads(file.read_text(encoding="utf-8"))["rules"]:
            texts += [(f"{file.name}: {rule['id']}", rule[k]) for k in ("cause", "hint")]
    for snapshot in (REPO / "snapshots" / "kornia" / "snapshot.json",
                     REPO / "tests" / "fixtures" / "merge" / "golden_snapshot.json",
                     REPO / "tests" / "fixtures" / "render" / "snapshot.json"):
        for rid, reason in json.loads(snapshot.read_text(encoding="utf-8"))["reasons"].items():
            texts += [(f"{snapshot.relative_to(REPO)}: {rid}", reason[k]) for k in ("cause", "hint")]
    return texts


def test_no_hint_names_a_command_or_file_that_does_not_exist(binary):
    helps = {verb: help_text(binary, verb) for verb in VERBS}
    problems, commands = [], 0
    for where, text in reason_texts():
        for match in re.finditer(r"(?<![\w./-])opsweep ([a-z][\w-]*)([^`;.)]*)", text):
            commands += 1
            verb = match.group(1)
            if verb not in helps:
                problems.append(f"{where}: `opsweep {verb}` is not a command")
                continue
            for option in re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", match.group(2)):
                if option not in helps[verb]:
                    problems.append(f"{where}: `opsweep {verb}` has no option {option}")
        # Files and folders of the repository a reader is sent to (a run's own .opsweep/ aside).
        for token in re.findall(r"(?<![\w./-])((?:[\w.-]+/)+(?:[\w-]+\.(?:md|py|json))?)(?![\w/])", text):
            if not token.startswith(".opsweep/") and not (REPO / token).exists():
                problems.append(f"{where}: names {token}, which does not exist")
        # A reproducer is `opsweep repro` (checked above as a verb); no other repro tool exists.
        if re.search(r"(?<!opsweep )\brepro\b", text):
            problems.append(f"{where}: mentions a repro tool other than `opsweep repro`")
    assert commands >= 3  # worker-crash, timeout, missing-result at least: not vacuous
    assert problems == []
