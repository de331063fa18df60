// No leaks over 1000 load/run/destroy cycles. Resident memory after cycle 100 (by then
// every process-wide cache is warm: oneDNN primitives, kernel registries, the allocator's
// arenas) is compared with resident memory after cycle 1000; a leak of even a few hundred
// bytes per cycle in the engine, its plans or a context shows as growth. The sanitizer
// build (tools/check/sanitize.sh) runs this under LeakSanitizer as well, which sees leaks
// of any size.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "amp/engine.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

// ASan keeps freed blocks in quarantine (up to 256 MiB), so RSS grows without a leak;
// there LeakSanitizer does the checking at exit instead.
#if defined(__SANITIZE_ADDRESS__)
#define AMP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AMP_ASAN 1
#endif
#endif

namespace amp {
namespace {

namespace fs = std::filesystem;

// Resident set size in bytes, from /proc/self/statm (Linux).
size_t resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

TEST(Lifecycle, ThousandLoadRunDestroyCyclesDoNotGrowMemory) {
  const amp::test::ScratchDir dir("amp_lifecycle");
  const std::string model = amp::test::write_small_cnn(dir.path());

  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(2 * 3 * 16 * 16);
  for (float& v : x) v = d(rng);

  constexpr int kCycles = 1000, kWarm = 100;
  size_t warm_rss = 0;
  std::vector<float> first_output;
  for (int i = 1; i <= kCycles; ++i) {
    Options o;
    o.backend = BackendKind::kCpu;
    o.threads = 1;
    // Alternate precisions so the AMP planner's casts and low-precision weights cycle too.
    o.precision = (i % 3 == 0)   ? Precision::kBf16
                  : (i % 3 == 1) ? Precision::kFp32
                                 : Precision::kFp16;
    o.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
    Engine engine = Engine::load(model, o);
    ExecutionContext ctx = engine.create_context();
    auto out = ctx.run({{"x", Tensor::from(x, {2, 3, 16, 16})}});
    auto shared = engine.run({{"x", Tensor::from(x, {2, 3, 16, 16})}});
    ASSERT_EQ(out.at(0).to_vector<float>(), shared.at(0).to_vector<float>());
    if (i == 1) first_output = out[0].to_vector<float>();
    if (i % 3 == 1) {
      ASSERT_EQ(out[0].to_vector<float>(), first_output) << "cycle " << i;
    }
    if (i == kWarm) warm_rss = resident_bytes();
  }
  const size_t end_rss = resident_bytes();
  if (warm_rss == 0 || end_rss == 0) GTEST_SKIP() << "/proc/self/statm is not readable";

  const double growth_mib =
      (static_cast<double>(end_rss) - static_cast<double>(warm_rss)) / 1048576.0;
  std::printf("RSS after cycle %d: %.1f MiB, after cycle %d: %.1f MiB (growth %.2f MiB)\n", kWarm,
              static_cast<double>(warm_rss) / 1048576.0, kCycles,
              static_cast<double>(end_rss) / 1048576.0, growth_mib);
#ifdef AMP_ASAN
  GTEST_SKIP() << "RSS is not a leak measure under ASan (quarantine); LeakSanitizer checks "
                  "this binary at exit";
#endif
  // 900 cycles; one engine of this model holds ~10 KB of weights and a ~100 KB arena,
  // so leaking one engine per cycle would grow by ~100 MiB. 4 MiB leaves room for the
  // allocator's fragmentation, not for a leak.
  EXPECT_LT(growth_mib, 4.0);
}

}  // namespace
}  // namespace amp
