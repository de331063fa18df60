#!/usr/bin/env bash
# Runs the amp-serve integration tests (pytest + tritonclient) in the repository's venv
# (tools/setup/python_venv.sh makes it). Exit 77 (CTest: skipped) with the reason when the
# venv or its packages are missing.
#
#   tests/serve/run_pytest.sh AMP_SERVE AMP_MAKE_DEMO [pytest args]
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
source "$ROOT/tools/setup/venv_python.sh" \
  "import pytest, numpy, tritonclient.http, tritonclient.grpc" "pytest / tritonclient"
export AMP_SERVE="$1" AMP_MAKE_DEMO="$2"
shift 2
cd "$ROOT/tests/serve" && exec "$PY" -m pytest -q -p no:cacheprovider "$@" .
