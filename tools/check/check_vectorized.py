#!/usr/bin/env python3
"""Checks that the AVX2 (x86-64-v3) clones of the f32 elementwise loops real models run are
vector code (ctest: Kernels.Avx2ClonesAreVectorized).

  python3 tools/check/check_vectorized.py BUILD/libamprt.so

Why: GCC compiles each AMP_ISA_CLONES loop three times (kernels/cpu/cpu_common.h) and may
vectorize the AVX-512 clone while leaving the AVX2 one a scalar loop with a branch per
element: HardSwish and LeakyRelu were, until -fno-trapping-math and the row loops' local
functor copy (kernels/CMakeLists.txt, kernels/cpu/elementwise_cpu.h), 20x slower on an
AVX2-only CPU than on this VM's AVX-512, which no test on an AVX-512 machine would notice.

Each listed loop's x86-64-v3 clone must use ymm registers. Exits 77 (skipped) where objdump
is missing or the binary has no x86-64-v3 clones (another compiler or architecture, or the
AVX2 cap AMP_CPU_ISA_CAP_AVX2), 1 naming each scalar clone.
"""
import re
import shutil
import subprocess
import sys

# (the start of the loop's name, the functor it must name: "" for none): the f32 loops of the
# activations and arithmetic of the shared models, PaddleOCR, YOLO and transformer exports.
REQUIRED = (
    [("unary_row<float, ", f"ew::{op}>") for op in
     ("HardSwish", "HardSigmoid", "LeakyRelu", "Relu", "Sqrt", "Neg", "Abs")] +
    [("binary_row<float, ", f"ew::{op}>") for op in ("Add", "Mul", "Sub", "Div", "Max")] +
    [(f"map_in_place<amp::ew::{op}>", "") for op in ("HardSwish", "LeakyRelu", "HardSigmoid",
                                                      "Relu")] +
    [("bool_to_float<float>", "")])

HEADER = re.compile(r"^[0-9a-f]+ <(.*)>:$")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    if shutil.which("objdump") is None:
        print("check_vectorized: skipped, no objdump")
        return 77
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", sys.argv[1]],
                         capture_output=True, text=True, check=True).stdout
    clones = {}  # name -> uses ymm
    name = None
    for line in out.splitlines():
        m = HEADER.match(line)
        if m:
            name = m.group(1) if "[clone .arch_x86_64_v3]" in m.group(1) else None
            if name is not None:
                clones[name] = False
        elif name is not None and "ymm" in line:
            clones[name] = True
    if not clones:
        print("check_vectorized: skipped, no x86-64-v3 clones in " + sys.argv[1])
        return 77
    failures = []
    for loop, functor in REQUIRED:
        found = [n for n in clones if loop in n and functor in n]
        if not found:
            failures.append(f"{loop}{functor}: no x86-64-v3 clone found")
        for n in found:
            if not clones[n]:
                failures.append(f"scalar AVX2 clone: {n[:200]}")
    for f in failures:
        print("check_vectorized: " + f)
    print(f"check_vectorized: {len(REQUIRED)} loops checked, {len(failures)} problem(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
