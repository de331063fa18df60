# Sourced by the scripts ctest runs in the repository's venv (tests/serve/run_pytest.sh,
# tests/python/run_pytest.sh, tools/python/install_into_venv.sh):
#
#   source tools/setup/venv_python.sh "import pytest, numpy" "pytest / numpy"
#
# Sets PY to the venv's python, or exits 77 (CTest: skipped) with the reason when the venv
# (AMP_VENV, default .venv at the repository root) is missing or the import fails.
AMP_VENV_DIR="${AMP_VENV:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.venv}"
PY="$AMP_VENV_DIR/bin/python"
if [ ! -x "$PY" ]; then
  echo "SKIP: no venv at $AMP_VENV_DIR (bash tools/setup/python_venv.sh makes it)"
  exit 77
fi
if ! "$PY" -c "$1" 2>/dev/null; then
  echo "SKIP: $2 not installed in the venv at $AMP_VENV_DIR (no PyPI when it was made?)"
  exit 77
fi
