#include "kernels/cuda/cuda_kernels.h"

namespace amp::kernels {

void register_cuda_kernels(KernelRegistry& registry) {
  register_cuda_elementwise_kernels(registry);
  register_cuda_movement_kernels(registry);
  register_cuda_reduction_kernels(registry);
  register_cuda_library_kernels(registry);
}

}  // namespace amp::kernels
