// Owning device and pinned-host allocations for the CUDA backend.
//
// Failures are Statuses, never aborts: an allocation that fails with
// cudaErrorMemoryAllocation becomes kOutOfMemory saying what it was for, how many bytes
// were asked and how many the device had free (cudaMemGetInfo), so a server can report
// "arena of 3.2 GB, 1.1 GB free" instead of a bare error string.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/common/status.h"

namespace amp::runtime::cuda {

// Makes `device` current for a scope and restores the caller's device after, so a library
// call on a user's thread does not leave that thread on another GPU.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    status_ = cudaSetDevice(device);
  }
  ~DeviceGuard() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  cudaError_t status() const { return status_; }

 private:
  int previous_ = -1;
  cudaError_t status_ = cudaSuccess;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  ~DeviceBuffer() { reset(); }

  // Frees what is held, then allocates `bytes` (at least 1) on `device`. `what` names the
  // allocation in errors ("activation arena", "weights").
  Status allocate(int device, size_t bytes, const std::string& what);
  void reset();
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int device_ = 0;
};

// Page-locked host memory: lets cudaMemcpyAsync overlap with compute and be captured
// into a CUDA graph (pageable copies cannot be).
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { reset(); }

  // Grows to at least `bytes` (contents are not kept); never shrinks.
  Status reserve(size_t bytes, const std::string& what);
  void reset();
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// "cudaMalloc of 1.5 GiB for the activation arena failed: 1.1 GiB free of 80 GiB".
std::string describe_bytes(size_t bytes);

}  // namespace amp::runtime::cuda
