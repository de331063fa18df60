// A CPU run maps none of the CUDA libraries (kernels/cuda/cuda_libraries.h): cuBLASLt alone
// cost ~150 MiB of resident memory and ~70 ms at start-up when it was linked, GPU or not.
// Each test runs in a process of its own (gtest_discover_tests); one that finds them
// already loaded by an earlier test of the same process skips rather than guess.
#include <gtest/gtest.h>
#include <link.h>

#include <filesystem>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "tests/test_util/scratch_dir.h"
#include "tests/test_util/test_models.h"

namespace amp {
namespace {

// The loaded objects whose file name holds cuBLAS or cuDNN.
std::vector<std::string> loaded_cuda_libraries() {
  std::vector<std::string> found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libcublas") != std::string::npos ||
            name.find("libcudnn") != std::string::npos ||
            name.find("libcudart") != std::string::npos)
          static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      },
      &found);
  return found;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += x + " ";
  return s;
}

// The small CNN (Conv, pooling, Gemm: what would reach cuDNN and cuBLASLt on a GPU) loaded
// with `backend` and run once.
Engine load_and_run_small_cnn(BackendKind backend) {
  const test::ScratchDir dir("amp_cuda_unloaded");
  Options o;
  o.backend = backend;
  Engine engine = Engine::load(test::write_small_cnn(dir.path()), o);
  const std::vector<float> x(3 * 16 * 16, 0.5f);
  EXPECT_EQ(engine.run({{"x", Tensor::from(x, {1, 3, 16, 16})}}).size(), 1u);
  return engine;
}

TEST(CudaLibrariesUnloaded, ACpuEngineMapsNoCudaLibrary) {
  if (!loaded_cuda_libraries().empty())
    GTEST_SKIP() << "an earlier test in this process loaded " << joined(loaded_cuda_libraries());
  Engine engine = load_and_run_small_cnn(BackendKind::kCpu);
  EXPECT_TRUE(loaded_cuda_libraries().empty()) << joined(loaded_cuda_libraries());
}

TEST(CudaLibrariesUnloaded, BackendAutoMapsThemOnlyWhenItPicksTheGpu) {
  if (!loaded_cuda_libraries().empty())
    GTEST_SKIP() << "an earlier test in this process loaded " << joined(loaded_cuda_libraries());
  Engine engine = load_and_run_small_cnn(BackendKind::kAuto);
  if (engine.backend() != BackendKind::kCpu)
    GTEST_SKIP() << "a GPU is visible: auto runs on it (" << engine.backend_note() << ")";
  EXPECT_TRUE(loaded_cuda_libraries().empty())
      << joined(loaded_cuda_libraries()) << " with " << engine.backend_note();
}

}  // namespace
}  // namespace amp
