#include "tests/test_util/cuda_graph_runner.h"

#include <cuda_runtime.h>

#include <memory>

#include "graph/ops/shape_inference.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/cuda_kernels.h"

namespace amp::test {
namespace {

struct DeviceBuffer {
  void* ptr = nullptr;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
};

}  // namespace

const kernels::KernelRegistry& cuda_registry() {
  static const kernels::KernelRegistry reg = [] {
    kernels::KernelRegistry r;
    kernels::register_cuda_kernels(r);
    return r;
  }();
  return reg;
}

Result<std::vector<graph::TensorData>> run_graph_cuda(
    graph::Graph g, const std::map<std::string, graph::TensorData>& inputs) {
  using namespace graph;
  for (ValueId id : g.inputs) {
    Value& v = g.value(id);
    auto it = inputs.find(v.name);
    if (it == inputs.end()) return invalid_input("missing input '" + v.name + "'");
    v.shape = Shape::from_static(it->second.dims());
  }
  AMP_RETURN_IF_ERROR(infer_shapes(g));

  cudaStream_t stream = nullptr;
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&stream));
  std::unique_ptr<CUstream_st, void (*)(cudaStream_t)> stream_guard(
      stream, [](cudaStream_t s) { cudaStreamDestroy(s); });
  AMP_ASSIGN_OR_RETURN(kernels::cuda::DeviceHandles * dev_raw,
                       kernels::cuda::create_device_handles(0, false));
  std::unique_ptr<kernels::cuda::DeviceHandles, void (*)(kernels::cuda::DeviceHandles*)> dev(
      dev_raw, kernels::cuda::destroy_device_handles);
  AMP_ASSIGN_OR_RETURN(kernels::cuda::ContextHandles * ctx_raw,
                       kernels::cuda::create_context_handles(stream));
  std::unique_ptr<kernels::cuda::ContextHandles, void (*)(kernels::cuda::ContextHandles*)> ctx(
      ctx_raw, kernels::cuda::destroy_context_handles);

  std::vector<DeviceBuffer> buf(g.values.size());
  auto alloc = [&](ValueId id, size_t bytes) -> Status {
    AMP_CUDA_RETURN_IF_ERROR(cudaMalloc(&buf[id].ptr, bytes ? bytes : 1));
    return Status::ok();
  };
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    const TensorData* host = nullptr;
    if (v.is_constant())
      host = &*v.constant;
    else if (auto it = inputs.find(v.name); it != inputs.end())
      host = &it->second;
    if (!host) continue;
    AMP_RETURN_IF_ERROR(alloc(static_cast<ValueId>(i), host->byte_size()));
    AMP_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(buf[i].ptr, host->bytes(), host->byte_size(), cudaMemcpyHostToDevice));
  }

  std::vector<std::unique_ptr<kernels::Kernel>> keep;
  for (const Node& n : g.nodes) {
    const std::string label = "node '" + n.name + "' (" + std::string(op_name(n.op)) + ")";
    const DType kd = kernels::kernel_dtype(g, n);
    const kernels::KernelDef* def = cuda_registry().find(n.op, kernels::Backend::kCuda, kd);
    if (!def) return unsupported(label + ": no cuda kernel for " + std::string(dtype_name(kd)));
    kernels::KernelConfig cfg;
    cfg.node = &n;
    cfg.backend_handle = dev.get();
    std::vector<const void*> in_ptrs;
    std::vector<void*> out_ptrs;
    for (ValueId id : n.inputs) {
      cfg.inputs.push_back(kernels::describe_value(g, id));
      in_ptrs.push_back(id == kNoValue ? nullptr : buf[id].ptr);
    }
    for (ValueId id : n.outputs) {
      const kernels::TensorDesc d = kernels::describe_value(g, id);
      cfg.outputs.push_back(d);
      if (!d.present) {
        out_ptrs.push_back(nullptr);
        continue;
      }
      AMP_RETURN_IF_ERROR(alloc(id, d.bytes()));
      AMP_CUDA_RETURN_IF_ERROR(cudaMemset(buf[id].ptr, 0xFF, d.bytes()));  // poison
      out_ptrs.push_back(buf[id].ptr);
    }
    auto k = def->create();
    AMP_RETURN_IF_ERROR(k->prepare(cfg).with_context(label));
    DeviceBuffer ws;
    AMP_CUDA_RETURN_IF_ERROR(cudaMalloc(&ws.ptr, k->workspace_bytes() + 256));
    kernels::KernelArgs args;
    args.inputs = in_ptrs.data();
    args.outputs = out_ptrs.data();
    args.workspace = ws.ptr;
    args.stream = stream;
    args.context_handles = ctx.get();
    AMP_RETURN_IF_ERROR(k->run(args).with_context(label));
    AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    keep.push_back(std::move(k));
  }

  std::vector<TensorData> outs;
  for (ValueId id : g.outputs) {
    const Value& v = g.value(id);
    if (v.is_constant()) {
      outs.push_back(*v.constant);
      continue;
    }
    std::vector<uint8_t> host(static_cast<size_t>(*v.shape->numel()) * dtype_size(v.dtype));
    AMP_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(host.data(), buf[id].ptr, host.size(), cudaMemcpyDeviceToHost));
    AMP_ASSIGN_OR_RETURN(TensorData t,
                         TensorData::from_bytes(v.dtype, v.shape->static_dims(), std::move(host)));
    outs.push_back(std::move(t));
  }
  return outs;
}

}  // namespace amp::test
