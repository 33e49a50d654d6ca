#!/usr/bin/env bash
# Installs everything opsweep needs on a fresh Debian machine: the C++ libraries, the pinned Python
# packages (torch 2.13.0 CPU build first, so nothing pulls another torch) and opsweep itself.
#   bash scripts/install.sh          # to run surveys
#   bash scripts/install.sh --test   # also what the tests need (GoogleTest, chromium, pytest, selenium)
set -euo pipefail
cd "$(dirname "$0")/.."

want_tests=no
for arg in "$@"; do
  case "$arg" in
    --test) want_tests=yes ;;
    *) echo "install.sh: unknown option '$arg' (known: --test)" >&2; exit 2 ;;
  esac
done

debs=(build-essential cmake ninja-build pkg-config zlib1g-dev libcli11-dev nlohmann-json3-dev libsqlite3-dev libfmt-dev libxxhash-dev)
if [ "$want_tests" = yes ]; then
  debs+=(libgtest-dev chromium chromium-driver)
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

PY=${PYTHON:-python3}
if [ "$want_tests" = yes ]; then
  "$PY" -m pip install -q -r requirements-test.txt
else
  "$PY" -m pip install -q -r requirements.txt
fi
"$PY" -m pip install -q .
echo "install.sh: opsweep $(opsweep --version 2>/dev/null || echo '?') installed at $(command -v opsweep || echo '(not on PATH)')"
