#!/usr/bin/env python3
"""AMPRT against PyTorch on the lent GPU machine (its image has PyTorch and torchvision).

Builds torchvision's resnet50 (random weights) and a BERT-base-sized encoder (12 layers,
hidden 768, 12 heads, FFN 3072, sequence 128, written with plain ops so it exports to the
ONNX ops AMPRT imports), exports both to ONNX at batch 1, 8 and 32 (static shapes), times
PyTorch fp32 and torch.autocast fp16, eager and replayed as CUDA graphs, then runs
amprun --backend cuda on the exported models at fp32 and fp16 and prints the latencies and
the ratios side by side.

TF32 is switched off in PyTorch (cuDNN and matmul), since AMPRT's fp32 does not use it
either (Options::allow_tf32 defaults to false): the fp32 columns compare like with like.

Needs the bundle of tools/gpu/make_bundle.sh (amprun and its libraries); cuDNN / cuBLAS
come from the machine's Python packages, found as in check.sh. Usage, with the device tool:
  run(command="python3 tools/gpu/compare_torch.py --budget-s 480", carry=["build-gpu"], timeout_s=540)
or, with the AMPRT GPU check first, in one call (a session's device time is 15 minutes):
  run(command="AMP_CHECK_TORCH=1 tools/gpu/check.sh", carry=["build-gpu"], timeout_s=560)
Options: --bundle PATH (default build-gpu/amp-gpu-bundle.tar.xz), --batches 1,8,32,
--budget-s 480 (work still pending when the budget runs out is skipped and marked).
"""

import argparse
import glob
import inspect
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START = time.time()


