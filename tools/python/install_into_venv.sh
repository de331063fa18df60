#!/usr/bin/env bash
# Installs the amprt package from this checkout into the repository's venv, reusing a build
# folder that is already built, so only the extension is compiled (seconds, not a rebuild):
#
#   tools/python/install_into_venv.sh BUILD_DIR
#
# The ctest fixture of the Python tests runs it. Exit 77 (CTest: skipped) with the reason when
# the venv or its build tools (scikit-build-core, nanobind) are missing.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$(cd "$1" && pwd)"
PY="${AMP_VENV:-$ROOT/.venv}/bin/python"
if [ ! -x "$PY" ]; then
  echo "SKIP: no venv at ${AMP_VENV:-$ROOT/.venv} (bash tools/setup/python_venv.sh makes it)"
  exit 77
fi
if ! "$PY" -c "import scikit_build_core, nanobind, numpy" 2>/dev/null; then
  echo "SKIP: scikit-build-core / nanobind not installed in the venv (no PyPI?)"
  exit 77
fi
exec "$PY" -m pip install --no-build-isolation --disable-pip-version-check -q "$ROOT" \
  -Cbuild-dir="$BUILD"
