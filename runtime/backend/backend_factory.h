// Picks and creates the backend an Engine runs on.
//
//   kAuto: CUDA when this build has the CUDA backend AND a GPU is usable
//          (cuda::query_devices(), which reads "insufficient driver" / "no device" as no
//          GPU) AND cuBLAS, cuBLASLt and cuDNN can be opened (kernels/cuda/
//          cuda_libraries.h), else the CPU. The reason is kept for reports.
//   kCpu : the CPU. Nothing CUDA is touched: not even the driver is asked.
//   kCuda: the CUDA backend, or an error saying why it cannot be used: this build has
//          none (kUnsupported), or no GPU is usable (kBackendFailure, with the driver's
//          reason), or a CUDA library cannot be opened (kBackendFailure, naming it), or
//          Options::cuda_device is out of range (kInvalidArgument).
#pragma once

#include <memory>
#include <string>

#include "amp/options.h"
#include "runtime/backend/backend.h"

namespace amp::runtime {

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  BackendKind kind = BackendKind::kCpu;
  std::string why;  // e.g. "no usable GPU: cudaGetDeviceCount returned ... (error 35)"
};

Result<BackendChoice> create_backend(const Options& options);

// Whether this build contains the CUDA backend.
bool cuda_backend_built();

}  // namespace amp::runtime
