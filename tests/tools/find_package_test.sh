#!/usr/bin/env bash
# The CMake package, as a user meets it: install the build into a fresh prefix, configure and
# build samples/load_and_run out of tree with find_package(AMPRT), and run it on a model.
#
#   tests/tools/find_package_test.sh BUILD_DIR AMP_MAKE_DEMO_MODELS
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="$1"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$2" "$WORK/models" >/dev/null
MODEL="$WORK/models/demo_resnet.amp"
cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
test -f "$WORK/prefix/lib/cmake/AMPRT/AMPRTConfig.cmake"
test -x "$WORK/prefix/bin/amprun"
cmake -S "$ROOT/samples/load_and_run" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" >/dev/null
cmake --build "$WORK/build" >/dev/null
# The sample must run from the installed library, not the build tree's.
ldd "$WORK/build/sample_load_and_run" >"$WORK/ldd.txt"
grep -q "$WORK/prefix/lib/libamprt.so" "$WORK/ldd.txt" || {
  echo "sample_load_and_run does not use the installed libamprt.so:"
  cat "$WORK/ldd.txt"
  exit 1
}
"$WORK/build/sample_load_and_run" "$MODEL"
"$WORK/prefix/bin/amprun" --model "$MODEL" --iterations 3 --warmup 1 >/dev/null
echo "find_package(AMPRT): built and ran samples/load_and_run against $WORK/prefix"
