#!/usr/bin/env bash
# tools/gpu/check.sh: the GPU check, run on the lent GPU machine in one call. It
#   1. runs the CUDA op tests (amp_cuda_tests: each CUDA kernel against the CPU backend),
#   2. writes the demo models (amp-make-demo-models: demo_resnet.amp, demo_transformer.amp)
#      and runs amprun on them and on the ONNX models of ../shared/models (when present)
#      at fp32, fp16 and bf16 on the CUDA backend, fp16/bf16 compared against fp32,
#   3. prints one short table: op tests passed, each model's median latency per precision,
#      the fp16 speed-up over fp32, and accuracy against fp32 (worst cosine, worst max
#      relative error over the outputs),
#   4. profiles the demo transformer on CUDA (amprun --profile --profile-json) and checks
#      the Chrome trace has one event per executed node,
#   5. loads each model at fp16 with --precision-timing on (off by default on CUDA until it
#      has run on a GPU) and prints the timed latency beside the fp16 row and the note,
#   6. times attention with each CUDA path forced (AMP_CUDA_ATTENTION=gemm / flash,
#      kernels/cuda/attention.cu) at fp16: the demo BERT encoder at 64 x 16 tokens and one
#      causal attention op at 512 and 4096 tokens (amp-make-demo-models --attention-model).
#      The flash path is taken only above 64 MiB of GEMM-path scores until this says more.
# It finishes in under 6 minutes (each step has a timeout; models are skipped with a note
# when the budget runs out) and exits 0 only when every test and every run succeeded.
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
# AMP_TOTAL_BUDGET_S (default 520) and batches AMP_TORCH_BATCHES (default 1,8,32);
# AMP_TORCH_PROFILE_BATCH=B also prints amprun --profile's slowest fp16 nodes at batch B.
# Environment: AMP_CHECK_BUDGET_S (default 330, tests + amprun), AMP_SHARED_MODELS, OUT (results are
# copied there when set: the device tool brings $OUT back).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUNDLE=${1:-$REPO/build-gpu/amp-gpu-bundle.tar.xz}
BUDGET_S=${AMP_CHECK_BUDGET_S:-330}
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
  die "libraries above are missing: cuDNN/cuBLAS come from python3's nvidia-* packages (found: '${NV_DIRS:-none}'); others belong in the bundle (re-run make_bundle.sh)"
fi
for lib in libcudnn.so.9 libcublasLt.so.13; do
  LD_LIBRARY_PATH=$AMP_LD ldd "$B/bin/amp_cuda_tests" | grep -q "$lib => /" ||
    say "note: $lib not resolved through ldd (it may be loaded later by dlopen)"
done
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
  sed 's/^/  GPU: /' || say "note: nvidia-smi not available"

# ---- 1. Op tests ----
TEST_RC=0
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

# ---- 2. Models ----
MODEL_DIR=$WORK/models
mkdir -p "$MODEL_DIR"
declare -a MODELS=()
if amp_run 60 "$B/bin/amp-make-demo-models" "$MODEL_DIR" > "$RESULTS/demo_models.log" 2>&1; then
  for m in demo_resnet demo_transformer; do
    [[ -f $MODEL_DIR/$m.amp ]] && MODELS+=("$m=$MODEL_DIR/$m.amp")
  done
else
  say "amp-make-demo-models failed:"
  tail -n 20 "$RESULTS/demo_models.log"
fi
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

