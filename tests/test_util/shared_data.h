// Locating ../shared (ONNX node tests, real models). Tests that use it call
// AMP_REQUIRE_SHARED() first, which skips with a clear message when it is absent (a
// user's checkout will not have it).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace amp::test {

// The shared data directory: $AMP_SHARED_DIR if set, else the path baked in at configure
// time. Empty path when neither exists.
std::filesystem::path shared_dir();

}  // namespace amp::test

#define AMP_REQUIRE_SHARED()                                                        \
  do {                                                                              \
    if (::amp::test::shared_dir().empty())                                          \
      GTEST_SKIP() << "../shared (ONNX node tests and models) is not present; set " \
                      "AMP_SHARED_DIR to run this test";                            \
  } while (0)
