#include "tests/test_util/kernel_harness.h"

#include <algorithm>
#include <string>

#include "kernels/common/element_access.h"
#include "runtime/common/half.h"
#include "tests/test_util/graph_runner.h"
#include "tests/test_util/inferred_node.h"

namespace amp::test {
namespace {

constexpr uint8_t kOutputPoison = 0xFF;
constexpr uint8_t kWorkspaceCanary = 0xAB;
constexpr size_t kAlignment = 64;

kernels::TensorDesc describe(const HostTensor& t) {
  kernels::TensorDesc d;
  d.present = t.present;
  if (!t.present) return d;
  d.dtype = t.dtype;
  d.dims = t.dims;
  return d;
}

}  // namespace

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

HostTensor absent_tensor() {
  HostTensor t;
  t.present = false;
  return t;
}

HostTensor output_spec(DType dtype, std::vector<int64_t> dims) {
  HostTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  return t;
}

void store_value(DType dtype, uint8_t* p, size_t i, double v) {
  // Integers wrap through int64 like a Cast; floats round once from double.
  const auto wrapped = [v] { return static_cast<int64_t>(v); };
  switch (dtype) {
    case DType::kF32:
      reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      return;
    case DType::kF16:
      reinterpret_cast<Half*>(p)[i] = Half(static_cast<float>(v));
      return;
    case DType::kBF16:
      reinterpret_cast<BFloat16*>(p)[i] = BFloat16(static_cast<float>(v));
      return;
    case DType::kF64:
      reinterpret_cast<double*>(p)[i] = v;
      return;
    case DType::kI64:
      reinterpret_cast<int64_t*>(p)[i] = wrapped();
      return;
    case DType::kI32:
      reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(wrapped());
      return;
    case DType::kI16:
      reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(wrapped());
      return;
    case DType::kI8:
      reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(wrapped());
      return;
    case DType::kU8:
      p[i] = static_cast<uint8_t>(wrapped());
      return;
    case DType::kBool:
      p[i] = v != 0 ? 1 : 0;
      return;
    case DType::kUndefined:
      return;
  }
}

HostTensor host_tensor(DType dtype, std::vector<int64_t> dims, const std::vector<double>& values,
                       bool constant) {
  HostTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.constant = constant;
  t.bytes.assign(static_cast<size_t>(t.numel()) * dtype_size(dtype), 0);
  const size_t n = std::min(values.size(), static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < n; ++i) store_value(dtype, t.bytes.data(), i, values[i]);
  return t;
}

std::vector<double> tensor_values(const HostTensor& t) {
  std::vector<double> v(t.present ? static_cast<size_t>(t.numel()) : 0);
  for (size_t i = 0; i < v.size(); ++i) v[i] = tensor_value(t, static_cast<int64_t>(i));
  return v;
}

double tensor_value(const HostTensor& t, int64_t i) {
  return kernels::load_as_double(t.bytes.data(), t.dtype, i);
}

struct PreparedKernel::State {
  KernelCall call;
  graph::Graph graph;  // the inferred one-node graph; config.node points into it
  kernels::KernelConfig config;
  std::vector<std::vector<uint8_t>> constants;  // per input; empty for run-time inputs
  std::vector<HostTensor> outputs;              // descriptions
  std::unique_ptr<kernels::Kernel> kernel;
};

Result<PreparedKernel> PreparedKernel::prepare(const kernels::KernelRegistry& registry,
                                               kernels::Backend backend, const KernelCall& call,
                                               const std::vector<HostTensor>& inputs,
                                               const std::vector<HostTensor>& outputs,
                                               void* backend_handle) {
  auto s = std::make_shared<State>();
  s->call = call;
  s->outputs = outputs;
  graph::Node node;
  node.name = "node_under_test";
  node.op = call.op;
  node.op_version = call.op_version;
  node.attrs = call.attrs;
  s->config.num_threads = call.threads;
  s->config.backend_handle = backend_handle;
  s->constants.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    kernels::TensorDesc d = describe(inputs[i]);
    if (inputs[i].present && inputs[i].constant) {
      s->constants[i] = inputs[i].bytes;
      d.constant_data = s->constants[i].data();
    }
    s->config.inputs.push_back(d);
  }
  for (const HostTensor& o : outputs) s->config.outputs.push_back(describe(o));
  AMP_ASSIGN_OR_RETURN(s->graph, infer_single_node(node, s->config.inputs, s->config.outputs));
  const graph::Node& inferred = s->graph.nodes[0];
  s->config.node = &inferred;
  const DType dtype = kernels::kernel_dtype(s->graph, inferred);
  const kernels::KernelDef* def = registry.find(call.op, backend, dtype);
  if (def == nullptr)
    return unsupported("no " + std::string(kernels::backend_name(backend)) + " kernel for " +
                       std::string(graph::op_name(call.op)) + " " + std::string(dtype_name(dtype)));
  s->kernel = def->create();
  AMP_RETURN_IF_ERROR(s->kernel->prepare(s->config));
  if (call.scribble_constants)
    for (size_t i : s->kernel->replaced_constant_inputs())
      if (i < s->constants.size()) std::fill(s->constants[i].begin(), s->constants[i].end(), 0xFF);
  PreparedKernel p;
  p.state_ = std::move(s);
  return p;
}

