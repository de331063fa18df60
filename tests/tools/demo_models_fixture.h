// For the tests that run the tools as a user does: amprun with a command line (exit code,
// output in a log file) and a fixture with amp-make-demo-models' models generated into a
// private temporary folder.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/test_util/scratch_dir.h"

namespace amp::test {

// amprun's exit code for `args`, its stdout and stderr in `log`.
inline int run_amprun(const std::string& args, const std::filesystem::path& log) {
  const std::string cmd = std::string(AMPRUN_PATH) + " " + args + " > " + log.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

class DemoModelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string gen = std::string(DEMO_GENERATOR_PATH) + " " + dir_.string() + " > /dev/null";
    ASSERT_EQ(std::system(gen.c_str()), 0);
  }
  ScratchDir scratch_{"amp_demo_models"};
  const std::filesystem::path dir_ = scratch_.path();
};

}  // namespace amp::test
