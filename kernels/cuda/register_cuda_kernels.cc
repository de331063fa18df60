#include "kernels/cuda/cuda_kernels.h"

namespace amp::kernels {

void register_cuda_kernels(KernelRegistry& registry) {
  AMP_REGISTER_KERNEL_FAMILIES(cuda, registry);
}

}  // namespace amp::kernels
