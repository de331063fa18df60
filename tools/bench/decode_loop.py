#!/usr/bin/env python3
"""Greedy decoding with a KV cache, AMPRT next to ONNX Runtime, token by token.

A decoder exported with its cache as inputs and outputs (Optimum's decoder-with-past layout:
input_ids [1, 1], attention_mask [1, past + 1], position_ids [1, 1] where the model takes
them, past_key_values.<i>.key/value [1, kv heads, past, head dim] in; logits,
present.<i>.key/value out) is run the way a text generator runs it: one token per step, each
step's present cache fed back as the next step's past, so every step binds a new past
length. amprt is loaded as a token engine: input_ids (and position_ids) bound to one token
(Options::input_shapes), the past free. --precision fp32,fp16,bf16 times each side by side. AMPRT builds an execution plan per set of input
dims, so this measures what a plan costs when every step needs a new one, next to ONNX
Runtime (CPU, one session), which plans nothing ahead. Both start from the same random cache
of --past tokens and token 7; after a warm-up of 4 steps each, rounds alternate the runtimes,
each round a fresh loop of --steps steps (more steps than the 16 plans an engine caches, so
every step builds its plan), and the script prints per step the median, mean and
90th percentile, and whether both chose the same tokens.

  python3 tools/bench/decode_loop.py export /tmp/kv            # llama_kv/model.onnx
  build/tools/convert/amp-convert /tmp/kv/llama_kv/model.onnx /tmp/kv/llama_kv/model.amp
  python3 tools/bench/decode_loop.py run /tmp/kv/llama_kv/model.onnx \\
      --amp /tmp/kv/llama_kv/model.amp --amprt-path build/tools/python

`export` writes a 4-layer Llama (hidden 512, 8 query heads, 4 kv heads, vocab 32000, random
weights), or GPT-2 small's decoder with --model gpt2, through torch.export with dynamic past
and mask lengths; it needs torch and
transformers (pip), like export_transformers.py. `run` needs onnxruntime and numpy, and the
amprt package (tools/python; --amprt-path adds its folder to sys.path). Neither is a
dependency of AMPRT's build or tests.
"""
import argparse
import os
import sys
import time

import numpy as np


def export(out, name):
    import torch
    import transformers as T

    torch.manual_seed(0)
    if name == "llama":
        layers, kv_heads, head_dim = 4, 4, 64
        model = T.LlamaForCausalLM(T.LlamaConfig(
            hidden_size=512, intermediate_size=1408, num_hidden_layers=layers,
            num_attention_heads=8, num_key_value_heads=kv_heads, vocab_size=32000)).eval()
    else:  # GPT-2 small's configuration
        layers, kv_heads, head_dim = 12, 12, 64
        model = T.GPT2LMHeadModel(T.GPT2Config()).eval()
    past = 16

    class Step(torch.nn.Module):
        """One decoding step: the cache as 2 x layers tensors in, the new cache out."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, *past):
            cache = T.DynamicCache()
            for i in range(layers):
                cache.update(past[2 * i], past[2 * i + 1], i)
            r = self.m(input_ids=input_ids, attention_mask=attention_mask,
                       past_key_values=cache, use_cache=True)
            outs = [r.logits]
            for layer in r.past_key_values.layers[:layers]:
                outs += [layer.keys, layer.values]
            return tuple(outs)

    ids = torch.tensor([[7]])
    mask = torch.ones(1, past + 1, dtype=torch.int64)
    cache = [torch.randn(1, kv_heads, past, head_dim) for _ in range(2 * layers)]
    kv = [f"{i}.{k}" for i in range(layers) for k in ("key", "value")]
    folder = os.path.join(out, f"{name}_kv")
    os.makedirs(folder, exist_ok=True)
    total, past_len = torch.export.Dim("total"), torch.export.Dim("past_len")
    with torch.no_grad():
        torch.onnx.export(Step(model), (ids, mask, *cache), os.path.join(folder, "model.onnx"),
                          input_names=["input_ids", "attention_mask"] +
                          [f"past_key_values.{n}" for n in kv],
                          output_names=["logits"] + [f"present.{n}" for n in kv], dynamo=True,
                          external_data=False, opset_version=18,
                          dynamic_shapes=(None, {1: total},
                                          tuple({2: past_len} for _ in range(2 * layers))))
    print(f"wrote {folder}/model.onnx")


def cache_layout(path):
    """The past inputs' names, their kv heads and head dim, and whether the model takes
    position_ids, from the ONNX file."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    past = [i for i in model.graph.input if i.name.startswith("past_key_values.")]
    if not past:
        sys.exit(f"{path}: no past_key_values.* inputs (not a decoder-with-past export)")
    dims = past[0].type.tensor_type.shape.dim
    takes_positions = any(i.name == "position_ids" for i in model.graph.input)
    return [i.name for i in past], dims[1].dim_value, dims[3].dim_value, takes_positions