def log(msg):
    print(f"[compare {time.time() - START:5.0f}s] {msg}", flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundle", default=os.path.join(REPO, "build-gpu", "amp-gpu-bundle.tar.xz"))
    p.add_argument("--batches", default="1,8,32")
    p.add_argument("--budget-s", type=float, default=480.0)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--models", default="resnet50,bert_base")
    p.add_argument("--profile-batch", type=int, default=0,
                   help="at this batch, also print amprun --profile's slowest fp16 nodes")
    return p.parse_args()


def time_left(args):
    return args.budget_s - (time.time() - START)


# ---- The bundle and the library path (as tools/gpu/check.sh) ----

def unpack_bundle(path, work):
    if not os.path.exists(path):
        sys.exit(f"compare_torch.py: bundle '{path}' not found; make it with tools/gpu/make_bundle.sh "
                 "and carry its folder (see tools/gpu/README.md)")
    with tarfile.open(path, "r:*") as t:
        try:
            t.extractall(work, filter="data")
        except TypeError:  # Python without extraction filters
            t.extractall(work)
    root = os.path.join(work, "amp-gpu-bundle")
    amprun = os.path.join(root, "bin", "amprun")
    if not os.access(amprun, os.X_OK):
        sys.exit("compare_torch.py: the bundle has no bin/amprun")
    return root, amprun


def library_path(bundle_root):
    dirs = [os.path.join(bundle_root, "lib")]
    try:
        import nvidia  # nvidia-cudnn-cu13, nvidia-cublas, ... share this namespace package
        for base in list(nvidia.__path__):
            for d in sorted(glob.glob(os.path.join(base, "**", "lib"), recursive=True)):
                if glob.glob(os.path.join(d, "lib*.so*")):
                    dirs.append(d)
    except ImportError:
        pass
    for d in ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"):
        if os.path.isdir(d):
            dirs.append(d)
    if os.environ.get("LD_LIBRARY_PATH"):
        dirs.append(os.environ["LD_LIBRARY_PATH"])
    return ":".join(dict.fromkeys(dirs))


# ---- Models ----

def build_models(torch, names):
    import torch.nn as nn

    class EncoderLayer(nn.Module):
        """BERT's post-LayerNorm layer with explicit ops (no fused fast path)."""

        def __init__(self, hidden=768, heads=12, ffn=3072):
            super().__init__()
            self.heads, self.dh = heads, hidden // heads
            self.q, self.k, self.v = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
            self.o = nn.Linear(hidden, hidden)
            self.ln1, self.ln2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
            self.ff1, self.ff2 = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)
            self.act = nn.GELU()

        def forward(self, x):
            b, s, h = x.shape
            def split(t):
                return t.reshape(b, s, self.heads, self.dh).transpose(1, 2)
            q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
            att = torch.softmax(q @ k.transpose(-1, -2) * (1.0 / self.dh ** 0.5), dim=-1)
            ctx = (att @ v).transpose(1, 2).reshape(b, s, h)
            x = self.ln1(x + self.o(ctx))
            return self.ln2(x + self.ff2(self.act(self.ff1(x))))

    class BertBaseEncoder(nn.Module):
        def __init__(self, layers=12):
            super().__init__()
            self.layers = nn.ModuleList([EncoderLayer() for _ in range(layers)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    models = {}
    torch.manual_seed(0)
    if "resnet50" in names:
        try:
            import torchvision
            models["resnet50"] = (torchvision.models.resnet50(weights=None),
                                  lambda b: (b, 3, 224, 224))
        except ImportError as e:  # the BERT comparison still runs
            print(f"resnet50 skipped: torchvision is not importable ({e})", file=sys.stderr)
    if "bert_base" in names:
        models["bert_base"] = (BertBaseEncoder(), lambda b: (b, 128, 768))
    return models


def export_onnx(torch, model, shape, path):
    x = torch.randn(*shape, device="cuda")
    errors = []
    for dynamo in (False, True):  # the TorchScript exporter first: plain, static opset-17 graphs
        try:
            kwargs = {"dynamo": dynamo} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
            if not kwargs and dynamo:
                break  # an old torch: the TorchScript exporter was the only one
            torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["output"],
                              opset_version=17, do_constant_folding=True, **kwargs)
            return "dynamo" if dynamo else "torchscript"
        except Exception as e:  # noqa: BLE001 - report and try the other exporter
            errors.append(f"{'dynamo' if dynamo else 'torchscript'}: {type(e).__name__}: {e}"[:300])
    raise RuntimeError("ONNX export failed: " + " | ".join(errors))


# ---- PyTorch timing ----

def time_torch(torch, model, shape, fp16, graph, warmup, iters):
    x = torch.randn(*shape, device="cuda")
    # cache_enabled=False: autocast's weight-cast cache must not outlive a CUDA graph capture.
    ctx = ((lambda: torch.autocast("cuda", dtype=torch.float16, cache_enabled=False)) if fp16
           else (lambda: torch.autocast("cuda", enabled=False)))
    with torch.inference_mode():
        if graph:
            static_x = x.clone()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    with ctx():
                        model(static_x)
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                with ctx():
                    model(static_x)
            step = g.replay
        else:
            def step():
                with ctx():
                    model(x)
        for _ in range(warmup):
            step()
        torch.cuda.synchronize()
        times = []
        for _ in range(iters):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            step()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return statistics.median(times)


# ---- amprun ----

def time_amprun(amprun, ld_path, model_path, precision, warmup, iters, timeout, results_dir, tag):
    report = os.path.join(results_dir, f"{tag}_{precision}.json")
    env = dict(os.environ, LD_LIBRARY_PATH=ld_path)
    cmd = [amprun, "--model", model_path, "--backend", "cuda", "--precision", precision,
           "--warmup", str(warmup), "--iterations", str(iters), "--json-report", report]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout", None
    if not os.path.exists(report):
        tail = (p.stdout + p.stderr).strip().splitlines()[-3:]
        return None, f"exit {p.returncode}: " + " | ".join(tail), None
    with open(report) as f:
        r = json.load(f)
    # What one run spent copying the inputs in and the outputs out (host <-> device through
    # pinned staging): PyTorch's timings start with the inputs on the GPU, so the table
    # also shows amprun without them.
    b = r.get("run_breakdown_ms") or {}
    copies = (b.get("h2d") or 0) + (b.get("d2h") or 0)
    return (r.get("latency_ms") or {}).get("median"), None, copies


def profile_amprun(amprun, ld_path, model_path, timeout, top=14):
    """amprun --profile (fp16, CUDA): the slowest nodes, to see where a gap to PyTorch is."""
    env = dict(os.environ, LD_LIBRARY_PATH=ld_path)
    cmd = [amprun, "--model", model_path, "--backend", "cuda", "--precision", "fp16",
           "--warmup", "3", "--iterations", "5", "--profile"]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        print("  (profile timed out)")
        return
    lines = p.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("=== Profile")), None)
    if start is None:
        print("  (no profile in amprun's output)")
        return
    for line in lines[start:start + 3 + top]:
        print("  " + line[:150])


def fmt(v):
    return f"{v:8.3f}" if isinstance(v, (int, float)) else f"{str(v):>8}"


def ratio(a, b):
    return f"{a / b:6.2f}" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0 else "     -"


