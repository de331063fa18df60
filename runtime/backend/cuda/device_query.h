// Which GPUs are visible, read safely.
//
// On a machine without a GPU or driver, cudaGetDeviceCount returns an error (35,
// cudaErrorInsufficientDriver; or 100, cudaErrorNoDevice). That is not a failure of the
// runtime: query_devices() reports it as "no GPU" with the reason, and callers fall back
// to the CPU backend or skip GPU tests.
#pragma once

#include <string>
#include <vector>

namespace amp::runtime::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  size_t total_memory = 0;
  int multiprocessors = 0;
};

struct DeviceQuery {
  std::vector<DeviceInfo> devices;  // empty when no GPU is usable
  std::string reason;               // why none is usable, e.g. "CUDA driver ... (error 35)"
  bool has_gpu() const { return !devices.empty(); }
};

// Never throws or aborts. Cached after the first call (device visibility does not change
// within a process).
const DeviceQuery& query_devices();

}  // namespace amp::runtime::cuda