def greedy(run, past_names, start_cache, steps, position_ids=False):
    """Per-step times (ms) and the tokens chosen, feeding each step's cache to the next.
    position_ids: the model takes them (Optimum's exports do)."""
    cache, token, times, tokens = dict(start_cache), 7, [], []
    past = next(iter(cache.values())).shape[2]
    for s in range(steps):
        feeds = {"input_ids": np.array([[token]], np.int64),
                 "attention_mask": np.ones((1, past + s + 1), np.int64), **cache}
        if position_ids:
            feeds["position_ids"] = np.array([[past + s]], np.int64)
        t0 = time.perf_counter()
        out = run(feeds)
        times.append((time.perf_counter() - t0) * 1e3)
        token = int(np.argmax(out["logits"][0, -1]))
        tokens.append(token)
        cache = {p: out["present." + p[len("past_key_values."):]] for p in past_names}
    return np.array(times), tokens




def run(args):
    import onnxruntime as ort

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_vs_ort import cpu_name  # the CPU named next to every number

    if args.amprt_path:
        sys.path.insert(0, args.amprt_path)
    import amprt

    past_names, kv_heads, head_dim, positions = cache_layout(args.model)
    rng = np.random.default_rng(0)
    start = {n: (0.5 * rng.standard_normal((1, kv_heads, args.past, head_dim))).astype(np.float32)
             for n in past_names}

    so = ort.SessionOptions()
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.log_severity_level = 3
    session = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    ort_outputs = [o.name for o in session.get_outputs()]

    def run_ort(feeds):
        return dict(zip(ort_outputs, session.run(None, feeds)))

    runtimes = {}  # name: run(feeds) -> {output name: array}
    # A token engine: its inputs bound to one token (past lengths stay free), as a generator
    # loads one for its steps, so that the load sees one row per product (an export with
    # symbolic batch and sequence, as Optimum writes, would otherwise plan for any).
    token = {"input_ids": [1, 1], **({"position_ids": [1, 1]} if positions else {})}
    for precision in args.precision.split(","):
        engine = amprt.Engine.load(args.amp or args.model, precision=precision, backend="cpu",
                                   threads=args.threads, input_shapes=token)
        runtimes[f"amprt {precision} ({engine.precision})"] = engine.run
    runtimes["ort"] = run_ort

    print(f"CPU: {cpu_name()}; {args.threads} thread(s); ONNX Runtime {ort.__version__}; "
          f"{args.steps} steps from a past of {args.past}; amprt's precision as requested "
          f"(as planned)")
    print("| round | runtime | median ms | mean ms | p90 ms | first ms | tokens as ORT's |")
    print("|---|---|---|---|---|---|---|")
    # Warm-up: the first plan's kernels and ONNX Runtime's first run are load costs.
    for run_steps in runtimes.values():
        greedy(run_steps, past_names, start, 4, positions)
    medians = {name: [] for name in runtimes}
    for r in range(args.rounds):
        results = {name: greedy(run_steps, past_names, start, args.steps, positions)
                   for name, run_steps in runtimes.items()}
        for name, (t, tokens) in results.items():
            medians[name].append(np.median(t))
            same = sum(a == b for a, b in zip(tokens, results["ort"][1]))
            agree = f"{same}/{args.steps}" if name != "ort" else ""
            print(f"| {r} | {name} | {np.median(t):.2f} | {t.mean():.2f} | "
                  f"{np.percentile(t, 90):.2f} | {t[0]:.1f} | {agree} |")
    o = np.median(medians["ort"])
    print(f"\nmedian of the rounds' medians, ms a token: ONNX Runtime {o:.2f}")
    for name in runtimes:
        if name != "ort":
            a = np.median(medians[name])
            print(f"{name}: {a:.2f}, ratio to ONNX Runtime {a / o:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write OUT/<model>_kv/model.onnx (torch, transformers)")
    e.add_argument("out")
    e.add_argument("--model", choices=["llama", "gpt2"], default="llama")
    r = sub.add_parser("run", help="the greedy loop, amprt and ONNX Runtime in turn")
    r.add_argument("model", help="the decoder-with-past ONNX file (ONNX Runtime runs it)")
    r.add_argument("--amp", help="its .amp conversion for amprt (default: the ONNX file)")
    r.add_argument("--amprt-path", help="folder holding the amprt package (build/tools/python)")
    r.add_argument("--precision", default="fp32",
                   help="amprt's precision, or several side by side: fp32,fp16,bf16")
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--steps", type=int, default=64)
    r.add_argument("--past", type=int, default=16, help="tokens in the starting cache")
    r.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    export(args.out, args.model) if args.command == "export" else run(args)


if __name__ == "__main__":
    main()
