#!/usr/bin/env python3
"""amprun next to ONNX Runtime on the same models, the same inputs, in one run.

For every model folder (model.onnx) under --models, every extra .onnx given with --model,
and with --demo GENERATOR the 6-layer BERT-style encoders that amp-make-demo-models
--bench-models writes (decomposed and fused LayerNorm/GELU, batch 2 x 16 tokens; the fused one
also at 2 x 128 tokens), its three detectors (a ShuffleNetV2 YOLO at 352x352, a DB text
detector at 640x640, YOLOv8n at 320x320; tools/demo/bench_detectors.h) and its four
speech-style recurrent models (two LSTM or GRU layers of 256 units over one stream, one
bidirectional LSTM layer of 256 over a batch of 4, two bidirectional LSTM layers of 512 over
one stream; 200 frames; tools/demo/bench_speech.h), and a GPT-2-style decoder at 128 tokens,
a 4-block Conformer over 250 frames, ViT-Tiny/16 and EfficientNet-B0 at 224x224
(tools/demo/bench_exports.h): seeded
random inputs (floats in [-1, 1], integers 1 (token ids, attention masks) or the
folder's test_data_set_0 values (a sample rate); shapes from the
folder's test_data_set_0 when there is one, else symbolic dims from --dim NAME=VALUE, else 1) are written once as
TensorProto files, then ONNX Runtime (CPU, intra-op threads = T) and amprun (--backend cpu
--threads T) each run them: warm-up, then the median of --runs timed runs, in --rounds rounds
that alternate the runtimes (the median round counts: a disturbance spoils one round of
each, not all of one runtime's runs), at every thread count of --threads. With --busy, the
same again while another process keeps one core busy (`yes > /dev/null`): a server shares
its cores. Prints a Markdown table with the ratios
(amprun / ORT) and their geometric mean, and the CPU it ran on.

  python3 tools/bench/bench_vs_ort.py --amprun build/tools/amprun/amprun --busy \
      --demo build/tools/demo/amp-make-demo-models

Needs onnxruntime and numpy (pip). amprun's precision is --precision (fp32 by default;
bf16/fp16 rows are added with --precision fp32,bf16).

--as-avx2 LIB (LIB: build/tools/bench/libamp-as-avx2-cpu.so) measures both runtimes as on an
AVX2/FMA/F16C-only CPU: the script runs again under LD_AUDIT=LIB, which hides AVX-512 and AMX
from CPUID for it, ONNX Runtime's MLAS inside it, and amprun (oneDNN and our own loops alike).
It checks that numpy and amprun then report no AVX-512 before measuring anything.
"""
import argparse
import ctypes
import json
import math
import os
import platform
import signal
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

# TensorProto.DataType of the numpy dtypes ORT reports for inputs.
ONNX_TYPES = {
    "tensor(float)": (1, np.float32),
    "tensor(uint8)": (2, np.uint8),
    "tensor(int8)": (3, np.int8),
    "tensor(int32)": (6, np.int32),
    "tensor(int64)": (7, np.int64),
    "tensor(bool)": (9, np.bool_),
    "tensor(float16)": (10, np.float16),
    "tensor(double)": (11, np.float64),
}


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tensor_proto(name, array, onnx_type):
    """A TensorProto with dims (1), data_type (2), name (8) and raw_data (9)."""
    msg = bytearray()
    for d in array.shape:
        msg += b"\x08" + varint(d)
    msg += b"\x10" + varint(onnx_type)
    encoded = name.encode()
    msg += b"\x42" + varint(len(encoded)) + encoded
    raw = np.ascontiguousarray(array).tobytes()
    msg += b"\x4a" + varint(len(raw)) + raw
    return bytes(msg)


def read_varint(buf, pos):
    n = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, pos


