#!/usr/bin/env bash
# The concurrency tests (and the rest of the runtime tests) under ThreadSanitizer.
#
#   tools/check/tsan.sh                # configure build-tsan, build, run
#
# Environment (optional): BUILD_DIR (default build-tsan), JOBS (default 2), FILTER (a
# GoogleTest filter; default every runtime test).
#
# Only amp_runtime_tests is built (CUDA off): it holds the multi-threaded tests
# (*Concurrency*, EngineTest.OneEngineManyThreads*, Lifecycle.*) and drives everything
# below the API. OMP_THREAD_LIMIT=1 keeps every OpenMP region on its caller's thread, also
# where a test asks for Options::threads = 2 (OMP_NUM_THREADS=1 covers only threads = 0):
# libgomp (OpenMP, used by our CPU kernels and by oneDNN) is not built with TSan, so TSan
# cannot see its barriers and every parallel region would report false races (tsan.supp
# explains). What is under test is the sharing between user threads: one Engine, its plan
# cache and context pool, many threads. The build compiles the ISA clones out
# (AMP_NO_ISA_CLONES, CMakeLists.txt): their resolvers run before TSan's runtime exists.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-tsan}"
JOBS="${JOBS:-2}"

cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DAMP_TSAN=ON -DAMP_ENABLE_CUDA=OFF -DAMP_BUILD_SAMPLES=OFF
cmake --build "$BUILD_DIR" -j"$JOBS" --target amp_runtime_tests

export OMP_NUM_THREADS=1 OMP_THREAD_LIMIT=1
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$ROOT/tools/check/tsan.supp"
"$BUILD_DIR/tests/amp_runtime_tests" --gtest_filter="${FILTER:-*}"
echo "tsan: no data races reported"
