// Replays every input the fuzzers found (tests/data/fuzz/amp, tests/data/fuzz/onnx: one
// minimized file per crash, hang, leak or out-of-memory, each fixed in the library)
// through the same path the fuzzers run (tests/fuzz/load_pipeline.h). Each must load or
// fail with a clean Status; kInternal means a stage broke its promise to the next one.
// Run under AMP_SANITIZE=ON to also catch the memory errors the findings were about.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/load_pipeline.h"

namespace amp::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void replay(const char* sub, Status (*load)(const uint8_t*, size_t)) {
  const fs::path dir = fs::path(AMP_TEST_DATA_DIR) / "fuzz" / sub;
  const std::vector<fs::path> files = files_in(dir);
  ASSERT_FALSE(files.empty()) << "no regression inputs in " << dir;
  for (const fs::path& p : files) {
    SCOPED_TRACE(p.filename().string());
    const std::vector<uint8_t> bytes = read_bytes(p);
    const Status s = load(bytes.data(), bytes.size());
    EXPECT_NE(s.code(), ErrorCode::kInternal) << s.to_string();
    if (!s.is_ok()) {
      EXPECT_FALSE(s.message().empty());
    }
  }
}

TEST(FuzzRegression, AmpInputs) {
  replay("amp", &load_amp_untrusted);
}

TEST(FuzzRegression, OnnxInputs) {
  replay("onnx", &load_onnx_untrusted);
}

}  // namespace
}  // namespace amp::fuzz
