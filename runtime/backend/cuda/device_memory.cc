#include "runtime/backend/cuda/device_memory.h"

#include <cstdio>
#include <utility>

#include "kernels/cuda/cuda_check.h"

namespace amp::runtime::cuda {

std::string describe_bytes(size_t bytes) {
  char buf[64];
  if (bytes >= (size_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (size_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  return buf;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    device_ = o.device_;
  }
  return *this;
}

Status DeviceBuffer::allocate(int device, size_t bytes, const std::string& what) {
  reset();
  const DeviceGuard on_device(device);
  if (on_device.status() != cudaSuccess)
    return amp::kernels::cuda::cuda_status(on_device.status(), "cudaSetDevice", __FILE__, __LINE__);
  const size_t asked = bytes ? bytes : 1;
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, asked);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky, but clear it so the next call starts clean
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return out_of_memory("cudaMalloc of " + describe_bytes(asked) + " (" + std::to_string(asked) +
                         " bytes) for the " + what + " failed: the GPU has " +
                         describe_bytes(free_b) + " free of " + describe_bytes(total_b));
  }
  if (err != cudaSuccess)
    return amp::kernels::cuda::cuda_status(err, ("cudaMalloc for the " + what).c_str(), __FILE__,
                                           __LINE__);
  data_ = static_cast<uint8_t*>(p);
  size_ = asked;
  device_ = device;
  return Status::ok();
}

void DeviceBuffer::reset() {
  if (data_) {
    // Freeing must not fail silently into a leak on the wrong device: select ours first.
    int current = 0;
    const bool switched = cudaGetDevice(&current) == cudaSuccess && current != device_ &&
                          cudaSetDevice(device_) == cudaSuccess;
    cudaFree(data_);
    if (switched) cudaSetDevice(current);
  }
  data_ = nullptr;
  size_ = 0;
}

Status PinnedBuffer::reserve(size_t bytes, const std::string& what) {
  if (bytes <= size_ && data_) return Status::ok();
  reset();
  const size_t asked = bytes ? bytes : 1;
  void* p = nullptr;
  const cudaError_t err = cudaHostAlloc(&p, asked, cudaHostAllocDefault);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return out_of_memory("cudaHostAlloc of " + describe_bytes(asked) +
                         " of pinned host memory for " + what + " failed");
  }
  if (err != cudaSuccess)
    return amp::kernels::cuda::cuda_status(err, ("cudaHostAlloc for " + what).c_str(), __FILE__,
                                           __LINE__);
  data_ = static_cast<uint8_t*>(p);
  size_ = asked;
  return Status::ok();
}

void PinnedBuffer::reset() {
  if (data_) cudaFreeHost(data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace amp::runtime::cuda