def tensor_proto_fields(path):
    """The dims (field 1) and raw_data (field 9, or None) of a TensorProto file; the rest of
    the message is skipped."""
    with open(path, "rb") as f:
        buf = f.read()
    dims, raw, pos = [], None, 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(buf, pos)
            if field == 1:
                dims.append(value)
        elif wire == 2:
            size, pos = read_varint(buf, pos)
            if field == 1:  # packed dims
                end = pos + size
                while pos < end:
                    value, pos = read_varint(buf, pos)
                    dims.append(value)
            else:
                if field == 9:
                    raw = buf[pos:pos + size]
                pos += size
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"{path}: unexpected protobuf wire type {wire}")
    return dims, raw


def as_avx2_active():
    return bool(os.environ.get("AMP_BENCH_AS_AVX2"))


def cpu_name():
    if as_avx2_active():
        return (f"{cpuinfo_cpu_name()}, as an AVX2-only CPU (AVX-512/AMX hidden from CPUID by "
                f"{os.path.basename(os.environ['AMP_BENCH_AS_AVX2'])})")
    return cpuinfo_cpu_name()


def cpuinfo_cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
            else:
                name = platform.processor()
        with open("/proc/cpuinfo") as f:
            flags = next((l for l in f if l.startswith("flags")), "").split()
        isa = [x for x in ("avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16",
                           "amx_bf16") if x in flags]
        return f"{name} ({os.cpu_count()} cores; {' '.join(isa)})"
    except OSError:
        return platform.processor()


def quiet_options():
    so = ort.SessionOptions()
    so.log_severity_level = 3  # errors only: not one warning per initializer listed as input
    return so


def make_inputs(model, folder, named_dims):
    """Random inputs for every graph input of `model`, as .pb files and as numpy arrays."""
    sess = ort.InferenceSession(model, quiet_options(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    feeds = {}
    for i, inp in enumerate(sess.get_inputs()):
        onnx_type, dtype = ONNX_TYPES[inp.type]
        # The model's own test data decides symbolic dims (an OCR model's width) when present.
        sample = os.path.join(os.path.dirname(model), "test_data_set_0", f"input_{i}.pb")
        sample_raw = None
        if os.path.isfile(sample):
            dims, sample_raw = tensor_proto_fields(sample)
        else:
            dims = [d if isinstance(d, int) and d > 0 else named_dims.get(d, 1)
                    for d in inp.shape]
        if sample_raw is not None and not np.issubdtype(dtype, np.floating):
            # An integer input's values mean something (Silero VAD's sample rate picks a
            # branch): the model's own test data gives them.
            a = np.frombuffer(sample_raw, dtype=dtype).reshape(dims).copy()
        elif np.issubdtype(dtype, np.floating):
            a = rng.uniform(-1, 1, size=dims).astype(dtype)
        elif dtype == np.bool_:
            a = np.ones(dims, dtype=dtype)
        else:
            a = np.ones(dims, dtype=dtype)
        with open(os.path.join(folder, f"input_{i}.pb"), "wb") as f:
            f.write(tensor_proto(inp.name, a, onnx_type))
        feeds[inp.name] = a
    return feeds


def ort_session(model, feeds, threads, warmup):
    so = quiet_options()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    for _ in range(warmup):
        sess.run(None, feeds)
    return sess


def ort_median(sess, feeds, runs):
    ms = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, feeds)
        ms.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(ms))


def amprun_median(amprun, model, inputs, threads, runs, warmup, precision):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        cmd = [amprun, "--model", model, "--backend", "cpu", "--precision", precision,
               "--threads", str(threads), "--warmup", str(warmup), "--iterations", str(runs),
               "--inputs", inputs, "--json-report", report.name]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stdout[-2000:]}")
        with open(report.name) as f:
            j = json.load(f)
        if as_avx2_active() and "avx512" in j["device"]:
            raise RuntimeError(f"--as-avx2, yet amprun reports {j['device']}")
        # An fp16/bf16 request that this CPU runs no faster than fp32 runs fp32 (amp/options.h).
        return j["latency_ms"]["median"], j["precision"]


