#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz), generates their seed corpus, and runs the
# fuzzers side by side for a bounded time, then prints executions and coverage:
#   amp_reader_fuzzer     an .amp file through Engine::load's graph stages
#   onnx_importer_fuzzer  an ONNX file through the importer, conversion, .amp round trip
#   engine_run_fuzzer     either file through the public API: load, plan, kernels, runs
#
#   tools/fuzz/run_fuzzers.sh [SECONDS_PER_FUZZER]        # default 600
#
# Environment (all optional):
#   BUILD_DIR    fuzz build folder (default: build-fuzz in the repository root)
#   JOBS         build parallelism (default 2)
#   AMP_CONVERT  an amp-convert binary to make the .amp seeds with (default: the one this
#                script builds, instrumented, in BUILD_DIR)
#   CC, CXX      clang to build with (default clang-14 / clang++-14)
#   SHARED_DIR   the shared test data (default ../shared next to the repository)
#   MAX_LEN      libFuzzer -max_len in bytes (default 3 MB; smaller runs faster on the small
#                node-test seeds but truncates the real models)
#   REUSE_SEEDS  1: keep $BUILD_DIR/seeds from an earlier run (converting 1,800 models
#                takes minutes)
#   KEEP_GOING   1: fork mode (-fork=1), which records a crash, hang or out-of-memory and
#                keeps fuzzing, to collect many findings in one run (default: stop at the
#                first, as a final check should)
#   FUZZERS      which to run (default: all three; each gets SECONDS_PER_FUZZER, side by
#                side, so three share two cores)
#
# Seeds: every model.onnx under $SHARED_DIR/models and $SHARED_DIR/onnx-node-tests, each
# also converted to .amp, plus the checked-in regression inputs under tests/data/fuzz.
# Both formats go to every fuzzer (the wrong format is rejected in microseconds, and the
# mutations of one occasionally reach the other). Without $SHARED_DIR only tests/data is
# used. Seeds live in $BUILD_DIR/seeds, the growing corpus in $BUILD_DIR/corpus (neither is
# checked in), crashes in $BUILD_DIR/artifacts. Exit status 1 when a fuzzer found something.
#
# A finding becomes a regression input: minimize it with
#   $BUILD_DIR/tests/fuzz/amp_reader_fuzzer -minimize_crash=1 -max_total_time=60 \
#     -exact_artifact_path=tests/data/fuzz/amp/NAME.amp CRASH_FILE
# (onnx_importer_fuzzer and tests/data/fuzz/onnx/NAME.onnx likewise); the GoogleTest
# FuzzRegression replays every file there. engine_run_fuzzer's go to tests/data/fuzz/run/
# (keep the .onnx or .amp suffix), replayed by FuzzRunRegression with the loaders' ones.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SECONDS_EACH="${1:-600}"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-fuzz}"
JOBS="${JOBS:-2}"
CC="${CC:-clang-14}"
CXX="${CXX:-clang++-14}"
SHARED_DIR="${SHARED_DIR:-$ROOT/../shared}"
NICE="nice -n 15"

# libFuzzer limits: inputs up to 3 MB (the largest shared model is 2.2 MB), 10 s per input
# (a slow input is a finding: load time must stay linear), 2 GB of memory (a single
# allocation above it is reported as an out-of-memory finding). The engine fuzzer gets 30 s:
# it runs a model three times, at up to 3x its batch, ~10-20x slower under ASan + UBSan +
# coverage than in a release build, so an ordinary super-resolution input (60 ms a run in
# release) took 1-9 s and two cores shared with a build pushed such inputs past 10 s; 30 s
# still catches a path 10x slower than it should be (Winograd's scalar Inf fallback, 70x,
# was one).
MAX_LEN="${MAX_LEN:-3145728}"
TIMEOUT=10
ENGINE_TIMEOUT=30
RSS_MB=2048

if ! [[ "$SECONDS_EACH" =~ ^[0-9]+$ ]] || [ "$SECONDS_EACH" -eq 0 ]; then
  echo "usage: $0 [SECONDS_PER_FUZZER]" >&2
  exit 2
fi

echo "== build ($BUILD_DIR)"
$NICE cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" -DAMP_FUZZ=ON \
  -DAMP_ENABLE_CUDA=OFF -DAMP_BUILD_TESTS=OFF -DAMP_BUILD_SAMPLES=OFF >/dev/null
FUZZERS="${FUZZERS:-amp_reader_fuzzer onnx_importer_fuzzer engine_run_fuzzer}"
read -r -a TARGETS <<<"$FUZZERS"
for name in "${TARGETS[@]}"; do
  case "$name" in
  amp_reader_fuzzer | onnx_importer_fuzzer | engine_run_fuzzer) ;;
  *)
    echo "unknown fuzzer '$name' in FUZZERS" >&2
    exit 2
    ;;
  esac
done
FUZZ_TARGETS=("${TARGETS[@]}")
[ -z "${AMP_CONVERT:-}" ] && TARGETS+=(amp-convert)
$NICE cmake --build "$BUILD_DIR" -j "$JOBS" --target "${TARGETS[@]}"
AMP_CONVERT="${AMP_CONVERT:-$BUILD_DIR/tools/convert/amp-convert}"

echo "== seeds"
SEEDS="$BUILD_DIR/seeds"
mkdir -p "$BUILD_DIR/corpus/amp" "$BUILD_DIR/corpus/onnx" "$BUILD_DIR/corpus/run" \
  "$BUILD_DIR/artifacts/amp" "$BUILD_DIR/artifacts/onnx" "$BUILD_DIR/artifacts/run"

