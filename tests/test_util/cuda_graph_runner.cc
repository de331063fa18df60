#include "tests/test_util/cuda_graph_runner.h"

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "graph/ops/shape_inference.h"
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_context.h"
#include "kernels/cuda/cuda_kernels.h"
#include "tests/test_util/graph_runner.h"

namespace amp::test {
namespace {

struct DeviceBuffer {
  void* ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
};

// A stream with the device and context handles the CUDA kernels expect, as the runtime's
// ExecutionContext holds them.
class DeviceSession {
 public:
  Status open() {
    AMP_CUDA_RETURN_IF_ERROR(cudaStreamCreate(&stream_));
    AMP_ASSIGN_OR_RETURN(device_, kernels::cuda::create_device_handles(0, false));
    AMP_ASSIGN_OR_RETURN(context_, kernels::cuda::create_context_handles(stream_));
    return Status::ok();
  }
  ~DeviceSession() {
    if (context_) kernels::cuda::destroy_context_handles(context_);
    if (device_) kernels::cuda::destroy_device_handles(device_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t stream() const { return stream_; }
  kernels::cuda::DeviceHandles* device() const { return device_; }
  kernels::cuda::ContextHandles* context() const { return context_; }

 private:
  cudaStream_t stream_ = nullptr;
  kernels::cuda::DeviceHandles* device_ = nullptr;
  kernels::cuda::ContextHandles* context_ = nullptr;
};

constexpr size_t kOutputGuard = 256;  // poisoned bytes behind each device output

Status upload(const std::vector<uint8_t>& host, DeviceBuffer& dev) {
  AMP_CUDA_RETURN_IF_ERROR(cudaMalloc(&dev.ptr, host.size() + 1));
  if (!host.empty())
    AMP_CUDA_RETURN_IF_ERROR(cudaMemcpy(dev.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
  return Status::ok();
}

Result<std::vector<HostTensor>> run_prepared_cuda(const PreparedKernel& p,
                                                  const DeviceSession& session,
                                                  const std::vector<HostTensor>& inputs) {
  std::vector<DeviceBuffer> in_buf(inputs.size());
  std::vector<const void*> in_ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].present) continue;
    AMP_RETURN_IF_ERROR(upload(inputs[i].bytes, in_buf[i]));
    in_ptrs[i] = in_buf[i].ptr;
  }
  std::vector<HostTensor> outs = p.output_specs();
  std::vector<DeviceBuffer> out_buf(outs.size());
  std::vector<void*> out_ptrs(outs.size(), nullptr);
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k].present) continue;
    const size_t bytes = p.config().outputs[k].bytes() + kOutputGuard;
    AMP_CUDA_RETURN_IF_ERROR(cudaMalloc(&out_buf[k].ptr, bytes));
    AMP_CUDA_RETURN_IF_ERROR(cudaMemset(out_buf[k].ptr, 0xFF, bytes));
    out_ptrs[k] = out_buf[k].ptr;
  }
  if (p.call().in_place) {
    if (outs.empty() || inputs.empty() || p.config().outputs[0].bytes() != inputs[0].bytes.size())
      return internal_error("test: in place needs output 0 the size of input 0");
    AMP_CUDA_RETURN_IF_ERROR(cudaMemcpy(out_buf[0].ptr, inputs[0].bytes.data(),
                                        inputs[0].bytes.size(), cudaMemcpyHostToDevice));
    in_ptrs[0] = out_buf[0].ptr;
  }
  DeviceBuffer ws;
  AMP_CUDA_RETURN_IF_ERROR(cudaMalloc(&ws.ptr, p.kernel().workspace_bytes() + 256));
  kernels::KernelArgs args;
  args.inputs = in_ptrs.data();
  args.outputs = out_ptrs.data();
  args.workspace = ws.ptr;
  args.stream = session.stream();
  args.context_handles = session.context();
  AMP_RETURN_IF_ERROR(p.kernel().run(args));
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(session.stream()));
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k].present) continue;
    const size_t size = p.config().outputs[k].bytes();
    outs[k].bytes.resize(size + kOutputGuard);
    AMP_CUDA_RETURN_IF_ERROR(cudaMemcpy(outs[k].bytes.data(), out_buf[k].ptr, outs[k].bytes.size(),
                                        cudaMemcpyDeviceToHost));
    for (size_t b = size; b < outs[k].bytes.size(); ++b)
      if (outs[k].bytes[b] != 0xFF)
        return internal_error("test: the kernel wrote past output " + std::to_string(k));
    outs[k].bytes.resize(size);
  }
  return outs;
}

}  // namespace

KernelRun run_kernel_cuda(const KernelCall& call, const std::vector<HostTensor>& inputs,
                          const std::vector<HostTensor>& outputs) {
  KernelRun r;
  DeviceSession session;
  r.prepare_status = session.open();
  if (!r.prepare_status.is_ok()) return r;
  Result<PreparedKernel> p = PreparedKernel::prepare(cuda_registry(), kernels::Backend::kCuda, call,
                                                     inputs, outputs, session.device());
  if (!p.is_ok()) {
    r.prepare_status = p.status();
    return r;
  }
  Result<std::vector<HostTensor>> outs = run_prepared_cuda(*p, session, inputs);
  if (!outs.is_ok()) {
    r.run_status = outs.status();
    return r;
  }
  r.outputs = std::move(*outs);
  return r;
}

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
  AMP_RETURN_IF_ERROR(bind_inputs_and_fold(g, inputs));

  DeviceSession session;
  AMP_RETURN_IF_ERROR(session.open());
  cudaStream_t stream = session.stream();

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
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    AMP_ASSIGN_OR_RETURN(const std::optional<DataDependentDim> dynamic,
                         size_data_dependent_output(g, static_cast<NodeId>(i)));
    const Node& n = g.nodes[i];
    const std::string label = "node '" + n.name + "' (" + std::string(op_name(n.op)) + ")";
    const DType kd = kernels::kernel_dtype(g, n);
    const kernels::KernelDef* def = cuda_registry().find(n.op, kernels::Backend::kCuda, kd);
    if (!def) return unsupported(label + ": no cuda kernel for " + std::string(dtype_name(kd)));
    kernels::KernelConfig cfg;
    cfg.node = &n;
    cfg.backend_handle = session.device();
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
    args.context_handles = session.context();
    int64_t dynamic_size = -1;
    if (dynamic) args.dynamic_size = &dynamic_size;
    AMP_RETURN_IF_ERROR(k->run(args).with_context(label));
    AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    // The buffer keeps its bound's size; the kernel wrote the reported size compactly.
    if (dynamic) AMP_RETURN_IF_ERROR(trim_data_dependent_output(g, n, *dynamic, dynamic_size));
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
