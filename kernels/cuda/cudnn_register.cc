// The CUDA library family's entry point (cuda_kernels.h): Conv / ConvTranspose and the
// pools on cuDNN (cudnn_conv.cc, cudnn_pool.cc), MatMul / Gemm on cuBLASLt
// (cublaslt_matmul.cc).
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cudnn_common.h"

namespace amp::kernels {

void register_cuda_library_kernels(KernelRegistry& registry) {
  cuda_library::register_conv_kernels(registry);
  cuda_library::register_pool_kernels(registry);
  cuda_library::register_matmul_kernels(registry);
}

}  // namespace amp::kernels
