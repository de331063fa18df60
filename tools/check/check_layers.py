#!/usr/bin/env python3
"""Checks that includes point one way through the layers (run by ctest as `layering`).

Every include is written from the repository root, so its path names its layer. The
layers, lowest first (ARCHITECTURE.md):

  runtime/common, runtime/include/amp   amp_base: status, dtypes, half; the public API
  graph/                                IR, ops, importer, format, passes, planners
  kernels/common, kernels/*.h           what every backend shares
  kernels/cpu, kernels/cuda             one backend each; never each other
  runtime/                              engine, plans, backends
  tools/, samples/, tests/              users of the above

A file may include its own layer and the layers below it. graph/ never includes a CUDA
header. Samples use only the public API (amp/...). Prints each violation and exits 1.

  python3 tools/check/check_layers.py [REPO_ROOT]
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
ROOT = os.path.abspath(ROOT)

BASE = ("runtime/common/", "amp/")
GRAPH = BASE + ("graph/",)
KERNELS_COMMON = GRAPH + ("kernels/common/", "kernels/kernel.h", "kernels/kernel_registry.h",
                          "kernels/kernel_evaluator.h")
# (directory prefix of the including file, include prefixes it may use)
RULES = [
    ("runtime/common/", BASE),
    ("runtime/include/", ("amp/",)),
    ("graph/", GRAPH),
    ("kernels/common/", KERNELS_COMMON),
    ("kernels/cpu/", KERNELS_COMMON + ("kernels/cpu/",)),
    ("kernels/cuda/", KERNELS_COMMON + ("kernels/cuda/",)),
    ("kernels/", KERNELS_COMMON),
    ("runtime/", GRAPH + ("kernels/", "runtime/")),
    ("samples/", ("amp/",)),
    ("tools/", GRAPH + ("kernels/", "runtime/", "tools/")),
    ("tests/", None),  # tests may include anything
]
CUDA_HEADER = re.compile(r"#\s*include\s*<(cuda|cudnn|cublas|nvrtc|curand)[^>]*>")
QUOTED = re.compile(r'#\s*include\s*"([^"]+)"')
SOURCE = re.compile(r"\.(cc|h|cu|cuh|def)$")


def rule_for(path):
    for prefix, allowed in RULES:
        if path.startswith(prefix):
            return allowed
    return None


def main():
    problems = []
    for top in ("runtime", "graph", "kernels", "tools", "samples", "tests"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if not SOURCE.search(name):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), ROOT)
                allowed = rule_for(path)
                with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        if path.startswith("graph/") and CUDA_HEADER.search(line):
                            problems.append(f"{path}:{lineno}: graph/ includes a CUDA header")
                        m = QUOTED.search(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        if not inc.startswith("amp/") and not os.path.exists(os.path.join(ROOT, inc)):
                            if inc.startswith("graph/schema/"):
                                continue  # generated in the build tree
                            proto = re.sub(r"(\.grpc)?\.pb\.h$", ".proto", inc)
                            if proto != inc and os.path.exists(os.path.join(ROOT, proto)):
                                continue  # generated in the build tree from a .proto here
                            problems.append(f'{path}:{lineno}: "{inc}" is not a path from the '
                                            "repository root")
                            continue
                        if allowed is not None and not inc.startswith(allowed):
                            problems.append(f'{path}:{lineno}: "{inc}" is above or beside this '
                                            "file's layer")
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
