#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer.
#
#   tools/check/sanitize.sh            # configure build-asan, build, run ctest
#
# Environment (optional): BUILD_DIR (default build-asan), JOBS (default 2), CC/CXX
# (default gcc/g++). CUDA is off: its code cannot run without a GPU and the sanitizers do
# not see into device memory; the CPU backend, graph, AMP planner, reader and importer are
# all covered. Any report fails the run: UBSan does not recover (-fno-sanitize-recover),
# ASan and LSan abort by default.
#
# Too slow for .ci/run on two cores (~25-30 min to build, a few minutes to test), so it is
# a documented command (README "Robustness"), run before a release and after touching
# memory-handling code.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-asan}"
JOBS="${JOBS:-2}"

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="${CC:-gcc}" -DCMAKE_CXX_COMPILER="${CXX:-g++}" \
  -DAMP_SANITIZE=ON -DAMP_ENABLE_CUDA=OFF
cmake --build "$BUILD_DIR" -j"$JOBS"

# detect_leaks: LSan at exit of every test binary. lsan.supp: leaks inside third-party
# libraries we do not own (see the file). halt_on_error with abort so ctest sees a failure.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$ROOT/tools/check/lsan.supp:print_suppressions=0"
# Not the Python package's two tests: installing it reuses this build folder with the
# package's own settings (pyproject.toml: Release), so it reconfigured build-asan and rebuilt
# it whole, past the fixture's 900 s on an AMD EPYC VM; and a Python without libasan
# preloaded cannot import a sanitized extension anyway. Where the venv is missing they skip.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" -E '^python_package_'
echo "sanitize: whole suite clean under ASan + UBSan + LSan (Python package tests excluded)"
