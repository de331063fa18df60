#include "kernels/cpu/cpu_kernels.h"

namespace amp::kernels {

void register_cpu_kernels(KernelRegistry& registry) {
  AMP_REGISTER_KERNEL_FAMILIES(cpu, registry);
}

}  // namespace amp::kernels
