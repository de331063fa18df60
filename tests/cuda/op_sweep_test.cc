// The registry sweep on the GPU (tests/test_util/op_sweep.h): every dtype the CUDA
// backend registers for an op, on the op's node tests converted to it, against the CPU kernels.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>

#include "tests/test_util/cuda_graph_runner.h"
#include "tests/test_util/op_sweep.h"
#include "tests/test_util/require_gpu.h"
#include "tests/test_util/shared_data.h"

namespace amp {
namespace {

TEST(CudaOpSweep, EveryCudaDtypeMatchesTheCpuKernels) {
  AMP_REQUIRE_GPU();
  AMP_REQUIRE_SHARED();
  const test::SweepReport r =
      test::sweep_registry(test::cuda_registry(), kernels::Backend::kCuda, test::run_graph_cuda);
  EXPECT_TRUE(r.problems.empty()) << r.summary();
  std::cout << r.summary() << "\n";
}

}  // namespace
}  // namespace amp
