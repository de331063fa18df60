// KernelRegistry: which kernels exist, keyed by (op, backend, dtype). Filled explicitly by
// one function per backend (register_cpu_kernels, register_cuda_kernels), never by static
// initializers that a static library would silently drop. The AMP planner asks it whether
// a low-precision kernel exists before choosing fp16/bf16 for a node.
//
// The dtype of a node, for lookup (kernel_dtype below): the dtype of its first float input;
// else of its first input; else of its first output (ConstantOfShape, Range). So Equal on
// f16 inputs is looked up as f16 even though it outputs bool, and Cast as its source type.
//
//   KernelRegistry reg;
//   register_cpu_kernels(reg);
//   const KernelDef* def = reg.find(OpType::kConv, Backend::kCpu, DType::kF32);
//   std::unique_ptr<Kernel> k = def->create();
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/kernel.h"

namespace amp::kernels {

struct KernelDef {
  graph::OpType op;
  Backend backend;
  DType dtype;
  std::function<std::unique_ptr<Kernel>()> create;
  // Output 0 may overwrite this input's buffer (elementwise ops), or -1.
  int in_place_input = -1;
};

class KernelRegistry {
 public:
  // Later registration of the same key replaces the earlier one.
  void add(KernelDef def);
  // Registers one factory for several dtypes.
  void add_all(graph::OpType op, Backend backend, const std::vector<DType>& dtypes,
               std::function<std::unique_ptr<Kernel>()> create, int in_place_input = -1);
  const KernelDef* find(graph::OpType op, Backend backend, DType dtype) const;
  bool has(graph::OpType op, Backend backend, DType dtype) const {
    return find(op, backend, dtype) != nullptr;
  }
  // The dtypes registered for (op, backend), for error messages.
  std::vector<DType> dtypes_for(graph::OpType op, Backend backend) const;
  size_t size() const { return defs_.size(); }

 private:
  std::map<std::tuple<graph::OpType, Backend, DType>, KernelDef> defs_;
};

// The lookup dtype of a node (see the header comment).
DType kernel_dtype(const graph::Graph& g, const graph::Node& n);

// Dtype groups used when registering.
const std::vector<DType>& all_dtypes();      // every DType AMPRT supports
const std::vector<DType>& float_dtypes();    // f32, f16, bf16, f64
const std::vector<DType>& numeric_dtypes();  // floats + integers (no bool)

}  // namespace amp::kernels
