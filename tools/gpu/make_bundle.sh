#!/usr/bin/env bash
# Packs what tools/gpu/check.sh and tools/gpu/compare_torch.py need on the lent GPU
# machine into one small archive, on THIS machine (which has the build but no GPU).
#
# Why: the GPU machine has the NVIDIA driver, CUDA 13, cuDNN and cuBLAS (in its Python
# packages) but none of our Debian libraries (oneDNN, ONNX, protobuf, ...), and at most
# 64 MiB travel with a call. The bundle holds the three programs, stripped, plus every
# shared library they load that the GPU machine does not provide, stripped, in one xz
# archive (typically 10-20 MiB; Debian's libdnnl is the biggest part).
#
# Left out on purpose (the GPU machine has them, and ours could clash): the glibc family,
# libstdc++ / libgcc_s (its newer ones are backward compatible), the driver (libcuda,
# libnvidia-*), cuDNN and cuBLAS/cuBLASLt (hundreds of MB; found there in the Python
# packages nvidia-cudnn-cu13 / nvidia-cublas by check.sh). Our programs do not link those
# three (ldd does not list them; kernels/cuda/cuda_libraries.h opens them at run time) and
# link the CUDA runtime statically.
#
# Usage (repository root):
#   cmake -S . -B build-gpu-src -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
#   cmake --build build-gpu-src --target amp_cuda_tests amprun amp-make-demo-models
#   tools/gpu/make_bundle.sh build-gpu-src build-gpu     # writes build-gpu/amp-gpu-bundle.tar.xz
# then, with the device tool: run(command="tools/gpu/check.sh", carry=["build-gpu"]).
# ../shared/models does not travel to the GPU machine; when it exists here its ONNX models
# (a few MB) are copied into the bundle, so check.sh can run them there.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [OUT_DIR (default build-gpu)]" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
OUT_DIR=${2:-build-gpu}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
NAME=amp-gpu-bundle

declare -A PROGRAMS=(
  [amp_cuda_tests]="$BUILD_DIR/tests/amp_cuda_tests"
  [amprun]="$BUILD_DIR/tools/amprun/amprun"
  [amp-make-demo-models]="$BUILD_DIR/tools/demo/amp-make-demo-models"
)
missing=0
for p in "${!PROGRAMS[@]}"; do
  if [[ ! -x ${PROGRAMS[$p]} ]]; then
    echo "error: $p not found at ${PROGRAMS[$p]} (build it: cmake --build $1 --target $p)" >&2
    missing=1
  fi
done
[[ $missing -eq 0 ]] || exit 1

STAGE_ROOT=$(mktemp -d /tmp/amp-bundle.XXXXXX)
trap 'rm -rf "$STAGE_ROOT"' EXIT
STAGE=$STAGE_ROOT/$NAME
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/models"

# Shared libraries the GPU machine provides itself (header comment).
SKIP_RE='^(linux-vdso|ld-linux|libc\.so|libm\.so|libmvec|libpthread|libdl\.so|librt\.so|libresolv|libutil|libgcc_s|libstdc\+\+|libcuda\.so|libnvidia|libcudnn|libcublas)'