def run_as_avx2(lib):
    """Runs this script again under LD_AUDIT=lib, or checks that it now runs so."""
    if not os.path.isfile(lib):
        sys.exit(f"--as-avx2: {lib} does not exist (build the amp-as-avx2-cpu target)")
    if os.environ.get("AMP_BENCH_AS_AVX2") != lib:
        env = dict(os.environ, LD_AUDIT=lib, AMP_BENCH_AS_AVX2=lib)
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    core = getattr(np, "_core", None) or np.core
    features = core._multiarray_umath.__cpu_features__
    if features.get("AVX512F") or not features.get("AVX2"):
        sys.exit(f"--as-avx2: numpy still sees AVX512F={features.get('AVX512F')} "
                 f"AVX2={features.get('AVX2')} under LD_AUDIT={lib}")


def busy_neighbour():
    """`yes > /dev/null`, the busy neighbour. No shell: terminate() must reach `yes` itself,
    not a shell that leaves it running into the next model's quiet measurements. It dies with
    this script even when the script is killed (PR_SET_PDEATHSIG), when no `finally` runs: a
    `yes` left behind made every later measurement on the machine a busy one."""
    def die_with_parent():
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    return subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, preexec_fn=die_with_parent)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--models", default=os.path.join(here, "../../../shared/models"))
    ap.add_argument("--model", action="append", default=[], help="an extra .onnx (repeatable)")
    ap.add_argument("--amprun", default=os.path.join(here, "../../build/tools/amprun/amprun"))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds per configuration; the median round counts")
    ap.add_argument("--precision", default="fp32", help="amprun precisions, comma separated")
    ap.add_argument("--busy", action="store_true",
                    help="also measure while `yes > /dev/null` keeps one core busy")
    ap.add_argument("--json", help="write the measurements here too")
    ap.add_argument("--demo", help="amp-make-demo-models: add its --bench-models encoders, "
                    "detectors and recurrent models")
    ap.add_argument("--dim", action="append", default=[],
                    help="NAME=VALUE for a symbolic dim (repeatable; --demo sets N=2 and "
                    "T=200)")
    ap.add_argument("--as-avx2", metavar="LIB",
                    help="libamp-as-avx2-cpu.so: run both runtimes as on an AVX2-only CPU")
    args = ap.parse_args()
    if args.as_avx2:
        run_as_avx2(os.path.abspath(args.as_avx2))
    named_dims = {}
    for d in args.dim + (["N=2", "T=200"] if args.demo else []):
        k, v = d.split("=", 1)
        named_dims.setdefault(k, int(v))

    models = []
    if os.path.isdir(args.models):
        for name in sorted(os.listdir(args.models)):
            path = os.path.join(args.models, name, "model.onnx")
            if os.path.isfile(path):
                models.append((name, path))
    def extra_name(path):
        # A folder's model.onnx goes by the folder's name, as --models names them; a name
        # given twice gets a number (each model's inputs live in a folder of its name).
        name = os.path.splitext(os.path.basename(path))[0]
        if name == "model":
            name = os.path.basename(os.path.dirname(os.path.abspath(path))) or name
        taken = {n for n, _ in models}
        unique, k = name, 2
        while unique in taken:
            unique, k = f"{name}_{k}", k + 1
        return unique

    for m in args.model:
        models.append((extra_name(m), m))
    demo_dir = tempfile.TemporaryDirectory() if args.demo else None
    if demo_dir:
        subprocess.run([args.demo, demo_dir.name, "--bench-models"], check=True,
                       stdout=subprocess.DEVNULL)
        for name in ("demo_bert6_pytorch", "demo_bert6_fused", "demo_bert6_fused_128",
                     "demo_shuffle_yolo", "demo_db_text_det", "demo_yolov8n", "demo_speech_lstm",
                     "demo_speech_gru", "demo_speech_bilstm", "demo_speech_bilstm512",
                     "demo_gpt2", "demo_conformer", "demo_vit", "demo_efficientnet"):
            models.append((name, os.path.join(demo_dir.name, name + ".onnx")))
    if not models:
        sys.exit(f"no models under {args.models} and none given with --model")
    threads = [int(t) for t in args.threads.split(",")]
    precisions = args.precision.split(",")

    conditions = [("quiet", False)] + ([("busy", True)] if args.busy else [])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in models:
            folder = os.path.join(tmp, name)
            os.makedirs(folder)
            feeds = make_inputs(path, folder, named_dims)
            for cond, busy in conditions:
                hog = busy_neighbour() if busy else None
                try:
                    for t in threads:
                        # Rounds interleave the runtimes, so a disturbance of a few seconds
                        # (this VM's neighbours) spoils one round of each, which the median
                        # over rounds drops, instead of all of one runtime's runs.
                        sess = ort_session(path, feeds, t, args.warmup)
                        ort_rounds, amp_rounds = [], {p: [] for p in precisions}
                        row = {"model": name, "condition": cond, "threads": t}
                        for _ in range(args.rounds):
                            ort_rounds.append(ort_median(sess, feeds, args.runs))
                            for p in precisions:
                                ms, used = amprun_median(args.amprun, path, folder, t, args.runs,
                                                         args.warmup, p)
                                amp_rounds[p].append(ms)
                                row[f"amprun_{p}_ran"] = used
                        del sess
                        row["ort_ms"] = float(np.median(ort_rounds))
                        for p in precisions:
                            row[f"amprun_{p}_ms"] = float(np.median(amp_rounds[p]))
                        rows.append(row)
                        print(json.dumps(row), file=sys.stderr, flush=True)
                finally:
                    if hog:
                        hog.terminate()
                        hog.wait()

    print(f"CPU: {cpu_name()}; ONNX Runtime {ort.__version__}; the median of {args.rounds} "
          f"interleaved rounds, each the median of {args.runs} runs after {args.warmup} "
          f"warm-up runs\n")
    head = "| model | load | threads | ORT ms |"
    for p in precisions:
        head += f" amprun {p} ms | ratio {p} |"
    print(head)
    print("|---" * (4 + 2 * len(precisions)) + "|")
    logs = {(c, t, p): [] for c, _ in conditions for t in threads for p in precisions}
    for r in rows:
        line = f"| {r['model']} | {r['condition']} | {r['threads']} | {r['ort_ms']:.3f} |"
        for p in precisions:
            ratio = r[f"amprun_{p}_ms"] / r["ort_ms"]
            logs[(r["condition"], r["threads"], p)].append(math.log(ratio))
            ran = "" if r[f"amprun_{p}_ran"] == p else f" ({r[f'amprun_{p}_ran']})"
            line += f" {r[f'amprun_{p}_ms']:.3f}{ran} | {ratio:.2f} |"
        print(line)
    if any(r[f"amprun_{p}_ran"] != p for r in rows for p in precisions):
        print("\n(fp32): the request ran in fp32, faster on this CPU (amprun's precision_note)")
    print()
    for (cond, t, p), v in logs.items():
        if v:
            print(f"geometric mean ratio, {cond}, {t} thread(s), amprun {p}: "
                  f"{math.exp(sum(v) / len(v)):.2f}")
    if args.busy:
        print()
        for name, _ in models:
            for p in precisions:
                busy = {r["threads"]: r for r in rows if r["model"] == name
                        and r["condition"] == "busy"}
                if 1 in busy and 2 in busy:
                    a = busy[2][f"amprun_{p}_ms"] / busy[1][f"amprun_{p}_ms"]
                    o = busy[2]["ort_ms"] / busy[1]["ort_ms"]
                    print(f"busy neighbour, 2 threads / 1 thread: {name} amprun {p} {a:.2f} "
                          f"(ORT {o:.2f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu_name(), "ort": ort.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
