// The CUDA backend (built when AMP_HAVE_CUDA).
//
// Load: create_cuda_backend() selects the device and creates its DeviceHandles (device
// properties, a cuBLASLt handle for prepare-time heuristics). upload_weights() lays every
// constant of the planned engine graph (weights already cast to fp16/bf16 by the AMP
// planner, so each is uploaded once, in the dtype the kernels read) into ONE device
// allocation at 256-byte aligned offsets, after checking the device has room.
//
// Plans: place_constants() points each plan constant at its uploaded copy, found by its
// host bytes (plans copy the engine graph, and copies share constant storage). Constants
// that only exist in one plan (shape subgraphs folded for the bound shapes, shape-input
// values) are uploaded into a per-plan allocation freed with the plan.
//
// Runs: one CudaExecutor per ExecutionContext (cuda_executor.h).
#pragma once

#include <memory>

#include "runtime/backend/backend.h"

namespace amp::runtime {

const kernels::KernelRegistry& cuda_kernel_registry();

struct CudaBackendOptions {
  int device = 0;
  bool allow_tf32 = false;
  bool cuda_graphs = true;
};

// kBackendFailure when the device cannot be used (the caller checked that one is visible).
Result<std::unique_ptr<Backend>> create_cuda_backend(const CudaBackendOptions& options);

}  // namespace amp::runtime
