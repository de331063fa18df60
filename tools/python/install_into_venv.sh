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
source "$ROOT/tools/setup/venv_python.sh" "import scikit_build_core, nanobind, numpy" \
  "scikit-build-core / nanobind"
exec "$PY" -m pip install --no-build-isolation --disable-pip-version-check -q "$ROOT" \
  -Cbuild-dir="$BUILD"
