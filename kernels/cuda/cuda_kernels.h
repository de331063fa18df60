// The CUDA backend's kernels: same Kernel interface and registry as the CPU backend
// (kernel.h, kernel_registry.h), keyed by Backend::kCuda. One registration function per
// kernel family (kernels/common/kernel_families.h), all called by register_cuda_kernels().
//
// Contract specific to CUDA:
//   - run() pointers (args.inputs/outputs/workspace) are DEVICE pointers; it launches work
//     asynchronously on (cudaStream_t)args.stream and never synchronizes; every CUDA,
//     cuBLAS and cuDNN return code becomes a Status naming the call.
//   - prepare() may read TensorDesc::constant_data (host copies of constants), picks
//     cuDNN algorithms / cuBLASLt heuristics, sizes the workspace, and must not launch
//     work or allocate device memory (the workspace comes from the arena).
//   - fp16/bf16 kernels compute and accumulate in fp32 (the numerical contract), with the
//     arithmetic shared with the CPU through kernels/common/*_functors.h (AMP_HOST_DEVICE).
#pragma once

#include "kernels/common/kernel_families.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

// Fills `registry` with every CUDA kernel: cuda::register_<family>_kernels, declared here for
// every family and defined in its kernel file.
void register_cuda_kernels(KernelRegistry& registry);
AMP_DECLARE_KERNEL_FAMILIES(cuda)

}  // namespace amp::kernels
