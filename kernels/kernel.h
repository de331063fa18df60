// The kernel interface every backend implements (TFLite Micro's "prepare once, run blind").
//
// Lifetime: the runtime creates one Kernel per node per bound shape set, calls prepare()
// once with the node's static shapes and dtypes (and the bytes of constant inputs, so
// weights can be pre-packed), then calls run() any number of times, possibly from several
// threads at once (one per ExecutionContext). A later plan whose node is configured the same
// (op, attributes, descriptions, threads) runs the same kernel (runtime/kernel_reuse.h), so
// a kernel depends on nothing but its KernelConfig and keeps no pointer to the node. Hence:
//   - prepare() validates everything (dtypes, ranks, attributes), precomputes, creates
//     oneDNN primitives / picks cuDNN algorithms, and sizes the workspace;
//   - run() is const: it must not allocate, must not re-validate, and keeps all mutable
//     scratch in the workspace the runtime passes (sized by workspace_bytes()). It checks
//     only data-dependent hazards (e.g. a Gather index out of range) and reports them as
//     a Status.
//
//   class ReluKernel : public Kernel {
//     Status prepare(const KernelConfig& cfg) override { n_ = cfg.outputs[0].numel(); ... }
//     Status run(const KernelArgs& a) const override { ... a.input<float>(0) ... }
//   };
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::kernels {

enum class Backend : uint8_t { kCpu, kCuda };
const char* backend_name(Backend b);

// A tensor as seen by prepare(): static dims, dtype, and for constants the bytes.
struct TensorDesc {
  DType dtype = DType::kUndefined;
  std::vector<int64_t> dims;
  // Non-null for constant inputs: the HOST bytes, readable in prepare() (axes, pads, scales,
  // weights to pre-pack). On CUDA, run() receives the device copy through KernelArgs.
  const void* constant_data = nullptr;
  // What keeps constant_data alive (graph::TensorData::owner), when known: lets a kernel
  // share what it derives from a constant (packed weights) with other plans' kernels.
  std::shared_ptr<const void> constant_owner;
  bool present = true;  // false for an absent optional input/output
  // CPU, between two oneDNN convolutions only (runtime/layout_plan.h): the tensor is stored
  // in the convolutions' own dense layout (kernels/cpu/dnnl_common.h, conv_activation_desc:
  // channels-last, or 8-channel blocks on AVX2) instead of N, C, spatial..., so neither
  // convolution reorders it. The dims stay logical (N, C, spatial...).
  bool conv_layout = false;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  size_t rank() const { return dims.size(); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
};

// A node with nothing to compute: at least one output present, and every present output
// with zero elements (runtime/empty_step.h; KernelEvaluator skips such folds too).
inline bool only_empty_outputs(const std::vector<TensorDesc>& outputs) {
  bool any = false;
  for (const TensorDesc& d : outputs) {
    if (!d.present) continue;
    if (d.numel() != 0) return false;
    any = true;
  }
  return any;
}

// The TensorDesc of value `id` of `g` (static dims, the host bytes of constants); absent
// (present = false) for kNoValue. How the runtime and the test runners describe a node.
inline TensorDesc describe_value(const graph::Graph& g, graph::ValueId id) {
  TensorDesc d;
  if (id == graph::kNoValue) {
    d.present = false;
    return d;
  }
  const graph::Value& v = g.value(id);
  d.dtype = v.dtype;
  if (v.shape) d.dims = v.shape->static_dims();
  if (v.is_constant()) {
    d.constant_data = v.constant->bytes();
    d.constant_owner = v.constant->owner();
  }
  return d;
}

struct KernelConfig {
  const graph::Node* node = nullptr;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  int num_threads = 1;
  void* backend_handle = nullptr;  // CPU: unused; CUDA: cuda::DeviceHandles* (cuda_context.h)
};

struct KernelArgs {
  const void* const* inputs = nullptr;  // nullptr entries for absent optional inputs
  void* const* outputs = nullptr;       // nullptr entries for absent optional outputs
  void* workspace = nullptr;            // workspace_bytes() bytes, aligned
  int num_threads = 1;                  // CPU threads this run may use
  void* stream = nullptr;               // CUDA: cudaStream_t of the ExecutionContext
  void* context_handles = nullptr;      // CUDA: cuda::ContextHandles* (cuDNN/cuBLASLt
                                        // handles bound to this context's stream)
  // Data-dependent ops (graph/ops/data_dependent.h) only: their output 0 was prepared at the
  // bound of its data-dependent dim; run() lays it out densely for the size it finds and
  // writes that size here, on the host (a CUDA kernel synchronizes for it).
  int64_t* dynamic_size = nullptr;

  template <typename T>
  const T* input(size_t i) const {
    return static_cast<const T*>(inputs[i]);
  }
  template <typename T>
  T* output(size_t i) const {
    return static_cast<T*>(outputs[i]);
  }
};

// A constant a kernel keeps in a form of its own (packed weights, kernels/cpu/
// shared_constants.h), for the memory report: kernels that share one buffer report the
// same `id`, and the runtime counts it once.
struct HeldConstant {
  const void* id = nullptr;
  size_t bytes = 0;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual Status prepare(const KernelConfig& config) = 0;
  virtual size_t workspace_bytes() const { return 0; }
  virtual Status run(const KernelArgs& args) const = 0;
  // What prepare() chose, for profiles (amp::NodeProfile::implementation): a library's
  // primitive and ISA ("oneDNN conv brgconv:avx512_core"), a cuDNN algorithm. Empty
  // for a backend's own loops, which the runtime names itself.
  virtual std::string implementation() const { return {}; }
  // What prepare() derived from constant inputs and holds beyond the model's weights
  // (oneDNN's reordered weights, packed GEMM panels, Winograd filter transforms).
  virtual void held_constants(std::vector<HeldConstant>& /*out*/) const {}
  // The constant inputs whose every use in run() goes to such a held form instead: run()
  // never reads these inputs' own bytes, so the runtime may hand their pages in a mapped
  // model file back to the OS (runtime/weight_pages.h). Empty (the default): run() may read
  // every input. Saying too little only keeps pages resident; never say too much.
  virtual std::vector<size_t> replaced_constant_inputs() const { return {}; }
  // Of a Concat (Split) whose inputs (outputs) are each one contiguous block of the whole
  // tensor: each one's byte offset in it, so that the memory planner can place them there
  // (graph/planning/memory_planner.h, step 4); run() then skips the copy of a part that it
  // finds in place. Empty (the default): the parts interleave, or the kernel always copies.
  virtual std::vector<size_t> part_offsets() const { return {}; }
};

}  // namespace amp::kernels
