#include "runtime/backend/cuda/stream_pool.h"

#include <mutex>
#include <vector>

#include "kernels/cuda/cuda_check.h"
#include "runtime/backend/cuda/device_memory.h"

namespace amp::runtime::cuda {
namespace {

constexpr size_t kMaxPooledSlots = 32;

struct Pool {
  std::mutex mu;
  std::vector<StreamSlot> free;
};

Pool& pool() {
  static Pool* p = new Pool;  // intentionally never destroyed (see the header)
  return *p;
}

void destroy(StreamSlot s) {
  const DeviceGuard on_device(s.device);
  amp::kernels::cuda::destroy_context_handles(s.handles);
  if (s.stream) cudaStreamDestroy(s.stream);
}

}  // namespace

Result<StreamSlot> acquire_stream(int device) {
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    for (size_t i = 0; i < p.free.size(); ++i) {
      if (p.free[i].device != device) continue;
      StreamSlot s = p.free[i];
      p.free.erase(p.free.begin() + static_cast<std::ptrdiff_t>(i));
      return s;
    }
  }
  StreamSlot s;
  s.device = device;
  AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  Result<amp::kernels::cuda::ContextHandles*> h =
      amp::kernels::cuda::create_context_handles(s.stream);
  if (!h.is_ok()) {
    cudaStreamDestroy(s.stream);
    return h.status();
  }
  s.handles = *h;
  return s;
}

void release_stream(StreamSlot slot) {
  if (!slot.stream) return;
  {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.free.size() < kMaxPooledSlots) {
      p.free.push_back(slot);
      return;
    }
  }
  destroy(slot);
}

}  // namespace amp::runtime::cuda
