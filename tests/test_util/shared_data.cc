#include "tests/test_util/shared_data.h"

#include <cstdlib>

namespace amp::test {

std::filesystem::path shared_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("AMP_SHARED_DIR")) {
    if (fs::is_directory(env)) return fs::path(env);
  }
  fs::path baked(AMP_SHARED_DIR);
  std::error_code ec;
  if (fs::is_directory(baked / "onnx-node-tests", ec)) return fs::weakly_canonical(baked, ec);
  return {};
}

}  // namespace amp::test
