// The movement family's entry point (cpu_kernels.h): one call per sub-family file.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels {

void register_cpu_movement_kernels(KernelRegistry& registry) {
  cpu::register_movement_copy_kernels(registry);
  cpu::register_movement_concat_split_kernels(registry);
  cpu::register_movement_slice_gather_kernels(registry);
  cpu::register_movement_pad_kernels(registry);
  cpu::register_movement_resize_kernels(registry);
  cpu::register_movement_range_kernels(registry);
}

}  // namespace amp::kernels
