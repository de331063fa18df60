#include "runtime/backend/backend_factory.h"

#include "runtime/backend/cpu_backend.h"

#if AMP_HAVE_CUDA
#include "kernels/cuda/cuda_libraries.h"
#include "runtime/backend/cuda/cuda_backend.h"
#include "runtime/backend/cuda/device_query.h"
#endif

namespace amp::runtime {

bool cuda_backend_built() {
#if AMP_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

Result<BackendChoice> create_backend(const Options& opt) {
  BackendChoice c;
  if (opt.backend == BackendKind::kCpu) {
    c.backend = create_cpu_backend();
    c.why = "backend cpu requested";
    return c;
  }
#if AMP_HAVE_CUDA
  const amp::runtime::cuda::DeviceQuery& q = amp::runtime::cuda::query_devices();
  if (!q.has_gpu()) {
    if (opt.backend == BackendKind::kCuda)
      return backend_failure("backend cuda was requested but no GPU can be used (" + q.reason +
                             "); use backend cpu or auto");
    c.why = q.reason;
  } else if (Status libraries = amp::kernels::cuda::load_cuda_libraries(); !libraries.is_ok()) {
    // A GPU without cuBLAS/cuDNN installed (a driver-only machine): auto stays on the CPU
    // and says why; backend cuda is an error naming the library.
    if (opt.backend == BackendKind::kCuda)
      return backend_failure("backend cuda was requested but cannot start: " + libraries.message());
    c.why = "GPU visible, but " + libraries.message();
  } else {
    if (opt.cuda_device < 0 || static_cast<size_t>(opt.cuda_device) >= q.devices.size())
      return invalid_argument("cuda_device " + std::to_string(opt.cuda_device) +
                              " does not exist; " + std::to_string(q.devices.size()) +
                              " GPU(s) are visible");
    CudaBackendOptions copt;
    copt.device = opt.cuda_device;
    copt.allow_tf32 = opt.allow_tf32;
    copt.cuda_graphs = opt.cuda_graphs;
    AMP_ASSIGN_OR_RETURN(c.backend, create_cuda_backend(copt));
    c.kind = BackendKind::kCuda;
    c.why = "GPU " + std::to_string(opt.cuda_device) + " visible";
    return c;
  }
#else
  if (opt.backend == BackendKind::kCuda)
    return unsupported(
        "backend cuda was requested but this build of AMPRT has no CUDA backend (it was "
        "configured without the CUDA toolkit or with AMP_ENABLE_CUDA=OFF)");
  c.why = "this build has no CUDA backend";
#endif
  c.backend = create_cpu_backend();
  c.kind = BackendKind::kCpu;
  return c;
}

}  // namespace amp::runtime
