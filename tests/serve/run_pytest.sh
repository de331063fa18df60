#!/usr/bin/env bash
# Runs the amp-serve integration tests (pytest + tritonclient) in the repository's venv
# (tools/setup/python_venv.sh makes it). Exit 77 (CTest: skipped) with the reason when the
# venv or its packages are missing.
#
#   tests/serve/run_pytest.sh AMP_SERVE AMP_MAKE_DEMO [pytest args]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${AMP_VENV:-$ROOT/.venv}/bin/python"
export AMP_SERVE="$1" AMP_MAKE_DEMO="$2"
shift 2
if [ ! -x "$PY" ]; then
  echo "SKIP: no venv at ${AMP_VENV:-$ROOT/.venv} (bash tools/setup/python_venv.sh makes it)"
  exit 77
fi
if ! "$PY" -c "import pytest, numpy, tritonclient.http, tritonclient.grpc" 2>/dev/null; then
  echo "SKIP: pytest / tritonclient not installed in the venv (no PyPI when it was made?)"
  exit 77
fi
cd "$ROOT/tests/serve" && exec "$PY" -m pytest -q -p no:cacheprovider "$@" .
