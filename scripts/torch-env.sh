#!/usr/bin/env bash
# Builds a named, pinned Python environment for one torch release, so that one checkout can survey
# the same registries under several torch releases (docs/torch-matrix.md), or for a library that needs
# a torch build of its own (envs/torchvision-0.28.0.txt: PyPI's torchvision loads its operators only
# next to PyPI's torch).
#
#   bash scripts/torch-env.sh 2.9.1            # build (or reuse) the venv; last stdout line: its python
#   PY=$(bash scripts/torch-env.sh 2.9.1)      # ... then: opsweep run --python "$PY" --db ...
#   bash scripts/torch-env.sh 2.9.1 --check    # only verify an existing venv (imports, versions)
#   bash scripts/torch-env.sh --list           # the environments that have a requirements file
#   bash scripts/torch-env.sh torchvision-0.28.0   # a named environment: envs/torchvision-0.28.0.txt
#   bash scripts/torch-env.sh 2.9.1 --library-from ~/src/kornia   # survey a checkout, not the pinned release
#
# Contract:
# - The environment "torch-R" is defined by envs/torch-R.txt alone (exact pins: torch, the ONNX stack,
#   numpy, the runtimes, the surveyed library; what those depend on is pinned by the constraints file
#   it names, envs/constraints/torch-R.txt). Its venv is <root>/torch-R, root = --root DIR, else
#   $OPSWEEP_ENV_ROOT, else <checkout>/.opsweep/envs (gitignored). It never touches the Python that
#   runs this script: the venv is created without system site-packages. A named environment NAME
#   (lowercase letters, digits, '.', '-'; not X.Y.Z) is envs/NAME.txt, its venv <root>/NAME, its torch
#   release the file's `torch==` pin.
# - Directives in the requirements file's comments: `# opsweep-env: pypi-only` installs from PyPI alone
#   (the machine's pip configuration, find-links and extra indexes are set aside: a local CPU build of
#   torch must not win over PyPI's); `# opsweep-env: verify MOD ...` names the modules the check
#   imports (default: torch kornia onnx onnxscript onnxruntime numpy openvino tract).
# - The harness is not copied into the venv: a .pth file puts this checkout's python/ on its path, so
#   `python -m opsweep.worker` runs the checkout's own harness (engine, harness and page stay one build,
#   and the harness digests in the job keys are those of the checkout).
# - A venv is complete only once its stamp file (the sha256 of the requirements file and the harness
#   path) is written, last. A venv without a matching stamp is removed and rebuilt from scratch, so an
#   interrupted build never passes for a finished one; one whose stamp differs only in the harness path
#   (built for another checkout of the same files) is re-pointed at this checkout and verified.
# - The machine's pip cap (a constraint such as torch<=2.14.1 in /etc/xdg/pip) is lifted for this
#   install only (PIP_CONSTRAINT=/dev/null): the requirements file pins every version itself. Other
#   pip settings (indexes, find-links, PIP_EXTRA_INDEX_URL for a CPU-only torch index) still apply.
# - --library-from DIR (or $OPSWEEP_LIBRARY_FROM) installs the surveyed library from a checkout,
#   editable and without its dependencies, over the pinned release (a CI of the library itself).
# - Progress goes to stderr; stdout carries only the venv's python path (or the --list / --check output).
# - Exit 0 on success, 1 when installing or verifying fails, 2 for bad input.
set -euo pipefail

checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
envs_dir="$checkout/envs"

usage() {
  echo "usage: torch-env.sh RELEASE [--root DIR] [--base-python PY] [--library-from DIR] [--check] [--rebuild] | --list" >&2
}
die_usage() { echo "torch-env.sh: $*" >&2; exit 2; }
say() { echo "torch-env.sh: $*" >&2; }

releases() {
  local f
  for f in "$envs_dir"/torch-*.txt; do
    [ -e "$f" ] || continue
    f=${f##*/torch-}
    echo "${f%.txt}"
  done | sort -t. -k1,1n -k2,2n -k3,3n
  for f in "$envs_dir"/*.txt; do
    [ -e "$f" ] || continue
    f=${f##*/}
    case "$f" in torch-*) continue ;; esac
    echo "${f%.txt}"
  done | sort
}

