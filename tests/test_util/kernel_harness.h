// One kernel driven the way the runtime drives it, for the kernel tests that need more
// control than a graph gives (graph_runner.h): exact input and output descriptions,
// constant versus run-time inputs, thread counts, in-place buffers, and one prepared kernel
// run many times.
//
// The node is first shape-inferred in a one-node graph (infer_single_node), so it carries
// its typed record and bad attributes fail there, as at load; the kernel is then looked up
// with the runtime's rule (kernels::kernel_dtype), configured and prepared. Every run checks
// that the kernel stays inside what it was given: outputs start poisoned (0xFF) with a guard
// byte after each, the workspace is 64-byte aligned with a 64-byte canary after it, and
// run-time inputs are private copies. With `scribble_constants`, the constant inputs a
// kernel promises not to read at run (Kernel::replaced_constant_inputs: packed weights) are
// overwritten after prepare().
//
//   const KernelRun r = run_kernel({.op = OpType::kRelu}, {host_tensor(DType::kF16, {3}, v)},
//                                  {output_spec(DType::kF16, {3})});
//   ASSERT_TRUE(r.ok()) << r.status().to_string();
//   std::vector<double> y = tensor_values(r.outputs[0]);
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "graph/ir/attribute.h"
#include "graph/ir/graph.h"
#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::test {

// A tensor on the host: a kernel input, or (without bytes) the description of an output.
struct HostTensor {
  DType dtype = DType::kF32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
  bool constant = false;  // handed to prepare() as constant_data
  bool present = true;    // false: an absent optional input or output

  int64_t numel() const;
};

HostTensor absent_tensor();
HostTensor output_spec(DType dtype, std::vector<int64_t> dims);
// `values` stored in `dtype`: floats rounded, integers wrapped through int64 like a cast,
// bool as value != 0.
HostTensor host_tensor(DType dtype, std::vector<int64_t> dims, const std::vector<double>& values,
                       bool constant = false);
// Elements widened to double (bool as 0 or 1): all of them, or element i.
std::vector<double> tensor_values(const HostTensor& t);
double tensor_value(const HostTensor& t, int64_t i);
void store_value(DType dtype, uint8_t* data, size_t i, double v);

template <typename T>
HostTensor raw_tensor(DType dtype, std::vector<int64_t> dims, const std::vector<T>& values,
                      bool constant = false) {
  HostTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.constant = constant;
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

template <typename T>
std::vector<T> raw_values(const HostTensor& t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

struct KernelCall {
  graph::OpType op = graph::OpType::kIdentity;
  graph::Attributes attrs;
  int op_version = 22;
  int threads = 1;
  bool in_place = false;  // output 0 starts as input 0 and is passed as both
  // Overwrite, after prepare(), the constant inputs the kernel says run() never reads
  // (Kernel::replaced_constant_inputs): a kernel that reads one anyway fails its check.
  bool scribble_constants = false;
};

// A kernel prepared for one call; run() may be called any number of times, from several
// threads at once (it is const, like Kernel::run).
class PreparedKernel {
 public:
  // `backend_handle` goes to KernelConfig (CUDA: the DeviceHandles, which must outlive this).
  static Result<PreparedKernel> prepare(const kernels::KernelRegistry& registry,
                                        kernels::Backend backend, const KernelCall& call,
                                        const std::vector<HostTensor>& inputs,
                                        const std::vector<HostTensor>& outputs,
                                        void* backend_handle = nullptr);

  // Runs on the host (CPU kernels) with `inputs` as run-time data (constant inputs get the
  // bytes prepare() saw, scribbled if the call says so) and returns the outputs.
  Result<std::vector<HostTensor>> run(const std::vector<HostTensor>& inputs, int threads) const;

  const kernels::Kernel& kernel() const;
  const kernels::KernelConfig& config() const;
  const KernelCall& call() const;
  // Constant input i's bytes as handed to run (empty for run-time inputs).
  const std::vector<uint8_t>& constant_bytes(size_t i) const;
  // The output descriptions given to prepare().
  const std::vector<HostTensor>& output_specs() const;

 private:
  struct State;
  std::shared_ptr<const State> state_;
};

// The outcome of one prepare-and-run, with the step that failed.
struct KernelRun {
  Status prepare_status;  // inference, lookup or prepare()
  Status run_status;
  std::vector<HostTensor> outputs;

  bool ok() const { return prepare_status.is_ok() && run_status.is_ok(); }
  Status status() const { return prepare_status.is_ok() ? run_status : prepare_status; }
};

// Prepares and runs once on the CPU registry (the CUDA twin: cuda_graph_runner.h).
KernelRun run_kernel(const KernelCall& call, const std::vector<HostTensor>& inputs,
                     const std::vector<HostTensor>& outputs);

}  // namespace amp::test
