// The CUDA reduction family's entry point (cuda_kernels.h): Reduce*, ArgMax,
// GlobalAveragePool, Softmax/LogSoftmax and the normalizations, one .cu file each
// (see reduce_util.h for the shared device helpers).
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_kernels.h"

namespace amp::kernels {

void register_cuda_reduction_kernels(KernelRegistry& registry) {
  cuda_reduction::register_reduce_axes_kernels(registry);
  cuda_reduction::register_argmax_kernels(registry);
  cuda_reduction::register_global_pool_kernels(registry);
  cuda_reduction::register_softmax_kernels(registry);
  cuda_reduction::register_layer_norm_kernels(registry);
  cuda_reduction::register_instance_norm_kernels(registry);
  cuda_reduction::register_batch_norm_kernels(registry);
}

}  // namespace amp::kernels