RUN_FAIL=0
for entry in "${MODELS[@]}"; do
  name=${entry%%=*}
  path=${entry#*=}
  for prec in fp32 fp16 bf16; do
    left=$(time_left)
    if ((left < 25)); then
      say "budget spent: skipping $name $prec"
      echo "{\"skipped\": true}" > "$RESULTS/${name}_$prec.json"
      continue
    fi
    t=$((left < 90 ? left - 5 : 90))
    extra=()
    [[ $prec != fp32 ]] && extra=(--compare-precision fp32)
    # The model's own test data fixes its symbolic dims (an OCR model's height and width).
    sample=$(dirname "$path")/test_data_set_0
    [[ $path == *.onnx && -f $sample/input_0.pb ]] && extra+=(--inputs "$sample")
    say "amprun $name $prec"
    rc=0
    amp_run "$t" "$B/bin/amprun" --model "$path" --backend cuda --precision "$prec" \
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

# ---- 3. Table ----
"$PY" - "$RESULTS" "$TEST_RC" "${MODELS[@]}" <<'EOF'
import json, os, sys
import xml.etree.ElementTree as ET

results, test_rc, entries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print()
print("=== AMPRT GPU check ===")
for part, label in (("ops", "op tests"), ("engine", "engine tests")):
    xml = os.path.join(results, f"cuda_tests_{part}.xml")
    if not os.path.exists(xml):
        print(f"{label}: no result file (timed out or crashed; see cuda_tests_{part}.log)")
        continue
    root = ET.parse(xml).getroot()
    cases = list(root.iter("testcase"))
    total = len(cases)
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    # GoogleTest marks a skipped case with result="skipped" and/or a <skipped> child.
    skipped = sum(1 for c in cases if c.get("result") == "skipped" or c.find("skipped") is not None)
    print(f"{label}: {total - failed - skipped}/{total} passed, {failed} failed, {skipped} skipped"
          + ("" if test_rc == 0 else f" (exit {test_rc})"))
    for case in cases:
        if case.find("failure") is not None:
            print(f"  FAILED {case.get('classname')}.{case.get('name')}")

def load(name, prec):
    try:
        with open(os.path.join(results, f"{name}_{prec}.json")) as f:
            return json.load(f)
    except Exception:
        return {"failed": True}

def lat(r):
    if r.get("skipped"): return "skip"
    if r.get("failed"): return "FAIL"
    v = (r.get("latency_ms") or {}).get("median")
    return f"{v:.3f}" if isinstance(v, (int, float)) else "?"

def acc(r):
    a = r.get("accuracy") or []
    if not a: return "-"
    cos = min(x.get("cosine", float("nan")) for x in a)
    rel = max(x.get("max_rel_err", float("nan")) for x in a)
    ok = all(x.get("pass", False) for x in a)
    return f"{cos:.5f}/{rel:.1e}{'' if ok else ' !'}"

print()
hdr = f"{'model':<30} {'fp32 ms':>9} {'fp16 ms':>9} {'bf16 ms':>9} {'fp16 x':>7}  {'fp16 cos/relerr':>18}  {'bf16 cos/relerr':>18}"
print(hdr)
print("-" * len(hdr))
for e in entries:
    name = e.split("=", 1)[0]
    r32, r16, rbf = load(name, "fp32"), load(name, "fp16"), load(name, "bf16")
    m32 = (r32.get("latency_ms") or {}).get("median")
    m16 = (r16.get("latency_ms") or {}).get("median")
    speed = f"{m32 / m16:.2f}" if isinstance(m32, (int, float)) and isinstance(m16, (int, float)) and m16 > 0 else "-"
    print(f"{name:<30} {lat(r32):>9} {lat(r16):>9} {lat(rbf):>9} {speed:>7}  {acc(r16):>18}  {acc(rbf):>18}")
if not entries:
    print("(no models)")
print("\nmedian latency over 50 runs after 10 warm-ups, batch as in the model (symbolic dims = 1);")
print("accuracy: worst cosine / worst max relative error over the outputs against fp32; '!' = beyond amprun's tolerance")
EOF

# ---- 3b. Profiling on CUDA: amprun --profile / --profile-json on the demo transformer ----
PROFILE_RC=0
if [[ -f $MODEL_DIR/demo_transformer.amp ]]; then
  say "amprun --profile --profile-json (cuda, demo_transformer fp16)"
  amp_run 60 "$B/bin/amprun" --model "$MODEL_DIR/demo_transformer.amp" --backend cuda \
    --precision fp16 --warmup 3 --iterations 10 --profile \
    --profile-json "$RESULTS/profile_cuda.json" > "$RESULTS/profile_cuda.log" 2>&1 || PROFILE_RC=$?
  sed -n '/=== Profile/,/^$/p' "$RESULTS/profile_cuda.log" | head -n 14
  # A valid Chrome trace with one complete event per executed node.
  "$PY" - "$RESULTS/profile_cuda.json" <<'EOF2' || PROFILE_RC=1
import json, sys
t = json.load(open(sys.argv[1]))
ev = [e for e in t["traceEvents"] if e.get("ph") == "X"]
assert ev, "no complete events"
assert all(e["dur"] >= 0 for e in ev), "negative duration"
print(f"  profile trace: {len(ev)} node events, {sum(e['dur'] for e in ev):.1f} us in nodes")
EOF2
  [[ $PROFILE_RC -eq 0 ]] || say "CUDA profiling failed (exit $PROFILE_RC)"
fi

# ---- 3c. Precision timing on CUDA (Options::precision_timing = on; off by default there
# until this has run on a GPU): per model, fp16 with timing against the fp16 row above, and
# what the load decided (the precision note).
TIMING_RC=0
for entry in "${MODELS[@]}"; do
  name=${entry%%=*}
  path=${entry#*=}
  left=$(time_left)
  if ((left < 25)); then
    say "budget spent: skipping precision timing of $name"
    continue
  fi
  extra=()
  sample=$(dirname "$path")/test_data_set_0
  [[ $path == *.onnx && -f $sample/input_0.pb ]] && extra+=(--inputs "$sample")
  rc=0
  amp_run $((left < 60 ? left - 5 : 60)) "$B/bin/amprun" --model "$path" --backend cuda \
    --precision fp16 --precision-timing on --compare-precision fp32 --warmup 10 \
    --iterations 50 "${extra[@]}" --json-report "$RESULTS/${name}_fp16_timed.json" \
    > "$RESULTS/${name}_fp16_timed.log" 2>&1 || rc=$?
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    TIMING_RC=1
    say "precision timing $name failed (exit $rc):"
    tail -n 8 "$RESULTS/${name}_fp16_timed.log" | sed 's/^/    /'
    continue
  fi
  "$PY" - "$RESULTS/${name}_fp16.json" "$RESULTS/${name}_fp16_timed.json" "$name" <<'EOF3' || true
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return {}
plain, timed, name = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
med = lambda r: (r.get("latency_ms") or {}).get("median", float("nan"))
print(f"  timed {name:<28} fp16 {med(plain):8.3f} ms -> timed {med(timed):8.3f} ms ({timed.get('precision', '?')}): "
      f"{timed.get('precision_note', '')[:300]}")
EOF3
done

# ---- 3d. Attention paths on CUDA: the same attention with each path forced ----
# The demo encoder (64 x 16 tokens: short) and demo_attention.amp (one causal 8 x 64-head
# Attention) at 512 and 4096 tokens, where the GEMM path's scores take 12 and 805 MiB.
ATTN_RC=0
if (($(time_left) > 45)); then
  amp_run 30 "$B/bin/amp-make-demo-models" "$MODEL_DIR" --attention-model \
    > "$RESULTS/demo_attention.log" 2>&1 || ATTN_RC=1
  attn_cases=("bert64x16:demo_bert_fused.amp:--shape input_ids=64x16 --shape attention_mask=64x16"
    "attn512:demo_attention.amp:--shape x=1x512x512"
    "attn4096:demo_attention.amp:--shape x=1x4096x512")
  for c in "${attn_cases[@]}"; do
    IFS=: read -r label model shapes <<< "$c"
    [[ -f $MODEL_DIR/$model ]] || continue
    for path in gemm flash; do
      left=$(time_left)
      if ((left < 15)); then
        say "budget spent: skipping attention $label $path"
        continue
      fi
      rc=0
      export AMP_CUDA_ATTENTION=$path
      # shellcheck disable=SC2086  # $shapes is several words on purpose
      amp_run $((left < 45 ? left - 5 : 40)) "$B/bin/amprun" --model "$MODEL_DIR/$model" \
        --backend cuda --precision fp16 \
        $shapes --compare-precision fp32 --warmup 10 --iterations 50 \
        --json-report "$RESULTS/attention_${label}_$path.json" \
        > "$RESULTS/attention_${label}_$path.log" 2>&1 || rc=$?
      unset AMP_CUDA_ATTENTION
      if [[ $rc -ne 0 && $rc -ne 1 ]]; then
        ATTN_RC=1
        say "attention $label $path failed (exit $rc):"
        tail -n 8 "$RESULTS/attention_${label}_$path.log" | sed 's/^/    /'
      fi
    done
    "$PY" - "$RESULTS/attention_${label}_gemm.json" "$RESULTS/attention_${label}_flash.json" \
      "$label" <<'EOF4' || true
import json, sys
def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return {}
def med(r):
    return (r.get("latency_ms") or {}).get("median", float("nan"))
g, f = load(sys.argv[1]), load(sys.argv[2])
print(f"  attention {sys.argv[3]:<10} fp16: gemm {med(g):8.3f} ms, flash {med(f):8.3f} ms")
EOF4
  done
fi

# ---- 4. Optionally, the PyTorch comparison in the same call (one device loan) ----
TORCH_RC=0
if [[ ${AMP_CHECK_TORCH:-0} == 1 ]]; then
  torch_budget=$((${AMP_TOTAL_BUDGET_S:-520} - ($(date +%s) - START_S)))
  if ((torch_budget < 60)); then
    say "budget spent: skipping compare_torch.py"
  else
    say "compare_torch.py with ${torch_budget}s"
    timeout --kill-after=10 $((torch_budget + 20)) "$PY" "$REPO/tools/gpu/compare_torch.py" \
      --bundle "$BUNDLE" --budget-s "$torch_budget" --batches "${AMP_TORCH_BATCHES:-1,8,32}" \
      --profile-batch "${AMP_TORCH_PROFILE_BATCH:-0}" ||
      TORCH_RC=$?
    [[ $TORCH_RC -eq 0 ]] || say "compare_torch.py exited with $TORCH_RC"
  fi
fi

if [[ -n ${OUT:-} && -d ${OUT:-} ]]; then
  # At most 8 files come back from $OUT: the table's inputs in one archive, the test log.
  tar -C "$WORK" -czf "$OUT/check_results.tgz" results 2>/dev/null || true
  cp "$RESULTS/cuda_tests.log" "$OUT/" 2>/dev/null || true
fi
say "done in $(($(date +%s) - START_S)) s (work folder $WORK)"
if [[ $TEST_RC -ne 0 || $RUN_FAIL -ne 0 || $PROFILE_RC -ne 0 || $TIMING_RC -ne 0 ||
  $ATTN_RC -ne 0 ]]; then exit 1; fi
exit 0
