// Registration of the CUDA reduction family, one function per file; the family's entry
// point register_cuda_reduction_kernels (cuda_kernels.h, defined in reduce_register.cc)
// calls them all. Host-only header: the .cu files' device helpers are in reduce_util.h.
#pragma once

#include "kernels/kernel_registry.h"

namespace amp::kernels::cuda_reduction {

void register_reduce_axes_kernels(KernelRegistry& registry);    // reduce_axes.cu
void register_argmax_kernels(KernelRegistry& registry);         // reduce_argmax.cu
void register_global_pool_kernels(KernelRegistry& registry);    // reduce_global_pool.cu
void register_softmax_kernels(KernelRegistry& registry);        // softmax.cu
void register_layer_norm_kernels(KernelRegistry& registry);     // norm_layer.cu
void register_instance_norm_kernels(KernelRegistry& registry);  // norm_instance.cu
void register_batch_norm_kernels(KernelRegistry& registry);     // norm_batch.cu

}  // namespace amp::kernels::cuda_reduction
