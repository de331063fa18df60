// Replays hostile model files through the engine fuzzer's path (tests/fuzz/run_pipeline.h:
// Engine::load, then runs at two bindings of the symbolic dims): the load fuzzers' findings
// (tests/data/fuzz/amp and onnx), which must fail cleanly or run here too. Each must end in a clean
// amp::Error or in successful runs, never in kInternal or an exception of another type. Run under
// AMP_SANITIZE=ON to also catch memory errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/run_pipeline.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp::fuzz {
namespace {

namespace fs = std::filesystem;

class FuzzRunRegression : public ::testing::Test {
 protected:
  RunOutcome replay_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    const std::vector<uint8_t> bytes(std::istreambuf_iterator<char>(in), {});
    return load_and_run_untrusted(bytes.data(), bytes.size(), dir_.string());
  }

  void replay_dir(const char* sub) {
    const fs::path dir = fs::path(AMP_TEST_DATA_DIR) / "fuzz" / sub;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty()) << "no regression inputs in " << dir;
    for (const fs::path& p : files) {
      SCOPED_TRACE(p.filename().string());
      const RunOutcome o = replay_file(p);
      EXPECT_FALSE(is_bug(o)) << o.message;
      if (o.code != ErrorCode::kOk) {
        EXPECT_FALSE(o.message.empty());
      }
    }
  }

  test::ScratchDir scratch_{"amp_fuzz_run"};
  const fs::path dir_ = scratch_.path();
};

// The pipeline runs what it loads: a valid model with a symbolic batch runs at both
// bindings and again from the cached plan, so a finding's "no error" means it really ran.
TEST_F(FuzzRunRegression, AValidModelLoadsAndRunsAtBothBindings) {
  const RunOutcome o = replay_file(test::write_small_cnn(dir_));
  EXPECT_EQ(o.code, ErrorCode::kOk) << o.message;
  EXPECT_EQ(o.runs, 3);
}

TEST_F(FuzzRunRegression, NotAModelIsACleanError) {
  const std::string junk = "definitely not a model";
  const RunOutcome o = load_and_run_untrusted(reinterpret_cast<const uint8_t*>(junk.data()),
                                              junk.size(), dir_.string());
  EXPECT_FALSE(is_bug(o)) << o.message;
  EXPECT_EQ(o.code, ErrorCode::kInvalidModel) << o.message;
  EXPECT_EQ(o.runs, 0);
}

TEST_F(FuzzRunRegression, LoadFuzzerFindingsRunCleanly) {
  replay_dir("amp");
  replay_dir("onnx");
}

}  // namespace
}  // namespace amp::fuzz