def main():
    args = parse_args()
    batches = [int(b) for b in args.batches.split(",") if b]
    try:
        import torch
    except ImportError:
        sys.exit("compare_torch.py: PyTorch is not installed here (run it on the lent GPU machine)")
    if not torch.cuda.is_available():
        sys.exit("compare_torch.py: torch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    log(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}")

    work = tempfile.mkdtemp(prefix="amp-compare-")
    bundle_root, amprun = unpack_bundle(args.bundle, work)
    ld_path = library_path(bundle_root)
    results_dir = os.path.join(work, "results")
    os.makedirs(results_dir)

    rows = []

    def save_rows():
        # After every row: a call stopped by the device tool's timeout keeps what it measured.
        out = os.environ.get("OUT")
        if out and os.path.isdir(out):
            with open(os.path.join(out, "compare_torch.json"), "w") as f:
                json.dump([{"model": n, "batch": b, **{k: v for k, v in r.items()}, "note": note}
                           for n, b, r, note in rows], f, indent=1)

    models = build_models(torch, args.models.split(","))
    for name, (model, shape_of) in models.items():
        model = model.cuda().eval()
        for b in batches:
            if time_left(args) < 30:
                log(f"budget spent: skipping {name} batch {b}")
                rows.append((name, b, {}, "skipped (budget)"))
                continue
            shape = shape_of(b)
            row, note = {}, ""
            for key, fp16, graph in (("t32", False, False), ("t16", True, False),
                                     ("g32", False, True), ("g16", True, True)):
                try:
                    row[key] = time_torch(torch, model, shape, fp16, graph, args.warmup, args.iterations)
                except Exception as e:  # noqa: BLE001 - keep going, report in the table
                    row[key] = "err"
                    note += f" torch {key}: {type(e).__name__};"
            onnx_path = os.path.join(work, f"{name}_b{b}.onnx")
            try:
                how = export_onnx(torch, model, shape, onnx_path)
                log(f"exported {name} batch {b} ({how}, {os.path.getsize(onnx_path) >> 20} MiB)")
                for prec, key in (("fp32", "a32"), ("fp16", "a16")):
                    left = time_left(args)
                    if left < 15:
                        row[key] = "skip"
                        continue
                    row[key], err, *copies = time_amprun(
                        amprun, ld_path, onnx_path, prec, args.warmup, args.iterations,
                        min(180, left - 5), results_dir, f"{name}_b{b}")
                    if copies and isinstance(row[key], (int, float)):
                        row[key + "_copies"] = copies[0]
                    if err:
                        row[key] = "FAIL"
                        note += f" amprun {prec}: {err[:160]};"
                if b == args.profile_batch and time_left(args) > 40:
                    log(f"amprun --profile {name} batch {b} fp16:")
                    profile_amprun(amprun, ld_path, onnx_path, min(120, time_left(args) - 10))
            except Exception as e:  # noqa: BLE001
                row["a32"] = row["a16"] = "noexp"
                note += f" {str(e)[:200]};"
            finally:
                if os.path.exists(onnx_path):
                    os.remove(onnx_path)  # BERT-base is ~340 MB per batch size
            rows.append((name, b, row, note.strip()))
            save_rows()
            log(f"{name} batch {b}: " + ", ".join(f"{k}={fmt(v).strip()}" for k, v in row.items()))
        del model
        torch.cuda.empty_cache()

    print()
    print("=== AMPRT vs PyTorch (median ms; TF32 off) ===")
    hdr = (f"{'model':<10} {'batch':>5} | {'torch32':>8} {'torch16':>8} {'graph32':>8} {'graph16':>8} | "
           f"{'amp32':>8} {'amp16':>8} | {'t32/a32':>7} {'g32/a32':>7} {'t16/a16':>7} {'g16/a16':>7} {'a32/a16':>7}")
    print(hdr)
    print("-" * len(hdr))
    for name, b, r, note in rows:
        g = r.get
        print(f"{name:<10} {b:>5} | {fmt(g('t32'))} {fmt(g('t16'))} {fmt(g('g32'))} {fmt(g('g16'))} | "
              f"{fmt(g('a32'))} {fmt(g('a16'))} | {ratio(g('t32'), g('a32')):>7} {ratio(g('g32'), g('a32')):>7} "
              f"{ratio(g('t16'), g('a16')):>7} {ratio(g('g16'), g('a16')):>7} {ratio(g('a32'), g('a16')):>7}")
        if note:
            print(f"{'':<17}note: {note}")
    print("\nratios > 1: AMPRT is faster. torch16/graph16 = torch.autocast(float16), eager / CUDA graph.")
    print("\namprun without its host <-> device copies (inputs in, outputs out; PyTorch's timings")
    print("start and end on the GPU):")
    for name, b, r, note in rows:
        g = r.get
        def net(key):
            v, c = g(key), g(key + "_copies")
            return v - c if isinstance(v, (int, float)) and isinstance(c, (int, float)) else None
        n32, n16 = net("a32"), net("a16")
        print(f"{name:<10} {b:>5} | amp32 {fmt(n32)} (copies {fmt(g('a32_copies'))}) | amp16 {fmt(n16)} "
              f"(copies {fmt(g('a16_copies'))}) | g32/a32 {ratio(g('g32'), n32)} g16/a16 {ratio(g('g16'), n16)}")
    save_rows()
    log("done")


if __name__ == "__main__":
    main()
