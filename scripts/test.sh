#!/usr/bin/env bash
# Runs every test: the C++ unit and end-to-end tests (ctest), then the Python tests (pytest, real
# torch, real headless chromium). Expects scripts/install.sh --test to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build/tests -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPSWEEP_BUILD_TESTS=ON >/dev/null
cmake --build build/tests -j "$jobs"
(cd build/tests && ctest --output-on-failure -j "$jobs")
export OPSWEEP_BINARY="$PWD/build/tests/opsweep"
# Workers and tests import this checkout's harness, not whatever copy is installed.
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
python3 -m pytest -q tests python/tests "$@"
