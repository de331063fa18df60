// cuBLAS, cuBLASLt and cuDNN, opened when the CUDA backend first needs them.
//
// Why: linking them made every process that loads AMPRT map them at start-up, GPU or not.
// cuBLASLt alone is a 540 MB library whose relocations and initializers cost ~150 MiB of
// resident memory and ~70 ms before main(), so a CPU-only server, `amprun --help` or a
// Python `import` paid that for nothing, and a CUDA build could not start at all on a
// machine without these libraries. (TensorFlow's stream_executor does the same with its
// cuBLAS/cuDNN stubs; ONNX Runtime moves its CUDA provider into a library of its own.)
//
// How: nothing links them. cuda_library_forwarders.cc defines each function our kernels
// call (the list: cuda_library_symbols.inc) with the header's own signature; the first
// call of each looks its target up through cuda_library_symbol(), which opens the
// libraries on first use. create_device_handles() calls load_cuda_libraries() before any
// of them, so a missing library is one clear error when the CUDA backend starts (and a
// reason to stay on the CPU under backend auto), never a failure inside a kernel. The
// CUDA runtime itself is linked statically (cudart_static, a few hundred KiB); it finds
// the driver (libcuda.so.1) by itself and reports "no driver" as error 35.
//
// Search order for each library: its soname (LD_LIBRARY_PATH, the loading object's
// RUNPATH, ld.so.conf: where pip's nvidia-* wheels or a system install put it), then the
// folders CMake found the toolkit and cuDNN in at build time.
#pragma once

#include <string>
#include <vector>

#include "runtime/common/status.h"

namespace amp::kernels::cuda {

enum class CudaLibrary : int { kCublasLt = 0, kCublas = 1, kCudnn = 2 };
constexpr int kCudaLibraryCount = 3;

// "libcublasLt.so.13", "libcublas.so.13", "libcudnn.so.9" (majors from the headers we
// compiled against, whose ABI the forwarders assume).
const char* cuda_library_soname(CudaLibrary lib);

// Opens the three libraries once per process; every call returns the first call's
// result (kUnsupported naming the library that could not be opened and why).
Status load_cuda_libraries();

// `name` in `lib`, opening the libraries if needed; nullptr when they cannot be opened or
// `lib` lacks the symbol.
void* cuda_library_symbol(CudaLibrary lib, const char* name);

// The symbols cuda_library_forwarders.cc forwards (for the test that each resolves).
struct ForwardedCudaSymbol {
  CudaLibrary lib;
  const char* name;
};
const std::vector<ForwardedCudaSymbol>& forwarded_cuda_symbols();

// One library by soname with the search above: its handle, or kUnsupported naming it,
// what the dynamic loader said and every folder tried. Exposed for tests.
Result<void*> open_cuda_library(const std::string& soname, const std::vector<std::string>& dirs);

// The build-time folders searched after the soname.
std::vector<std::string> cuda_library_fallback_dirs();

}  // namespace amp::kernels::cuda
