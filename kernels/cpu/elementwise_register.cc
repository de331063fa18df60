// The CPU elementwise family: one registration per file (elementwise_cpu.h).
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels {

void register_cpu_elementwise_kernels(KernelRegistry& registry) {
  cpu::register_elementwise_family(registry);
  cpu::register_elementwise_clip(registry);
  cpu::register_elementwise_binary(registry);
  cpu::register_elementwise_pow(registry);
  cpu::register_elementwise_where(registry);
  cpu::register_elementwise_cast(registry);
}

}  // namespace amp::kernels
