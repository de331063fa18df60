#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dnnl_common.h"

namespace amp::kernels {

void register_cpu_dnnl_kernels(KernelRegistry& registry) {
  cpu::register_dnnl_conv_kernels(registry);
  cpu::register_dnnl_matmul_kernels(registry);
  cpu::register_dnnl_pool_kernels(registry);
}

}  // namespace amp::kernels
