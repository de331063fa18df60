#!/usr/bin/env bash
# Builds and runs the libFuzzer target over amp-serve's REST request parser
# (tests/fuzz/v2_request_fuzzer.cc) for a bounded time.
#
#   tools/fuzz/run_serve_fuzzer.sh [SECONDS]        # default 600
#
# Environment: BUILD_DIR (default build-fuzz), JOBS (2), CC / CXX (clang-14 / clang++-14).
# Seeds: tests/data/fuzz/v2 (checked in; the GoogleTest V2JsonCodec.FuzzSeeds replays them),
# the growing corpus in $BUILD_DIR/corpus/v2, findings in $BUILD_DIR/artifacts/v2. Exit
# status 1 when the fuzzer found something. A finding becomes a regression seed: minimize it
# with -minimize_crash=1 and save it under tests/data/fuzz/v2/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SECONDS_TOTAL="${1:-600}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${JOBS:-2}"
CC="${CC:-clang-14}"
CXX="${CXX:-clang++-14}"
if ! [[ "$SECONDS_TOTAL" =~ ^[0-9]+$ ]] || [ "$SECONDS_TOTAL" -eq 0 ]; then
  echo "usage: $0 [SECONDS]" >&2
  exit 2
fi
nice -n 15 cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DAMP_FUZZ=ON \
  -DAMP_ENABLE_CUDA=OFF -DAMP_BUILD_TESTS=OFF -DAMP_BUILD_SAMPLES=OFF >/dev/null
nice -n 15 cmake --build "$BUILD_DIR" -j "$JOBS" --target v2_request_fuzzer
mkdir -p "$BUILD_DIR/corpus/v2" "$BUILD_DIR/artifacts/v2"
# Inputs up to 64 KB (JSON headers and small binary tensors), 10 s per input, 2 GB of memory:
# a request that makes the parser allocate more than that is a finding.
"$BUILD_DIR/tests/fuzz/v2_request_fuzzer" "$BUILD_DIR/corpus/v2" "$ROOT/tests/data/fuzz/v2" \
  -dict="$ROOT/tests/fuzz/v2_request.dict" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -malloc_limit_mb=2048 -max_total_time="$SECONDS_TOTAL" -print_final_stats=1 \
  -artifact_prefix="$BUILD_DIR/artifacts/v2/"
