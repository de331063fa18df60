#!/usr/bin/env bash
# tools/gpu/check.sh: the GPU check, run on the lent GPU machine in one call. It
#   1. runs the CUDA op tests (amp_cuda_tests: each CUDA kernel against the CPU backend;
#      after step 3b / 3d below),
#   2. writes the demo models (amp-make-demo-models: demo_resnet.amp, demo_transformer.amp,
#      and with --bench-models the CPU bench's three detectors) and finds the ONNX models of
#      ../shared/models (when present),
#   3. first what has never run on a GPU:
#      3b. profiles the demo transformer on CUDA (amprun --profile --profile-json) and checks
#          the Chrome trace has one event per executed node,
#      3d. runs attention with each CUDA path forced (AMP_CUDA_ATTENTION=gemm / flash,
#          kernels/cuda/attention.cu): the demo BERT encoder at 64 x 16 tokens and one
#          causal attention op at 512 and 4096 tokens (amp-make-demo-models
#          --attention-model), the GEMM path in fp32 as the reference of the others (flash
#          fp32 / fp16, GEMM fp16), and once unforced, profiled, to show the path the
#          kernel picks (flash only above 64 MiB of GEMM-path scores until this says more),
#   then runs the CUDA op tests (step 1, after what has never run),
#   then runs amprun on every model at fp32, fp16 and bf16 on the CUDA backend, fp16/bf16
#   compared against fp32, and (3c) at fp16 with --precision-timing on (off by default on
#   CUDA until it has run on a GPU),
#   4. prints one table (tools/gpu/check_table.py): op tests passed, each model's median
#      latency per precision, the fp16 speed-up, accuracy against fp32 (worst cosine, worst
#      max relative error), what precision timing chose, the attention paths, the trace.
# It finishes in under 6 minutes (each step has a timeout; runs are skipped with a note when
# the budget runs out). Exit 0: every test and every run succeeded; 1: something failed; 3:
# nothing failed but runs were skipped for time.
#
# What it needs (the GPU machine has none of our Debian libraries, and at most 64 MiB
# travel with a call): the bundle made HERE by tools/gpu/make_bundle.sh from a build
# directory -- amp_cuda_tests, amprun, amp-make-demo-models and the non-system shared
# libraries they need, stripped, in build-gpu/amp-gpu-bundle.tar.xz (xz):
#   cmake -S . -B build-gpu-src -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
#   cmake --build build-gpu-src --target amp_cuda_tests amprun amp-make-demo-models
#   tools/gpu/make_bundle.sh build-gpu-src build-gpu
# then with the device tool (see Usage below for the one-call form).
# cuDNN and cuBLAS are not in that machine's system path: they come with its Python
# packages (nvidia-cudnn-cu13, nvidia-cublas); this script finds their lib folders through
# python3 and puts them on LD_LIBRARY_PATH for our programs only.
# ../shared is not present on the lent machine unless copied into the tree: models are
# looked up in $AMP_SHARED_MODELS, ./shared/models, ../shared/models, and the bundle's
# models/ folder (make_bundle.sh copies ../shared/models in when it exists).
#
# Usage: tools/gpu/check.sh [BUNDLE (default build-gpu/amp-gpu-bundle.tar.xz)]
# A session has 15 minutes of device time in all, machine start included, so the whole
# check is meant to be ONE call:
#   run(command="AMP_CHECK_TORCH=1 tools/gpu/check.sh", carry=["build-gpu"], timeout_s=560)
# AMP_CHECK_TORCH=1 runs tools/gpu/compare_torch.py after the table with the time left of
# AMP_TOTAL_BUDGET_S (default 470) and batches AMP_TORCH_BATCHES (default 1,8,32);
# AMP_TORCH_PROFILE_BATCH=B also prints amprun --profile's slowest fp16 nodes at batch B.
# Environment: AMP_CHECK_BUDGET_S (default 330, tests + amprun), AMP_SHARED_MODELS, OUT (results are
# copied there when set: the device tool brings $OUT back), AMP_CHECK_BACKEND (default cuda;
# cpu: a dry run of the script here).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUNDLE=${1:-$REPO/build-gpu/amp-gpu-bundle.tar.xz}
BUDGET_S=${AMP_CHECK_BUDGET_S:-330}
# AMP_CHECK_BACKEND=cpu runs every amprun step on the CPU: a dry run of this script's own
# logic (references, tables, exit codes) where there is no GPU.
BACKEND=${AMP_CHECK_BACKEND:-cuda}
START_S=$(date +%s)
WORK=$(mktemp -d /tmp/amp-gpu-check.XXXXXX)
RESULTS=$WORK/results
mkdir -p "$RESULTS"