release=""
root=${OPSWEEP_ENV_ROOT:-$checkout/.opsweep/envs}
base_python=${PYTHON:-python3}
library_from=${OPSWEEP_LIBRARY_FROM:-}
mode=build
while [ $# -gt 0 ]; do
  case "$1" in
    --list) mode=list ;;
    --check) mode=check ;;
    --rebuild) mode=rebuild ;;
    --root) [ $# -ge 2 ] || die_usage "--root needs a directory"; root=$2; shift ;;
    --root=*) root=${1#--root=} ;;
    --base-python) [ $# -ge 2 ] || die_usage "--base-python needs an interpreter"; base_python=$2; shift ;;
    --base-python=*) base_python=${1#--base-python=} ;;
    --library-from) [ $# -ge 2 ] || die_usage "--library-from needs a folder"; library_from=$2; shift ;;
    --library-from=*) library_from=${1#--library-from=} ;;
    -h|--help) usage; exit 0 ;;
    -*) die_usage "unknown option '$1' (known: --root, --base-python, --library-from, --check, --rebuild, --list)" ;;
    *) [ -z "$release" ] || die_usage "one release at a time (got '$release' and '$1')"; release=$1 ;;
  esac
  shift
done

if [ "$mode" = list ]; then
  releases
  exit 0
