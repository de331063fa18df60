#!/usr/bin/env bash
# Runs the amprt Python package tests in the repository's venv, against the package
# installed there (tools/python/install_into_venv.sh, the ctest fixture before this). Exit 77
# (CTest: skipped) with the reason when the venv or the package is missing.
#
#   tests/python/run_pytest.sh AMPRUN AMP_MAKE_DEMO [pytest args]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$ROOT/tools/setup/venv_python.sh" "import pytest, numpy, amprt" "pytest / the amprt package"
export AMPRUN="$1" AMP_MAKE_DEMO="$2"
shift 2
cd "$ROOT/tests/python" && exec "$PY" -m pytest -q -p no:cacheprovider "$@" .