declare -A LIBS=()
for p in "${!PROGRAMS[@]}"; do
  cp "${PROGRAMS[$p]}" "$STAGE/bin/$p"
  strip --strip-unneeded "$STAGE/bin/$p"
  # "libx.so.1 => /path/libx.so.1 (0x...)"; "not found" is an error here already.
  if ldd "${PROGRAMS[$p]}" | grep -q "not found"; then
    echo "error: $p has unresolved libraries here:" >&2
    ldd "${PROGRAMS[$p]}" | grep "not found" >&2
    exit 1
  fi
  while read -r soname path; do
    [[ -n $path && -f $path ]] || continue
    [[ $soname =~ $SKIP_RE ]] && continue
    LIBS[$soname]=$path
  done < <(ldd "${PROGRAMS[$p]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
done

for soname in "${!LIBS[@]}"; do
  cp -L "${LIBS[$soname]}" "$STAGE/lib/$soname"
  chmod u+w "$STAGE/lib/$soname"
  strip --strip-unneeded "$STAGE/lib/$soname" 2>/dev/null || true
done

SHARED_MODELS=$REPO/../shared/models
if [[ -d $SHARED_MODELS ]]; then
  for m in "$SHARED_MODELS"/*/model.onnx; do
    [[ -f $m ]] || continue
    d=$(basename "$(dirname "$m")")
    mkdir -p "$STAGE/models/$d"
    cp "$m" "$STAGE/models/$d/model.onnx"
    # Its sample inputs: check.sh runs amprun on them (they fix symbolic dims).
    [[ -d $(dirname "$m")/test_data_set_0 ]] &&
      cp -r "$(dirname "$m")/test_data_set_0" "$STAGE/models/$d/"
  done
fi

# A slice of ../shared for amp_cuda_tests' engine tests (check.sh points AMP_SHARED_DIR at
# it): the real models with their reference data, and the ONNX node tests whose primary op
# is one of ours (graph/ops/op_types.def) -- a few MB instead of all 54.
SHARED=$REPO/../shared
if [[ -f $SHARED/onnx-node-tests-index.json ]]; then
  mkdir -p "$STAGE/shared/models" "$STAGE/shared/onnx-node-tests"
  cp "$SHARED/onnx-node-tests-index.json" "$STAGE/shared/"
  [[ -d $SHARED/models ]] && cp -r "$SHARED/models/." "$STAGE/shared/models/"
  python3 - "$REPO/graph/ops/op_types.def" "$SHARED" "$STAGE/shared" <<'PY'
import json, re, shutil, sys, os
ops = set(re.findall(r"^AMP_OP\((\w+),", open(sys.argv[1]).read(), re.M))
ops.add("Upsample")  # imported as Resize (graph/onnx/onnx_importer.cc onnx_op_type)
src, dst = sys.argv[2], sys.argv[3]
# The superset of what tests/test_util/node_tests.cc select_node_tests() can pick: cases
# of our ops, "_expanded" function bodies (any primary op) and the control-flow cases
# (primary_op null); the test itself then filters on every op and dtype.
def wanted(case):
    return (case.get("primary_op") in ops or case.get("expanded") is True
            or case.get("primary_op") is None)
for case in json.load(open(os.path.join(src, "onnx-node-tests-index.json"))):
    if wanted(case) and os.path.isdir(os.path.join(src, "onnx-node-tests", case["case"])):
        shutil.copytree(os.path.join(src, "onnx-node-tests", case["case"]),
                        os.path.join(dst, "onnx-node-tests", case["case"]))
PY
fi

{
  echo "amp-gpu-bundle"
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "git: $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$REPO" diff --quiet 2>/dev/null || echo ' (dirty tree)')"
  echo "build dir: $BUILD_DIR ($(grep -E '^CMAKE_BUILD_TYPE:' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | cut -d= -f2), archs $(grep -E '^CMAKE_CUDA_ARCHITECTURES:' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null | cut -d= -f2))"
  echo "programs: ${!PROGRAMS[*]}"
  echo "libraries: $(cd "$STAGE/lib" && ls | tr '\n' ' ')"
  echo "models: $(cd "$STAGE/models" && ls | tr '\n' ' ')"
  echo "shared slice: $(find "$STAGE/shared" -name model.onnx 2>/dev/null | wc -l) models and node tests"
} > "$STAGE/MANIFEST"

mkdir -p "$OUT_DIR"
ARCHIVE=$OUT_DIR/$NAME.tar.xz
tar -C "$STAGE_ROOT" -cf - "$NAME" | xz -9 -T2 > "$ARCHIVE.tmp"
mv "$ARCHIVE.tmp" "$ARCHIVE"
size=$(stat -c %s "$ARCHIVE")
echo "wrote $ARCHIVE ($((size / 1024 / 1024)) MiB, $(ls "$STAGE/lib" | wc -l) libraries)"
cat "$STAGE/MANIFEST"
if ((size > 60 * 1024 * 1024)); then
  echo "warning: over 60 MiB; with the working tree it may exceed the 64 MiB the device tool carries" >&2
fi
