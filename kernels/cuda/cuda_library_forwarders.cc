// The cuBLAS, cuBLASLt and cuDNN functions AMPRT calls, defined here with the headers' own
// signatures (a mismatch is a compile error: C functions cannot be overloaded) and
// forwarded to the libraries cuda_libraries.cc opens on first use. See cuda_libraries.h
// for why nothing links them.
//
// Each forwarder looks its target up once (a function-local static, so the first calls
// from several threads are safe) and then costs one predictable branch per call. When the
// library cannot be opened the forwarder answers as the library does when it is not
// initialized (CUBLAS_STATUS_NOT_INITIALIZED, CUDNN_STATUS_NOT_INITIALIZED), so callers'
// own status checks report it; create_device_handles() has already refused to start in
// that case, so only code that bypasses it (a test) can see this.
//
// The forwarders are hidden: libamprt.so and the Python module do not export them, so they
// neither capture another component's cuBLAS/cuDNN calls (PyTorch's, perhaps of another
// major version) nor get theirs captured; each resolves inside its own object.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/cuda_libraries.h"

namespace {

using amp::kernels::cuda::CudaLibrary;

// What a forwarder returns when its library is missing, by return type.
template <typename R>
R library_missing();
template <>
cublasStatus_t library_missing<cublasStatus_t>() {
  return CUBLAS_STATUS_NOT_INITIALIZED;
}
template <>
cudnnStatus_t library_missing<cudnnStatus_t>() {
  return CUDNN_STATUS_NOT_INITIALIZED;
}
template <>
const char* library_missing<const char*>() {
  return "(the CUDA library that describes this status could not be loaded)";
}
template <>
size_t library_missing<size_t>() {
  return 0;  // a version: "none loaded"
}

}  // namespace

#define AMP_CUDA_SYMBOL(lib, ret, name, params, args)                      \
  extern "C" __attribute__((visibility("hidden"))) ret name params {       \
    using Target = ret(*) params;                                          \
    static const Target target = reinterpret_cast<Target>(                 \
        amp::kernels::cuda::cuda_library_symbol(CudaLibrary::lib, #name)); \
    if (target == nullptr) return library_missing<ret>();                  \
    return target args;                                                    \
  }
#include "kernels/cuda/cuda_library_symbols.inc"
#undef AMP_CUDA_SYMBOL
