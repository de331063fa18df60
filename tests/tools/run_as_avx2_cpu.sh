#!/usr/bin/env bash
# Runs a test binary as on an AVX2/FMA/F16C-only CPU: under LD_AUDIT of
# libamp-as-avx2-cpu.so (tools/bench/as_avx2_cpu.cc), which hides AVX-512 and AMX from CPUID,
# so our own loops run their AVX2 clones and oneDNN its avx2 kernels and 8-channel blocks,
# the code an AMD EPYC runs, which this project's AVX-512 CI machines never reach otherwise.
# Exit 77 (CTest: skipped) with the reason where that cannot be done or would change nothing.
#
#   tests/tools/run_as_avx2_cpu.sh LIB TEST_BINARY [args]
set -uo pipefail
lib="$1"
shift
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
if [[ "$flags" != *" avx512f "* ]]; then
  echo "skipped: this CPU has no AVX-512 to hide: the normal run already is the AVX2 run"
  exit 77
fi
if [[ "$flags" != *" cpuid_fault "* ]]; then
  echo "skipped: this CPU or kernel cannot fault CPUID (no cpuid_fault in /proc/cpuinfo)"
  exit 77
fi
LD_AUDIT="$lib" exec "$@"
