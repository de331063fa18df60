// AMP_HOST_DEVICE marks small functions shared by the CPU loops and the CUDA kernels:
// empty under a host compiler, __host__ __device__ under nvcc. The CPU tests then exercise
// the exact arithmetic the GPU runs (see ARCHITECTURE.md, "Backends").
#pragma once

#if defined(__CUDACC__)
#define AMP_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define AMP_HOST_DEVICE inline
#endif
