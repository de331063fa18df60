// Checks tools/bench/libamp-as-avx2-cpu.so: run under LD_AUDIT of it, the CPUID that this
// process (and a thread it starts later) executes must report AVX2 and FMA but not AVX-512
// or AVX512_BF16, and GCC's target_clones, resolved while the program is relocated, must see
// x86-64-v3 but not v4 (as our own kernel loops do, kernels/cpu/cpu_common.h). ctest runs it
// through tests/tools/run_as_avx2_cpu.sh, which skips (77) where there is nothing to check: a
// CPU without AVX-512 or without CPUID faulting.
#include <cpuid.h>

#include <cstdio>
#include <thread>

namespace {

struct Seen {
  bool avx2 = false, fma = false, avx512f = false, avx512_bf16 = false;
};

Seen what_cpuid_says() {
  unsigned a, b, c, d;
  Seen seen;
  __cpuid_count(1, 0, a, b, c, d);
  seen.fma = c & (1u << 12);
  __cpuid_count(7, 0, a, b, c, d);
  seen.avx2 = b & (1u << 5);
  seen.avx512f = b & (1u << 16);
  __cpuid_count(7, 1, a, b, c, d);
  seen.avx512_bf16 = a & (1u << 5);
  return seen;
}

bool looks_like_avx2_only(const Seen& s, const char* who) {
  std::printf("%s: avx2=%d fma=%d avx512f=%d avx512_bf16=%d\n", who, s.avx2, s.fma, s.avx512f,
              s.avx512_bf16);
  return s.avx2 && s.fma && !s.avx512f && !s.avx512_bf16;
}

// A multiversioned function, as our kernel loops are (AMP_ISA_CLONES): its resolver runs
// while the program is relocated, before any constructor, and initializes libgcc's CPU model
// there, once. Under LD_PRELOAD that would be too early for the mask; under LD_AUDIT it is not.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) float scaled_sum(
    const float* x, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += 2 * x[i];
  return s;
}

}  // namespace

int main() {
  const float x[4] = {1, 2, 3, 4};
  if (scaled_sum(x, 4) != 20) return 1;
  bool ok = looks_like_avx2_only(what_cpuid_says(), "main thread");
  Seen from_thread;
  std::thread([&] { from_thread = what_cpuid_says(); }).join();
  ok = looks_like_avx2_only(from_thread, "later thread") && ok;
  // The predicates GCC's target_clones resolvers test, on the CPU model libgcc read once,
  // before main: the library must already have been masking then.
  const bool v4 = __builtin_cpu_supports("x86-64-v4"), v3 = __builtin_cpu_supports("x86-64-v3");
  std::printf("target_clones would pick: x86-64-v4 %d, x86-64-v3 %d\n", v4, v3);
  ok = ok && !v4 && v3;
  return ok ? 0 : 1;
}
