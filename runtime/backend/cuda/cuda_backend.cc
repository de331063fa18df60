#include "runtime/backend/cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <map>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/cuda_kernels.h"
#include "runtime/backend/cuda/cuda_executor.h"
#include "runtime/backend/cuda/device_memory.h"

namespace amp::runtime {
namespace {

constexpr size_t kDeviceAlignment = 256;

size_t align_up(size_t n) {
  return (n + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
}

// Constants are identified by their host bytes: plan graphs share storage with the engine
// graph, so the same weight has the same (pointer, size) in every plan.
using HostKey = std::pair<const uint8_t*, size_t>;

struct HandlesDeleter {
  void operator()(amp::kernels::cuda::DeviceHandles* h) const {
    amp::kernels::cuda::destroy_device_handles(h);
  }
};

class CudaBackend : public Backend {
 public:
  CudaBackend(const CudaBackendOptions& opt, amp::kernels::cuda::DeviceHandles* handles)
      : opt_(opt), handles_(handles) {
    const cudaDeviceProp& p = handles_->props;
    name_ = std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) +
            ", " + cuda::describe_bytes(p.totalGlobalMem) + ", " +
            std::to_string(p.multiProcessorCount) + " SMs" +
            (opt.allow_tf32 ? ", TF32 allowed" : "") + "; " + handles_->library_versions + ")";
  }

  kernels::Backend kind() const override { return kernels::Backend::kCuda; }
  const kernels::KernelRegistry& registry() const override { return cuda_kernel_registry(); }
  void* kernel_handle() const override { return handles_.get(); }
  size_t alignment() const override { return kDeviceAlignment; }
  std::string device_name() const override { return name_; }
  size_t device_weights_bytes() const override { return weights_.size(); }

  Status upload_weights(const graph::Graph& g) override {
    std::vector<std::pair<HostKey, size_t>> layout;
    size_t total = 0;
    for (const graph::Value& v : g.values) {
      if (!v.is_constant() || v.constant->byte_size() == 0) continue;
      const HostKey key{v.constant->bytes(), v.constant->byte_size()};
      if (offsets_.count(key)) continue;
      offsets_[key] = total;
      layout.emplace_back(key, total);
      total = align_up(total + key.second);
    }
    if (total == 0) return Status::ok();
    AMP_RETURN_IF_ERROR(weights_.allocate(opt_.device, total, "weights"));
    for (const auto& [key, offset] : layout)
      AMP_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(weights_.data() + offset, key.first, key.second, cudaMemcpyHostToDevice));
    return wait_for_host_copies();
  }

  Status place_constants(ExecutionPlan& plan) const override {
    std::vector<std::pair<size_t, size_t>> local;  // (value index, offset in plan buffer)
    size_t local_total = 0;
    for (size_t i = 0; i < plan.values.size(); ++i) {
      ValueRef& ref = plan.values[i];
      if (!ref.host_constant) continue;
      const size_t bytes = plan.graph.values[i].constant->byte_size();
      if (bytes == 0) continue;
      auto it = offsets_.find(HostKey{ref.host_constant, bytes});
      if (it != offsets_.end()) {
        ref.constant = weights_.data() + it->second;
      } else {
        local.emplace_back(i, local_total);
        local_total = align_up(local_total + bytes);
      }
    }
    if (local.empty()) return Status::ok();
    auto buffer = std::make_shared<cuda::DeviceBuffer>();
    AMP_RETURN_IF_ERROR(
        buffer->allocate(opt_.device, local_total, "constants folded for these input shapes"));
    for (const auto& [i, offset] : local) {
      ValueRef& ref = plan.values[i];
      const size_t bytes = plan.graph.values[i].constant->byte_size();
      AMP_CUDA_RETURN_IF_ERROR(
          cudaMemcpy(buffer->data() + offset, ref.host_constant, bytes, cudaMemcpyHostToDevice));
      ref.constant = buffer->data() + offset;
    }
    AMP_RETURN_IF_ERROR(wait_for_host_copies());
    plan.device_constant_bytes = local_total;
    plan.device_constants = std::move(buffer);
    return Status::ok();
  }

  Result<std::unique_ptr<Executor>> create_executor() const override {
    return create_cuda_executor(CudaExecutorOptions{opt_.device, opt_.cuda_graphs});
  }

 private:
  // A cudaMemcpy from pageable memory returns once the bytes are staged, before the DMA
  // lands, and it runs on the legacy default stream, which the executors' non-blocking
  // streams do not wait for: wait here, so no kernel can read a half-written weight.
  static Status wait_for_host_copies() {
    AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(cudaStreamLegacy));
    return Status::ok();
  }

  CudaBackendOptions opt_;
  std::unique_ptr<amp::kernels::cuda::DeviceHandles, HandlesDeleter> handles_;
  std::string name_;
  cuda::DeviceBuffer weights_;
  std::map<HostKey, size_t> offsets_;
};

}  // namespace

const kernels::KernelRegistry& cuda_kernel_registry() {
  static const kernels::KernelRegistry reg = [] {
    kernels::KernelRegistry r;
    kernels::register_cuda_kernels(r);
    return r;
  }();
  return reg;
}

Result<std::unique_ptr<Backend>> create_cuda_backend(const CudaBackendOptions& opt) {
  AMP_ASSIGN_OR_RETURN(amp::kernels::cuda::DeviceHandles * handles,
                       amp::kernels::cuda::create_device_handles(opt.device, opt.allow_tf32));
  return std::unique_ptr<Backend>(std::make_unique<CudaBackend>(opt, handles));
}

}  // namespace amp::runtime
