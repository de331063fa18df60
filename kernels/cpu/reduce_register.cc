// The reduction family's entry point (cpu_kernels.h): Reduce*, ArgMax, GlobalAveragePool,
// Softmax/LogSoftmax and the normalizations, one file each (see reduce_util.h).
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels {

void register_cpu_reduction_kernels(KernelRegistry& registry) {
  cpu::register_cpu_reduce_axes_kernels(registry);
  cpu::register_cpu_argmax_kernels(registry);
  cpu::register_cpu_global_pool_kernels(registry);
  cpu::register_cpu_softmax_kernels(registry);
  cpu::register_cpu_layer_norm_kernels(registry);
  cpu::register_cpu_instance_norm_kernels(registry);
  cpu::register_cpu_batch_norm_kernels(registry);
}

}  // namespace amp::kernels
