#include "runtime/backend/cuda/device_query.h"

#include <cuda_runtime.h>

namespace amp::runtime::cuda {
namespace {

DeviceQuery run_query() {
  DeviceQuery q;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    q.reason = std::string("no usable GPU: cudaGetDeviceCount returned ") + cudaGetErrorName(err) +
               " (error " + std::to_string(static_cast<int>(err)) + ": " + cudaGetErrorString(err) +
               ")";
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return q;
  }
  if (count == 0) {
    q.reason = "no usable GPU: cudaGetDeviceCount found 0 devices";
    return q;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = prop.name;
    d.cc_major = prop.major;
    d.cc_minor = prop.minor;
    d.total_memory = prop.totalGlobalMem;
    d.multiprocessors = prop.multiProcessorCount;
    q.devices.push_back(d);
  }
  if (q.devices.empty()) q.reason = "no usable GPU: device properties could not be read";
  return q;
}

}  // namespace

const DeviceQuery& query_devices() {
  static const DeviceQuery q = run_query();
  return q;
}

}  // namespace amp::runtime::cuda
