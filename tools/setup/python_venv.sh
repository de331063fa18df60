#!/usr/bin/env bash
# Creates the Python environment the Python-side tests use (tritonclient against amp-serve,
# the amprt package's build tools, pytest), in .venv at the repository root, installing only
# what is missing.
#
#   bash tools/setup/python_venv.sh [VENV_DIR]
#
# Never fails the caller: without a python3 that can make venvs, or without PyPI, it says
# so and the tests that need the packages skip with that reason (tests/serve/run_pytest.sh).
# CI reaches PyPI, so there they run.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="${1:-$ROOT/.venv}"
# Pinned so that a fresh machine tests what we tested. tritonclient: amp-serve's tests;
# scikit-build-core + nanobind: building the amprt package (pip install --no-build-isolation);
# ml_dtypes: bfloat16 arrays.
PACKAGES=(numpy==2.4.6 pytest==8.4.2 "tritonclient[http,grpc]==2.62.0"
  scikit-build-core==1.1.2 nanobind==3.1.0 ml_dtypes==0.7.0)
# Installed on their own: the Ray Serve sample's test skips when this cannot be installed.
OPTIONAL=("ray[serve]==2.60.0")

if [ ! -x "$VENV/bin/python" ]; then
  if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
    echo "python_venv: cannot create a venv at $VENV (python3 -m venv failed); Python tests will skip"
    exit 0
  fi
fi
if "$VENV/bin/python" - "${PACKAGES[@]}" "${OPTIONAL[@]}" <<'PY' >/dev/null 2>&1; then
import sys
from importlib.metadata import version, PackageNotFoundError
for spec in sys.argv[1:]:
    name, want = spec.split("==")
    name = name.split("[")[0]
    try:
        if version(name) != want:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
  echo "python_venv: $VENV up to date"
  exit 0
fi
echo "python_venv: installing ${PACKAGES[*]} into $VENV"
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PACKAGES[@]}"; then
  echo "python_venv: pip install failed (no PyPI?); Python tests will skip"
  exit 0
fi
echo "python_venv: installing ${OPTIONAL[*]}"
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${OPTIONAL[@]}"; then
  echo "python_venv: ${OPTIONAL[*]} could not be installed; the Ray Serve sample's test will skip"
fi
exit 0
