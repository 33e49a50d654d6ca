#!/usr/bin/env bash
# Installs everything opsweep needs on a fresh Debian machine: the C++ libraries, the pinned Python
# packages (torch 2.13.0 CPU build first, so nothing pulls another torch) and opsweep itself.
#   bash scripts/install.sh          # to run surveys
#   bash scripts/install.sh --test   # also what the tests need (GoogleTest, chromium, pytest, selenium)
# The pinned packages download and unpack while the Debian packages install and the engine builds:
# the engine's build needs none of them (`pip install .` pulls no dependency), and the build is
# CPU-bound where pip mostly waits on the network and the disk.
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=no
for arg in "$@"; do
  case "$arg" in
    --test) want_tests=yes ;;
    *) echo "install.sh: unknown option '$arg' (known: --test)" >&2; exit 2 ;;
  esac
done

PY=${PYTHON:-python3}
# The build backend, pinned as in pyproject.toml, installed once beside the packages: `pip install
# --no-build-isolation .` then builds with it (and the system's cmake and ninja) instead of first
# creating a throwaway environment and installing the backend into it. Installed before the pinned
# packages start, so that the two pip processes below never write the same package (packaging).
"$PY" -m pip install -q scikit-build-core==1.1.2
reqs=requirements.txt
[ "$want_tests" = yes ] && reqs=requirements-test.txt
"$PY" -m pip install -q -r "$reqs" &
reqs_pid=$!
# a failure below stops that pip too, rather than leaving it installing behind the error
trap '[ -n "$reqs_pid" ] && kill "$reqs_pid" 2>/dev/null; true' EXIT

debs=(build-essential cmake ninja-build pkg-config zlib1g-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev libfmt-dev libxxhash-dev)
if [ "$want_tests" = yes ]; then
  debs+=(libgtest-dev chromium chromium-driver)
fi
# The workers build the recorder's frame hook (python/opsweep/deps/_frames.c) against the
# interpreter's headers; Debian's own python3 has them in python3-dev.
if ! "$PY" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  debs+=(python3-dev)
fi
missing=()
for d in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "install ok installed" || missing+=("$d")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

"$PY" -m pip install -q --no-build-isolation .
wait "$reqs_pid"
reqs_pid=
echo "install.sh: opsweep $(opsweep --version 2>/dev/null || echo '?') installed at $(command -v opsweep || echo '(not on PATH)')"
