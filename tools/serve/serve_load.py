#!/usr/bin/env python3
"""Load generator for amp-serve (or any Open Inference Protocol server), on tritonclient's
concurrent APIs: keeps N requests in flight for a fixed time and reports throughput and
latency percentiles. Loopback use: it refuses a non-local address unless --allow-remote.

  serve_load.py --url 127.0.0.1:8001 --model cnn --concurrency 1,4,16 --seconds 10
               [--protocol grpc|http] [--batch 1] [--json out.json]

gRPC (default): async_infer with a completion callback per request, a new request sent from
each callback, so exactly N are in flight. HTTP: N threads, each with its own client,
sending back to back. Inputs are random, shaped from the model's metadata (symbolic dims:
--batch for the first, 1 for the others)."""
import argparse
import json
import sys
import threading
import time

import numpy as np

NP_TYPES = {"FP32": np.float32, "FP16": np.float16, "FP64": np.float64, "INT64": np.int64,
            "INT32": np.int32, "INT16": np.int16, "INT8": np.int8, "UINT8": np.uint8,
            "BOOL": np.bool_}


def make_inputs(module, metadata, batch, rng):
    inputs = []
    for t in metadata["inputs"]:
        shape = [int(d) for d in t["shape"]]
        shape = [(batch if i == 0 else 1) if d < 0 else d for i, d in enumerate(shape)]
        dtype = NP_TYPES[t["datatype"]]
        if np.issubdtype(dtype, np.integer):
            # A mask from {0, 1}, as amprun draws it (tools/amprun/inputs.cc): an exported
            # encoder's (1 - mask) * -3.4e38 bias makes every score NaN for values of 2 and up.
            high = 2 if "mask" in t["name"].lower() else 8
            x = rng.integers(0, high, size=shape).astype(dtype)
        else:
            x = rng.standard_normal(shape).astype(dtype)
        i = module.InferInput(t["name"], shape, t["datatype"])
        i.set_data_from_numpy(x)
        inputs.append(i)
    return inputs


def run_grpc(url, model, concurrency, seconds, batch):
    import tritonclient.grpc as grpcclient
    client = grpcclient.InferenceServerClient(url)
    inputs = make_inputs(grpcclient, client.get_model_metadata(model, as_json=True), batch,
                         np.random.default_rng(0))
    latencies, errors = [], []
    lock = threading.Lock()
    done = threading.Event()
    end = time.perf_counter() + seconds
    in_flight = [0]

    def send():
        start = time.perf_counter()
        client.async_infer(model, inputs, lambda result, error: finish(start, result, error))

    def finish(start, result, error):
        now = time.perf_counter()
        with lock:
            if error is not None:
                errors.append(str(error))
            else:
                latencies.append(now - start)
            if now < end and not errors:
                again = True
            else:
                again = False
                in_flight[0] -= 1
                if in_flight[0] == 0:
                    done.set()
        if again:
            send()

    t0 = time.perf_counter()
    in_flight[0] = concurrency
    for _ in range(concurrency):
        send()
    done.wait(seconds + 60)
    elapsed = time.perf_counter() - t0
    client.close()
    return latencies, errors, elapsed


def run_http(url, model, concurrency, seconds, batch):
    import tritonclient.http as httpclient
    meta = httpclient.InferenceServerClient(url).get_model_metadata(model)
    latencies, errors = [], []
    lock = threading.Lock()
    end = time.perf_counter() + seconds

    def worker(seed):
        client = httpclient.InferenceServerClient(url, network_timeout=120)
        inputs = make_inputs(httpclient, meta, batch, np.random.default_rng(seed))
        while time.perf_counter() < end:
            start = time.perf_counter()
            try:
                client.infer(model, inputs)
            except Exception as e:  # noqa: BLE001: report any failure, keep the rest going
                with lock:
                    errors.append(str(e))
                return
            with lock:
                latencies.append(time.perf_counter() - start)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--url", default="127.0.0.1:8001")
    ap.add_argument("--model", required=True)
    ap.add_argument("--protocol", choices=["grpc", "http"], default="grpc")
    ap.add_argument("--concurrency", default="1,4,16")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--allow-remote", action="store_true")
    a = ap.parse_args()
    host = a.url.rsplit(":", 1)[0]
    if host not in ("127.0.0.1", "localhost", "::1", "[::1]") and not a.allow_remote:
        sys.exit(f"serve_load: {host} is not loopback; pass --allow-remote to load it anyway")
    if a.seconds <= 0 or a.seconds > 3600:
        sys.exit("serve_load: --seconds must be in (0, 3600]")
    run = run_grpc if a.protocol == "grpc" else run_http
    results = []
    print(f"{'concurrency':>11} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'requests':>9}")
    for c in [int(x) for x in a.concurrency.split(",")]:
        if not 1 <= c <= 1024:
            sys.exit("serve_load: concurrency must be in 1..1024")
        lat, errors, elapsed = run(a.url, a.model, c, a.seconds, a.batch)
        if errors:
            sys.exit(f"serve_load: {len(errors)} failed requests at concurrency {c}: {errors[0]}")
        ms = np.array(lat) * 1e3
        r = {"concurrency": c, "throughput": len(lat) / elapsed, "p50_ms": float(np.percentile(ms, 50)),
             "p99_ms": float(np.percentile(ms, 99)), "requests": len(lat)}
        results.append(r)
        print(f"{c:>11} {r['throughput']:>9.1f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {len(lat):>9}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"model": a.model, "protocol": a.protocol, "batch": a.batch, "results": results},
                      f, indent=2)


if __name__ == "__main__":
    main()
