// The CUDA library links and, on a machine without a GPU, reports "no GPU" cleanly
// (cudaGetDeviceCount error 35 is not a crash).
#include "runtime/backend/cuda/device_query.h"

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <vector>

#include "kernels/cuda/cast_kernels.h"
#include "kernels/cuda/cuda_check.h"
#include "runtime/common/half.h"
#include "tests/test_util/require_gpu.h"

namespace amp::runtime::cuda {
namespace {

using kernels::cuda::cuda_status;
using kernels::cuda::launch_cast;

TEST(DeviceQuery, NeverCrashesAndExplainsAbsence) {
  const DeviceQuery& q = query_devices();
  if (q.has_gpu()) {
    EXPECT_FALSE(q.devices[0].name.empty());
    EXPECT_GT(q.devices[0].total_memory, 0u);
  } else {
    EXPECT_NE(q.reason.find("no usable GPU"), std::string::npos) << q.reason;
  }
}

TEST(CudaCheck, ErrorsBecomeStatus) {
  Status s = cuda_status(cudaErrorMemoryAllocation, "cudaMalloc(&p, 1 << 40)", "x.cc", 1);
  EXPECT_EQ(s.code(), ErrorCode::kOutOfMemory);
  EXPECT_NE(s.message().find("cudaMalloc"), std::string::npos);
  s = cuda_status(cudaErrorInvalidValue, "cudaMemcpy", "x.cc", 2);
  EXPECT_EQ(s.code(), ErrorCode::kBackendFailure);
}

TEST(CastKernel, F32ToF16AndBackMatchesHost) {
  AMP_REQUIRE_GPU();
  const size_t n = 100003;
  std::vector<float> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<float>(i) * 0.37f - 1000.0f;
  void *d_src = nullptr, *d_half = nullptr;
  ASSERT_EQ(cudaMalloc(&d_src, n * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_half, n * 2), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_src, host.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  for (DType low : {DType::kF16, DType::kBF16}) {
    ASSERT_TRUE(launch_cast(DType::kF32, d_src, low, d_half, n, nullptr).is_ok());
    std::vector<uint16_t> got(n, 0xffff);
    ASSERT_EQ(cudaMemcpy(got.data(), d_half, n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t want =
          low == DType::kF16 ? float_to_half_bits(host[i]) : float_to_bf16_bits(host[i]);
      ASSERT_EQ(got[i], want) << i;
    }
  }
  cudaFree(d_src);
  cudaFree(d_half);
}

TEST(CastKernel, RejectsUnsupportedPairsWithoutLaunching) {
  Status s = launch_cast(DType::kI64, nullptr, DType::kF16, nullptr, 4, nullptr);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace amp::runtime::cuda