say() { printf '[check %3ds] %s\n' "$(($(date +%s) - START_S))" "$*"; }
die() {
  echo "check.sh: error: $*" >&2
  exit 2
}
time_left() { echo $((BUDGET_S - ($(date +%s) - START_S))); }

# ---- Bundle ----
[[ -f $BUNDLE ]] || die "bundle '$BUNDLE' not found. Make it here with tools/gpu/make_bundle.sh (see this script's header) and carry its folder."
say "unpacking $BUNDLE"
case $BUNDLE in
  *.tar.xz | *.txz) tar -C "$WORK" -xJf "$BUNDLE" ;;
  *.tar.zst) zstd -dc "$BUNDLE" | tar -C "$WORK" -xf - ;;
  *.tar) tar -C "$WORK" -xf "$BUNDLE" ;;
  *) die "unknown bundle format '$BUNDLE' (expected .tar.xz, .tar.zst or .tar)" ;;
esac
B=$WORK/amp-gpu-bundle
[[ -d $B/bin ]] || die "the bundle has no amp-gpu-bundle/bin folder"
[[ -f $B/MANIFEST ]] && sed 's/^/  /' "$B/MANIFEST"

# ---- Libraries: bundle first, then the Python packages' CUDA libraries ----
PY=$(command -v python3 || true)
[[ -n $PY ]] || die "python3 not found (needed to locate cuDNN / cuBLAS and to summarize)"
NV_DIRS=$("$PY" - <<'EOF' 2>/dev/null || true
import glob, os
dirs = []
try:
    import nvidia  # namespace package of nvidia-cudnn-cu13, nvidia-cublas, ...
    for base in list(nvidia.__path__):
        for d in sorted(glob.glob(os.path.join(base, "**", "lib"), recursive=True)):
            if glob.glob(os.path.join(d, "lib*.so*")):
                dirs.append(d)
except Exception:
    pass
print(":".join(dict.fromkeys(dirs)))
EOF
)
SYS_CUDA=""
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [[ -d $d ]] && SYS_CUDA=$SYS_CUDA:$d
done
AMP_LD=$B/lib${NV_DIRS:+:$NV_DIRS}$SYS_CUDA${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Runs one of our programs with the bundle's libraries, under a timeout.
amp_run() {
  local t=$1
  shift
  LD_LIBRARY_PATH=$AMP_LD timeout --kill-after=10 "$t" "$@"
}
say "library path: $AMP_LD"
unresolved=$(LD_LIBRARY_PATH=$AMP_LD ldd "$B/bin/amprun" "$B/bin/amp_cuda_tests" | grep "not found" | sort -u || true)
if [[ -n $unresolved ]]; then
  echo "$unresolved" >&2
  die "libraries above are missing: they belong in the bundle (re-run make_bundle.sh)"
fi
# cuBLAS, cuBLASLt and cuDNN are not linked (kernels/cuda/cuda_libraries.h): our programs
# open them by soname when the CUDA backend starts, so ldd cannot vouch for them. Open them
# the same way here, with the same library path, so a missing one stops the check at once.
for lib in libcublasLt.so.13 libcublas.so.13 libcudnn.so.9; do
  LD_LIBRARY_PATH=$AMP_LD "$PY" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$lib" ||
    die "$lib cannot be opened with the library path above (cuDNN/cuBLAS come from python3's nvidia-* packages, found: '${NV_DIRS:-none}')"
done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
  sed 's/^/  GPU: /' || say "note: nvidia-smi not available"

# Whatever happens below (a failed step, an error that set -e turns into an exit), the
# results travel back: the device tool returns $OUT.
# shellcheck disable=SC2317  # called by the EXIT trap
save_results() {
  if [[ -n ${OUT:-} && -d ${OUT:-} ]]; then
    # At most 8 files come back from $OUT: the table's inputs in one archive, the test log.
    tar -C "$WORK" -czf "$OUT/check_results.tgz" results 2>/dev/null || true
    cp "$RESULTS/cuda_tests.log" "$OUT/" 2>/dev/null || true
  fi
}
trap save_results EXIT

TEST_RC=0
RUN_FAIL=0
SKIPPED=0

# ---- 2. Models ----
declare -a MODELS=()
# Writes amp-make-demo-models' models into DIR (its other arguments after DIR) and adds the
# named ones (files NAME.EXT) to MODELS; a failure to write them fails the check.
add_demo_models() {
  local dir=$1 ext=$2 names=$3 log
  shift 3
  log=$RESULTS/$(basename "$dir").log
  if amp_run 60 "$B/bin/amp-make-demo-models" "$dir" "$@" > "$log" 2>&1; then
    for m in $names; do
      [[ -f $dir/$m.$ext ]] && MODELS+=("$m=$dir/$m.$ext")
    done
  else
    RUN_FAIL=1
    say "amp-make-demo-models $dir $* failed:"
    tail -n 20 "$log"
  fi
  return 0
}
MODEL_DIR=$WORK/models
add_demo_models "$MODEL_DIR" amp "demo_resnet demo_transformer"
SHARED_FOUND=""
for dir in "${AMP_SHARED_MODELS:-}" "$REPO/shared/models" "$REPO/../shared/models" "$B/models"; do
  [[ -n $dir && -d $dir ]] || continue
  for f in "$dir"/*/model.onnx; do
    [[ -f $f ]] || continue
    name=$(basename "$(dirname "$f")")
    MODELS+=("$name=$f")
  done
  SHARED_FOUND=$dir
  break
done
if [[ -n $SHARED_FOUND ]]; then
  say "shared models from $SHARED_FOUND"
else
  say "note: no shared models found (../shared is not on the lent machine; make_bundle.sh copies them when it can)"
fi
# The CPU bench's three detectors (static dims; tiled ConvTranspose, channel shuffles,
# Resize, Split / Concat, SiLU as Sigmoid x Mul): last in the list, as the budget allows.
add_demo_models "$WORK/bench_models" onnx "demo_shuffle_yolo demo_db_text_det demo_yolov8n" \
  --bench-models

# ---- 3. What has never run on a GPU goes first: per-node profiling (3b) and the attention
# paths (3d); then every model at each precision, precision timing beside it (3c) ----

# ---- 3b. Profiling on CUDA: amprun --profile / --profile-json on the demo transformer ----
PROFILE_RC=0
if [[ -f $MODEL_DIR/demo_transformer.amp ]]; then
  say "amprun --profile --profile-json (cuda, demo_transformer fp16)"
  amp_run 60 "$B/bin/amprun" --model "$MODEL_DIR/demo_transformer.amp" --backend "$BACKEND" \
    --precision fp16 --warmup 3 --iterations 10 --profile \
    --profile-json "$RESULTS/profile_cuda.json" --json-report "$RESULTS/profile_cuda_report.json" \
    > "$RESULTS/profile_cuda.log" 2>&1 || PROFILE_RC=$?
  sed -n '/=== Profile/,/^$/p' "$RESULTS/profile_cuda.log" | head -n 14 || true
  # A valid Chrome trace with one complete event per executed node: as many events as the
  # report's per-node table has nodes, each name once.
  "$PY" - "$RESULTS/profile_cuda.json" "$RESULTS/profile_cuda_report.json" \
    > "$RESULTS/profile_check.txt" 2>&1 <<'PROFILE_CHECK' || PROFILE_RC=1
import json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
assert ev, "no complete events"
assert all(e["dur"] >= 0 for e in ev), "negative duration"
nodes = json.load(open(sys.argv[2]))["profile"]["nodes"]
names = [e["name"] for e in ev]
assert len(ev) == len(nodes), f"{len(ev)} trace events for {len(nodes)} executed nodes"
assert len(set(names)) == len(names), "a node has two events"
impl = sorted({e["args"].get("implementation", "?") for e in ev})
print(f"profile trace: {len(ev)} node events = {len(nodes)} executed nodes, "
      f"{sum(e['dur'] for e in ev):.1f} us in nodes; implementations: {', '.join(impl)[:200]}")
PROFILE_CHECK
  sed 's/^/  /' "$RESULTS/profile_check.txt"
  [[ $PROFILE_RC -eq 0 ]] || say "CUDA profiling failed (exit $PROFILE_RC)"
else
  PROFILE_RC=1
  say "CUDA profiling not run: demo_transformer.amp was not written"
fi

# ---- 3d. Attention paths on CUDA: the same attention with each path forced ----
# The demo encoder (64 x 16 tokens: short) and demo_attention.amp (one causal 8 x 64-head
# Attention) at 512 and 4096 tokens, where the GEMM path's scores take 12 and 805 MiB.
# The GEMM path in fp32 is the reference (its outputs saved); the GEMM path in fp16 and the
# flash path in fp16 and fp32 are compared with it. Random inputs come from amprun's seed,
# the same in every run (the encoder's attention mask drawn from {0, 1}).
ATTN_RC=0
amp_run 30 "$B/bin/amp-make-demo-models" "$MODEL_DIR" --attention-model \
  > "$RESULTS/demo_attention.log" 2>&1 || ATTN_RC=1
attn_cases=("bert64x16:demo_bert_fused.amp:--shape input_ids=64x16 --shape attention_mask=64x16"
  "attn512:demo_attention.amp:--shape x=1x512x512"
  "attn4096:demo_attention.amp:--shape x=1x4096x512")
for c in "${attn_cases[@]}"; do
  IFS=: read -r label model shapes <<< "$c"
  if [[ ! -f $MODEL_DIR/$model ]]; then
    ATTN_RC=1
    say "attention $label: $model was not written"
    continue
  fi
  ref=$RESULTS/attention_${label}_ref
  for run in gemm:fp32 gemm:fp16 flash:fp16 flash:fp32 auto:fp32; do
    IFS=: read -r path prec <<< "$run"
    tag=attention_${label}_${path}_$prec
    left=$(time_left)
    if ((left < 15)); then
      say "budget spent: skipping $tag"
      SKIPPED=$((SKIPPED + 1))
      continue
    fi
    extra=(--save-outputs "$ref")
    [[ $run != gemm:fp32 ]] && extra=(--compare "$ref")
    # auto: the kernel's own choice, named by the profile (the kernel's implementation()).
    [[ $path == auto ]] && extra+=(--profile)
    env_path=$path
    [[ $path == auto ]] && env_path=""
    rc=0
    # shellcheck disable=SC2086  # $shapes is several words on purpose
    AMP_CUDA_ATTENTION=$env_path amp_run $((left < 45 ? left - 5 : 40)) "$B/bin/amprun" \
      --model "$MODEL_DIR/$model" --backend "$BACKEND" --precision "$prec" $shapes \
      --warmup 5 --iterations 30 "${extra[@]}" --json-report "$RESULTS/$tag.json" \
      > "$RESULTS/$tag.log" 2>&1 || rc=$?
    # Exit 1 (accuracy beyond amprun's tolerance against the GEMM path's fp32 outputs) fails
    # an fp32 run; an fp16 run's accuracy is the whole model's fp16 error (the encoder's
    # embeddings and LayerNorms too), shown in the table, as for the models below.
    if [[ $rc -ne 0 && ! ($rc -eq 1 && $prec == fp16 && -s $RESULTS/$tag.json) ]]; then
      ATTN_RC=1
      say "$tag failed (exit $rc):"
      tail -n 8 "$RESULTS/$tag.log" | sed 's/^/    /'
    fi
  done
done

# ---- 1. Op tests (after what has never run, so that slow tests cannot take its budget) ----
say "running amp_cuda_tests"
# The bundle's slice of ../shared (node tests, real models with references) when present.
[[ -d $B/shared ]] && export AMP_SHARED_DIR=$B/shared
# The expected-failure list of the node tests, from this checkout (the path compiled into
# the binary is the build machine's).
export AMP_TEST_DATA_DIR=$REPO/tests/data
# Two parts, each with its own timeout and XML: GoogleTest writes the XML only when it
# exits, so one timeout must not take every result with it.
for part in ops engine; do
  filter='-EngineCuda.*:Cuda/CudaNodeConformance.*'
  [[ $part == engine ]] && filter='EngineCuda.*:Cuda/CudaNodeConformance.*'
  rc=0
  amp_run 150 "$B/bin/amp_cuda_tests" --gtest_brief=1 --gtest_filter="$filter" \
    --gtest_output="xml:$RESULTS/cuda_tests_$part.xml" > "$RESULTS/cuda_tests_$part.log" 2>&1 || rc=$?
  tail -n 25 "$RESULTS/cuda_tests_$part.log"
  if [[ $rc -ne 0 ]]; then
    TEST_RC=$rc
    say "amp_cuda_tests ($part) exited with $rc (124 = timeout)"
  fi
done
cat "$RESULTS"/cuda_tests_*.log > "$RESULTS/cuda_tests.log"

# ---- 3a / 3c. Each model at fp32, fp16 and bf16, fp16/bf16 compared with fp32, and at fp16
# with --precision-timing on (Options::precision_timing; off by default on CUDA until it
# has run on a GPU): "fp16t" ----
for entry in "${MODELS[@]}"; do
  name=${entry%%=*}
  path=${entry#*=}
  for prec in fp32 fp16 bf16 fp16t; do
    left=$(time_left)
    if ((left < 25)); then
      say "budget spent: skipping $name $prec"
      echo "{\"skipped\": true}" > "$RESULTS/${name}_$prec.json"
      SKIPPED=$((SKIPPED + 1))
      continue
    fi
    t=$((left < 90 ? left - 5 : 90))
    extra=()
    [[ $prec != fp32 ]] && extra=(--compare-precision fp32)
    [[ $prec == fp16t ]] && extra+=(--precision-timing on)
    # The model's own test data fixes its symbolic dims (an OCR model's height and width).
    sample=$(dirname "$path")/test_data_set_0
    [[ $path == *.onnx && -f $sample/input_0.pb ]] && extra+=(--inputs "$sample")
    say "amprun $name $prec"
    rc=0
    amp_run "$t" "$B/bin/amprun" --model "$path" --backend "$BACKEND" --precision "${prec%t}" \
      --warmup 10 --iterations 50 "${extra[@]}" --json-report "$RESULTS/${name}_$prec.json" \
      > "$RESULTS/${name}_$prec.log" 2>&1 || rc=$?
    # amprun exits 1 when accuracy is beyond tolerance: the table shows it; other codes fail.
    if [[ $rc -ne 0 && $rc -ne 1 ]] || [[ ! -s $RESULTS/${name}_$prec.json ]]; then
      RUN_FAIL=1
      say "amprun $name $prec failed (exit $rc):"
      tail -n 8 "$RESULTS/${name}_$prec.log" | sed 's/^/    /'
      echo "{\"failed\": true, \"exit\": $rc}" > "$RESULTS/${name}_$prec.json"
    fi
  done
done

# ---- The table (printed again at the end when the PyTorch comparison runs) ----
table() {
  "$PY" "$REPO/tools/gpu/check_table.py" "$RESULTS" "$TEST_RC" "${MODELS[@]}" ||
    say "the table failed (results in $RESULTS)"
}
table

# ---- 4. Optionally, the PyTorch comparison in the same call (one device loan) ----
TORCH_RC=0
if [[ ${AMP_CHECK_TORCH:-0} == 1 ]]; then
  torch_budget=$((${AMP_TOTAL_BUDGET_S:-470} - ($(date +%s) - START_S)))
  if ((torch_budget < 60)); then
    say "budget spent: skipping compare_torch.py"
  else
    say "compare_torch.py with ${torch_budget}s"
    timeout --kill-after=5 $((torch_budget + 10)) "$PY" "$REPO/tools/gpu/compare_torch.py" \
      --bundle "$BUNDLE" --budget-s "$torch_budget" --batches "${AMP_TORCH_BATCHES:-1,8,32}" \
      --profile-batch "${AMP_TORCH_PROFILE_BATCH:-0}" ||
      TORCH_RC=$?
    [[ $TORCH_RC -eq 0 ]] || say "compare_torch.py exited with $TORCH_RC"
  fi
fi

# The table again: the PyTorch comparison prints after the first one, and the device tool
# returns only the last 12,000 characters of the output.
[[ ${AMP_CHECK_TORCH:-0} == 1 ]] && table
say "done in $(($(date +%s) - START_S)) s (work folder $WORK)"
if [[ $TEST_RC -ne 0 || $RUN_FAIL -ne 0 || $PROFILE_RC -ne 0 || $ATTN_RC -ne 0 ]]; then exit 1; fi
if ((SKIPPED > 0)); then
  say "incomplete: $SKIPPED run(s) skipped when the budget ran out"
  exit 3
fi
exit 0
