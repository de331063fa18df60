#!/usr/bin/env bash
# Runs the amprt Python package tests in the repository's venv, against the package
# installed there (tools/python/install_into_venv.sh, the ctest fixture before this). Exit 77
# (CTest: skipped) with the reason when the venv or the package is missing.
#
#   tests/python/run_pytest.sh AMPRUN AMP_MAKE_DEMO [pytest args]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${AMP_VENV:-$ROOT/.venv}/bin/python"
export AMPRUN="$1" AMP_MAKE_DEMO="$2"
shift 2
if [ ! -x "$PY" ]; then
  echo "SKIP: no venv at ${AMP_VENV:-$ROOT/.venv} (bash tools/setup/python_venv.sh makes it)"
  exit 77
fi
if ! "$PY" -c "import pytest, numpy, amprt" 2>/dev/null; then
  echo "SKIP: pytest or the amprt package is not installed in the venv (no PyPI?)"
  exit 77
fi
cd "$ROOT/tests/python" && exec "$PY" -m pytest -q -p no:cacheprovider "$@" .