make_seeds() {
  rm -rf "$SEEDS"
  mkdir -p "$SEEDS/onnx" "$SEEDS/amp"
  local f model name converted=0 failed=0
  for f in "$ROOT"/tests/data/fuzz/onnx/* "$ROOT"/tests/data/*.onnx; do
    [ -f "$f" ] && cp "$f" "$SEEDS/onnx/"
  done
  for f in "$ROOT"/tests/data/fuzz/amp/* "$ROOT"/tests/data/*.amp; do
    [ -f "$f" ] && cp "$f" "$SEEDS/amp/"
  done
  if ! [ -d "$SHARED_DIR/models" ] || ! [ -d "$SHARED_DIR/onnx-node-tests" ]; then
    echo "SKIP shared seeds: $SHARED_DIR (models, onnx-node-tests) is absent;" \
      "seeding from tests/data only"
    return
  fi
  for model in "$SHARED_DIR"/models/*/model.onnx "$SHARED_DIR"/onnx-node-tests/*/model.onnx; do
    [ -f "$model" ] || continue
    name="$(basename "$(dirname "$model")")"
    cp "$model" "$SEEDS/onnx/$name.onnx"
    # Unsupported ops and dtypes fail to convert; those stay ONNX-only seeds.
    if ASAN_OPTIONS=detect_leaks=0 $NICE "$AMP_CONVERT" "$model" "$SEEDS/amp/$name.amp" \
      >/dev/null 2>&1; then
      converted=$((converted + 1))
    else
      failed=$((failed + 1))
      rm -f "$SEEDS/amp/$name.amp"
    fi
  done
  echo "seeds from $SHARED_DIR: $((converted + failed)) ONNX models, $converted converted" \
    "to .amp ($failed do not convert: unsupported ops or dtypes)"
}

if [ "${REUSE_SEEDS:-0}" = 1 ] && [ -d "$SEEDS/onnx" ] && [ -d "$SEEDS/amp" ]; then
  echo "reusing $SEEDS"
else
  make_seeds
fi
echo "seed files: $(ls "$SEEDS/onnx" | wc -l) .onnx, $(ls "$SEEDS/amp" | wc -l) .amp"

# Op names help the ONNX mutator build nodes the importer knows.
DICT="$BUILD_DIR/onnx.dict"
sed -n 's/^AMP_OP(\([A-Za-z]*\),.*/"\1"/p' "$ROOT/graph/ops/op_types.def" >"$DICT"
printf '"%s"\n' ai.onnx axis axes perm shape value to mode pads kernel_shape strides \
  group epsilon >>"$DICT"

run_fuzzer() {  # name corpus artifacts dict-or-empty seed-dirs...
  local name="$1" corpus="$2" artifacts="$3" dict="$4"
  shift 4
  local extra=()
  [ -n "$dict" ] && extra+=("-dict=$dict")
  local timeout="$TIMEOUT"
  [ "$name" = engine_run_fuzzer ] && timeout="$ENGINE_TIMEOUT"
  [ "${KEEP_GOING:-0}" = 1 ] && extra+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  # Leaks are checked; UBSan stops at the first report (fuzz build flags).
  $NICE "$BUILD_DIR/tests/fuzz/$name" -max_total_time="$SECONDS_EACH" -timeout="$timeout" \
    -rss_limit_mb="$RSS_MB" -max_len="$MAX_LEN" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${extra[@]}" "$corpus" "$@" \
    >"$BUILD_DIR/$name.log" 2>&1
}

echo "== fuzzing ${SECONDS_EACH}s each, all at once: ${FUZZ_TARGETS[*]} (logs: $BUILD_DIR/*_fuzzer.log)"
start=$(date +%s)
status=0
pids=()
for name in "${FUZZ_TARGETS[@]}"; do
  case "$name" in
  amp_reader_fuzzer)
    run_fuzzer "$name" "$BUILD_DIR/corpus/amp" "$BUILD_DIR/artifacts/amp" "" \
      "$SEEDS/amp" "$SEEDS/onnx" &
    ;;
  onnx_importer_fuzzer)
    run_fuzzer "$name" "$BUILD_DIR/corpus/onnx" "$BUILD_DIR/artifacts/onnx" "$DICT" \
      "$SEEDS/onnx" "$SEEDS/amp" &
    ;;
  engine_run_fuzzer)
    run_fuzzer "$name" "$BUILD_DIR/corpus/run" "$BUILD_DIR/artifacts/run" "$DICT" \
      "$SEEDS/onnx" "$SEEDS/amp" &
    ;;
  esac
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
echo "wall time: $(($(date +%s) - start)) s"

echo "== results"
for name in "${FUZZ_TARGETS[@]}"; do
  log="$BUILD_DIR/$name.log"
  last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
  # Fork mode (KEEP_GOING) prints no final stats: take the last status line's count.
  [ -z "$execs" ] && execs="$(printf '%s' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')"
  [ -z "$rate" ] && rate="$(printf '%s' "$last" | sed -n 's/.*exec\/s \([0-9]*\).*/\1/p')"
  rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")"
  echo "$name: execs ${execs:-?}, exec/s ${rate:-?}, peak RSS ${rss:-?} MB"
  echo "  last status: ${last:-none}"
  if grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|internal error:' \
    "$log"; then
    echo "  FINDING: see $log"
    grep -E 'ERROR:|runtime error:|internal error:|Test unit written to' "$log" | head -n 5 |
      sed 's/^/    /'
  fi
done
exit "$status"