fi
[ -n "$release" ] || { usage; exit 2; }
if [[ "$release" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  name="torch-$release"
elif [[ "$release" =~ ^[a-z][a-z0-9.-]*$ ]]; then
  name=$release
else
  die_usage "'$release' is not a torch release (X.Y.Z, e.g. 2.9.1) or an environment name (envs/NAME.txt)"
fi
req="$envs_dir/$name.txt"
if [ ! -f "$req" ]; then
  known=$(releases | tr '\n' ' ')
  die_usage "no requirements file envs/$name.txt (known: ${known% })"
fi
if [ "$name" != "torch-$release" ]; then
  release=$(sed -n 's/^torch==\([0-9][0-9.]*\).*/\1/p' "$req" | head -n 1)
  [ -n "$release" ] || die_usage "envs/$name.txt pins no torch (want a line torch==X.Y.Z)"
fi
pypi_only=$(grep -c '^# opsweep-env: pypi-only' "$req" || true)
verify_mods=$(sed -n 's/^# opsweep-env: verify //p' "$req" | head -n 1)
verify_mods=${verify_mods:-torch kornia onnx onnxscript onnxruntime numpy openvino tract}
[ -n "$root" ] || die_usage "--root is empty"
if [ -n "$library_from" ]; then
  [ -d "$library_from" ] || die_usage "--library-from $library_from is not a folder"
  library_from=$(cd "$library_from" && pwd)
fi
mkdir -p "$root"
root=$(cd "$root" && pwd)
venv="$root/$name"
py="$venv/bin/python"
stamp="$venv/opsweep-env.stamp"

# What the stamp promises: this requirements file (and the files it includes with -r or -c, named
# relative to envs/), this harness.
want_stamp() {
  echo "release $release"
  [ "$name" = "torch-$release" ] || echo "environment $name"
  echo "harness $checkout/python"
  [ -z "$library_from" ] || echo "library-from $library_from"
  sha256sum "$req" | cut -d' ' -f1
  { grep -E '^-[rc] ' "$req" || true; } | while read -r _ inc; do
    if [ -f "$envs_dir/$inc" ]; then sha256sum "$envs_dir/$inc" | cut -d' ' -f1; else echo "missing $inc"; fi
  done
}

# Imports what the workers need and prints the measured versions as one JSON object; fails (exit 1)
# when an import fails or torch is not the release asked for.
verify() {
  "$py" - "$release" "$checkout/python" "$verify_mods" <<'PY'
import importlib, importlib.metadata, json, os, sys
release, harness = sys.argv[1], sys.argv[2]
mods = [*sys.argv[3].split(), "opsweep.worker"]
versions, errors = {}, []
for name in mods:
    try:
        importlib.import_module(name)
        if "." not in name:
            versions[name] = importlib.metadata.version(name)
    except Exception as e:  # noqa: BLE001 - every failure is reported, none hides the others
        errors.append(f"{name}: {type(e).__name__}: {e}")
try:
    import opsweep
    if os.path.realpath(os.path.dirname(os.path.dirname(opsweep.__file__))) != os.path.realpath(harness):
        errors.append(f"opsweep is imported from {os.path.dirname(opsweep.__file__)}, not from {harness}")
except Exception:  # noqa: BLE001 - already reported as opsweep.worker
    pass
if "torch" in versions:
    import torch
    versions["torch"] = torch.__version__  # with its local label (+cpu, +cu128)
    if torch.__version__.split("+")[0] != release:
        errors.append(f"torch is {torch.__version__}, not {release}")
print(json.dumps({"python": sys.executable, "versions": versions}, sort_keys=True))
for e in errors:
    print("torch-env.sh: " + e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
}

if [ "$mode" = check ]; then
  [ -x "$py" ] || { say "no environment at $venv (build it: bash scripts/torch-env.sh $name)"; exit 1; }
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(want_stamp)" ] ||
    say "warning: $venv is not built from the current envs/$name.txt (rebuild it)"
  verify
  exit $?
fi

if [ "$mode" = build ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(want_stamp)" ] && [ -x "$py" ]; then
  say "reusing $venv (built from the current envs/$name.txt)"
  echo "$py"
  exit 0
fi

# Built from the same files for another checkout (a worktree, a moved clone): the install is the
# same, only the .pth names another harness. Re-point it and verify; nothing is reinstalled.
without_harness() { grep -v '^harness ' || true; }
if [ "$mode" = build ] && [ -f "$stamp" ] && [ -x "$py" ] &&
   [ "$(without_harness < "$stamp")" = "$(want_stamp | without_harness)" ]; then
  say "re-pointing $venv at this checkout's harness ($checkout/python)"
  site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  rm -f "$stamp"  # unstamped until verified: an interrupted re-point never passes for a finished one
  echo "$checkout/python" > "$site/opsweep-harness.pth"
  verify >&2 || { say "verification failed (the venv at $venv is left unstamped)"; exit 1; }
  want_stamp > "$stamp.tmp"
  mv "$stamp.tmp" "$stamp"
  echo "$py"
  exit 0
fi

if [ -e "$venv" ]; then
  say "removing $venv (incomplete, stale or --rebuild)"
  rm -rf "$venv"
fi
say "building $venv from envs/$name.txt"
"$base_python" -m venv "$venv"
# The requirements file is the whole constraint: lift the machine's cap for this install only.
pip_env=(PIP_CONSTRAINT=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1)
if [ "$pypi_only" != 0 ]; then
  say "installing from PyPI alone (# opsweep-env: pypi-only)"
  pip_env+=(PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= PIP_EXTRA_INDEX_URL= PIP_INDEX_URL=https://pypi.org/simple)
fi
env "${pip_env[@]}" "$py" -m pip install --no-input -r "$req" >&2 ||
  { say "pip install -r envs/$name.txt failed (the venv at $venv is left unstamped)"; exit 1; }
if [ -n "$library_from" ]; then
  PIP_CONSTRAINT=/dev/null "$py" -m pip install --no-input --no-deps -e "$library_from" >&2 ||
    { say "pip install -e $library_from failed (the venv at $venv is left unstamped)"; exit 1; }
fi
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$checkout/python" > "$site/opsweep-harness.pth"
"$py" -m pip freeze --all > "$venv/opsweep-freeze.txt"
say "verifying"
verify >&2 || { say "verification failed (the venv at $venv is left unstamped)"; exit 1; }
want_stamp > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
say "done: $(du -sh "$venv" | cut -f1) in $venv"
echo "$py"
