#include "kernels/cuda/cuda_libraries.h"

#include <cublas_api.h>
#include <cudnn_version.h>
#include <dlfcn.h>

#include <array>
#include <string>
#include <vector>

namespace amp::kernels::cuda {

namespace {

#define AMP_STRINGIFY_(x) #x
#define AMP_STRINGIFY(x) AMP_STRINGIFY_(x)

constexpr std::array<const char*, kCudaLibraryCount> kSonames = {
    "libcublasLt.so." AMP_STRINGIFY(CUBLAS_VER_MAJOR),
    "libcublas.so." AMP_STRINGIFY(CUBLAS_VER_MAJOR),
    "libcudnn.so." AMP_STRINGIFY(CUDNN_MAJOR),
};

// What each library is, for the error a user reads.
constexpr std::array<const char*, kCudaLibraryCount> kWhat = {"cuBLASLt", "cuBLAS", "cuDNN"};

struct Loaded {
  Status status;
  std::array<void*, kCudaLibraryCount> handles{};
};

// Opened once per process and never closed: the libraries keep per-process state (cuDNN's
// sub-libraries, cuBLAS's kernels) that outlives any one Engine.
const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded r;
    const std::vector<std::string> dirs = cuda_library_fallback_dirs();
    for (int i = 0; i < kCudaLibraryCount; ++i) {
      Result<void*> h = open_cuda_library(kSonames[i], dirs);
      if (!h.is_ok()) {
        r.status = unsupported(std::string("the CUDA backend needs ") + kWhat[i] + ": " +
                               h.status().message());
        return r;
      }
      r.handles[i] = *h;
    }
    return r;
  }();
  return l;
}

}  // namespace

const char* cuda_library_soname(CudaLibrary lib) {
  return kSonames[static_cast<int>(lib)];
}

std::vector<std::string> cuda_library_fallback_dirs() {
  std::vector<std::string> dirs;
#ifdef AMP_CUDA_LIBRARY_DIRS
  // ":"-separated, as PATH is.
  const std::string all = AMP_CUDA_LIBRARY_DIRS;
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find(':', start);
    if (end == std::string::npos) end = all.size();
    if (end > start) dirs.push_back(all.substr(start, end - start));
    start = end + 1;
  }
#endif
  return dirs;
}

Result<void*> open_cuda_library(const std::string& soname, const std::vector<std::string>& dirs) {
  dlerror();  // clear a stale message
  if (void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const char* first = dlerror();
  std::string why = first ? first : "not found";
  std::string tried;
  for (const std::string& dir : dirs) {
    const std::string path = dir + "/" + soname;
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    tried += (tried.empty() ? "" : ", ") + dir;
  }
  return unsupported("cannot load " + soname + " (" + why + ")" +
                     (tried.empty() ? std::string() : "; also looked in " + tried) +
                     "; install it or add its folder to LD_LIBRARY_PATH");
}

Status load_cuda_libraries() {
  return loaded().status;
}

void* cuda_library_symbol(CudaLibrary lib, const char* name) {
  const Loaded& l = loaded();
  if (!l.status.is_ok()) return nullptr;
  return dlsym(l.handles[static_cast<int>(lib)], name);
}

const std::vector<ForwardedCudaSymbol>& forwarded_cuda_symbols() {
  static const std::vector<ForwardedCudaSymbol> symbols = {
#define AMP_CUDA_SYMBOL(lib, ret, name, params, args) {CudaLibrary::lib, #name},
#include "kernels/cuda/cuda_library_symbols.inc"
#undef AMP_CUDA_SYMBOL
  };
  return symbols;
}

}  // namespace amp::kernels::cuda
