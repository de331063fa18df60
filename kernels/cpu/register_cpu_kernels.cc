#include "kernels/cpu/cpu_kernels.h"

namespace amp::kernels {

void register_cpu_kernels(KernelRegistry& registry) {
  register_cpu_elementwise_kernels(registry);
  register_cpu_movement_kernels(registry);
  register_cpu_reduction_kernels(registry);
  register_cpu_dnnl_kernels(registry);
}

}  // namespace amp::kernels
