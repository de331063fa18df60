"""The summary table of tools/gpu/check.sh, from the results folder it fills.

Usage: check_table.py RESULTS TEST_RC NAME=PATH ...

Reads cuda_tests_{ops,engine}.xml, NAME_{fp32,fp16,bf16,fp16t}.json (amprun --json-report;
fp16t: fp16 with --precision-timing on), attention_LABEL_PATH_PREC.json and
profile_check.txt, and prints: tests passed, each model's median latency per precision with
the fp16 speed-up, accuracy against fp32 and what precision timing decided, the attention
paths against the GEMM path in fp32 (and the path an unforced run took), and the profile trace check. Never fails on a missing
or malformed file: that cell says FAIL or skip.
"""
import json
import os
import sys
import xml.etree.ElementTree as ET


def load(results, name):
    try:
        with open(os.path.join(results, f"{name}.json")) as f:
            return json.load(f)
    except Exception:  # noqa: BLE001 - a missing or partial report is a failed run
        return {"failed": True}


def median(r):
    v = (r.get("latency_ms") or {}).get("median")
    return v if isinstance(v, (int, float)) else None


def lat(r):
    if r.get("skipped"):
        return "skip"
    if r.get("failed"):
        return "FAIL"
    v = median(r)
    return f"{v:.3f}" if v is not None else "?"


def acc(r):
    a = r.get("accuracy") or []
    if not a:
        return "-"
    cos = min(x.get("cosine", float("nan")) for x in a)
    rel = max(x.get("max_rel_err", float("nan")) for x in a)
    ok = all(x.get("pass", False) for x in a)
    nonfinite = sum(x.get("nonfinite_in_both", 0) for x in a)
    return f"{cos:.5f}/{rel:.1e}{'' if ok else ' !'}{' NaN' if nonfinite else ''}"


def tests(results, test_rc):
    for part, label in (("ops", "op tests"), ("engine", "engine tests")):
        xml = os.path.join(results, f"cuda_tests_{part}.xml")
        if not os.path.exists(xml):
            print(f"{label}: no result file (timed out or crashed; see cuda_tests_{part}.log)")
            continue
        cases = list(ET.parse(xml).getroot().iter("testcase"))
        failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
        # GoogleTest marks a skipped case with result="skipped" and/or a <skipped> child.
        skipped = sum(1 for c in cases if c.get("result") == "skipped" or c.find("skipped") is not None)
        print(f"{label}: {len(cases) - failed - skipped}/{len(cases)} passed, {failed} failed, "
              f"{skipped} skipped" + ("" if test_rc == 0 else f" (exit {test_rc})"))
        for case in cases:
            if case.find("failure") is not None:
                print(f"  FAILED {case.get('classname')}.{case.get('name')}")


def models(results, entries):
    hdr = (f"{'model':<30} {'fp32 ms':>9} {'fp16 ms':>9} {'bf16 ms':>9} {'fp16 x':>7}  "
           f"{'fp16 cos/relerr':>18}  {'bf16 cos/relerr':>18}  {'fp16 timed':>14}")
    print(hdr)
    print("-" * len(hdr))
    notes = []
    for e in entries:
        name = e.split("=", 1)[0]
        r32, r16, rbf, rt = (load(results, f"{name}_{p}") for p in ("fp32", "fp16", "bf16", "fp16t"))
        m32, m16 = median(r32), median(r16)
        speed = f"{m32 / m16:.2f}" if m32 and m16 else "-"
        timed = lat(rt)
        if median(rt) is not None:
            # "precision": what the engine runs (fp32 when timing found the plan slower);
            # "precision_note": what timing measured and decided.
            timed += f" {rt.get('precision', '?')}"
            notes.append(f"  {name}: {rt.get('precision_note', '')[:260]}")
        print(f"{name:<30} {lat(r32):>9} {lat(r16):>9} {lat(rbf):>9} {speed:>7}  {acc(r16):>18}  "
              f"{acc(rbf):>18}  {timed:>14}")
    if not entries:
        print("(no models)")
    print("\nmedian latency over 50 runs after 10 warm-ups, batch as in the model (symbolic dims = 1);")
    print("accuracy: worst cosine / worst max relative error over the outputs against fp32; '!' = beyond")
    print("amprun's tolerance, 'NaN' = some outputs NaN/Inf in both runs; fp16 timed: the median with")
    print("--precision-timing on and the precision the load chose:")
    print("\n".join(notes) if notes else "  (no timed run)")


def attention_paths(r):
    """The implementations the profiled run's Attention nodes named, or '?'."""
    nodes = (r.get("profile") or {}).get("nodes") or []
    names = sorted({n.get("implementation") or "?" for n in nodes if n.get("op") == "Attention"})
    return ", ".join(names) if names else "?"


def attention(results):
    print("\nattention paths (AMP_CUDA_ATTENTION forced; auto: unforced, the path it took),")
    print("median ms and accuracy against gemm fp32:")
    for label in ("bert64x16", "attn512", "attn4096"):
        cells = []
        for path, prec in (("gemm", "fp32"), ("gemm", "fp16"), ("flash", "fp16"), ("flash", "fp32"),
                           ("auto", "fp32")):
            r = load(results, f"attention_{label}_{path}_{prec}")
            cell = f"{path} {prec} {lat(r)}" + ("" if prec == "fp32" and path == "gemm" else f" {acc(r)}")
            if path == "auto" and not r.get("failed") and not r.get("skipped"):
                cell += f" [{attention_paths(r)}]"
            cells.append(cell)
        print(f"  {label:<10} " + " | ".join(cells))


def main():
    results, test_rc, entries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    print("\n=== AMPRT GPU check ===")
    tests(results, test_rc)
    print()
    models(results, entries)
    attention(results)
    try:
        with open(os.path.join(results, "profile_check.txt")) as f:
            print("\n" + f.read().strip())
    except OSError:
        print("\nprofile check: no result")


if __name__ == "__main__":
    main()