Result<std::vector<HostTensor>> PreparedKernel::run(const std::vector<HostTensor>& inputs,
                                                    int threads) const {
  const State& s = *state_;
  if (inputs.size() != s.config.inputs.size())
    return internal_error("test: prepared with " + std::to_string(s.config.inputs.size()) +
                          " inputs, run with " + std::to_string(inputs.size()));
  // Run-time inputs get private copies, so a kernel that writes an input is caught by the
  // caller's unchanged tensors (and in place is a real shared buffer).
  std::vector<std::vector<uint8_t>> in_bytes(inputs.size());
  std::vector<const void*> in_ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].present) continue;
    if (!s.constants[i].empty() || inputs[i].constant) {
      in_ptrs[i] = s.constants[i].data();
      continue;
    }
    in_bytes[i] = inputs[i].bytes;
    in_ptrs[i] = in_bytes[i].data();
  }
  std::vector<HostTensor> outs = s.outputs;
  std::vector<void*> out_ptrs(outs.size(), nullptr);
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k].present) continue;
    const size_t size = static_cast<size_t>(outs[k].numel()) * dtype_size(outs[k].dtype);
    outs[k].bytes.assign(size + 1, kOutputPoison);  // one guard byte
    out_ptrs[k] = outs[k].bytes.data();
  }
  if (s.call.in_place) {
    if (outs.empty() || inputs.empty() || outs[0].bytes.size() != inputs[0].bytes.size() + 1)
      return internal_error("test: in place needs output 0 the size of input 0");
    std::copy(inputs[0].bytes.begin(), inputs[0].bytes.end(), outs[0].bytes.begin());
    in_ptrs[0] = outs[0].bytes.data();
  }
  const size_t ws_size = s.kernel->workspace_bytes();
  std::vector<uint8_t> ws(ws_size + 2 * kAlignment, kWorkspaceCanary);
  uint8_t* aligned =
      ws.data() + (kAlignment - reinterpret_cast<uintptr_t>(ws.data()) % kAlignment) % kAlignment;
  kernels::KernelArgs args;
  args.inputs = in_ptrs.data();
  args.outputs = out_ptrs.data();
  args.workspace = aligned;
  args.num_threads = threads;
  AMP_RETURN_IF_ERROR(s.kernel->run(args));
  for (const uint8_t* c = aligned + ws_size; c < aligned + ws_size + kAlignment; ++c)
    if (*c != kWorkspaceCanary) return internal_error("test: the kernel wrote past its workspace");
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!outs[k].present) continue;
    if (outs[k].bytes.back() != kOutputPoison)
      return internal_error("test: the kernel wrote past output " + std::to_string(k));
    outs[k].bytes.pop_back();
  }
  return outs;
}

const kernels::Kernel& PreparedKernel::kernel() const {
  return *state_->kernel;
}
const kernels::KernelConfig& PreparedKernel::config() const {
  return state_->config;
}
const KernelCall& PreparedKernel::call() const {
  return state_->call;
}
const std::vector<uint8_t>& PreparedKernel::constant_bytes(size_t i) const {
  return state_->constants[i];
}
const std::vector<HostTensor>& PreparedKernel::output_specs() const {
  return state_->outputs;
}

KernelRun run_kernel(const KernelCall& call, const std::vector<HostTensor>& inputs,
                     const std::vector<HostTensor>& outputs) {
  KernelRun r;
  Result<PreparedKernel> p =
      PreparedKernel::prepare(cpu_registry(), kernels::Backend::kCpu, call, inputs, outputs);
  if (!p.is_ok()) {
    r.prepare_status = p.status();
    return r;
  }
  Result<std::vector<HostTensor>> outs = p->run(inputs, call.threads);
  if (!outs.is_ok()) {
    r.run_status = outs.status();
    return r;
  }
  r.outputs = std::move(*outs);
  return r;
}

}  // namespace amp::test
