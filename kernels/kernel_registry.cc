#include "kernels/kernel_registry.h"

namespace amp::kernels {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "?";
}

void KernelRegistry::add(KernelDef def) {
  auto key = std::make_tuple(def.op, def.backend, def.dtype);
  defs_.insert_or_assign(key, std::move(def));
}

void KernelRegistry::add_all(graph::OpType op, Backend backend, const std::vector<DType>& dtypes,
                             std::function<std::unique_ptr<Kernel>()> create, int in_place_input) {
  for (DType t : dtypes) add({op, backend, t, create, in_place_input});
}

const KernelDef* KernelRegistry::find(graph::OpType op, Backend backend, DType dtype) const {
  auto it = defs_.find(std::make_tuple(op, backend, dtype));
  return it == defs_.end() ? nullptr : &it->second;
}

std::vector<DType> KernelRegistry::dtypes_for(graph::OpType op, Backend backend) const {
  std::vector<DType> out;
  for (const auto& [key, def] : defs_)
    if (std::get<0>(key) == op && std::get<1>(key) == backend) out.push_back(std::get<2>(key));
  return out;
}

DType kernel_dtype(const graph::Graph& g, const graph::Node& n) {
  for (graph::ValueId v : n.inputs)
    if (v != graph::kNoValue && is_float(g.value(v).dtype)) return g.value(v).dtype;
  for (graph::ValueId v : n.inputs)
    if (v != graph::kNoValue) return g.value(v).dtype;
  for (graph::ValueId v : n.outputs)
    if (v != graph::kNoValue) return g.value(v).dtype;
  return DType::kUndefined;
}

const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                       DType::kI64, DType::kI32, DType::kI16,  DType::kI8,
                                       DType::kU8,  DType::kBool};
  return v;
}
const std::vector<DType>& float_dtypes() {
  static const std::vector<DType> v = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};
  return v;
}
const std::vector<DType>& numeric_dtypes() {
  static const std::vector<DType> v = {DType::kF32, DType::kF16, DType::kBF16,
                                       DType::kF64, DType::kI64, DType::kI32,
                                       DType::kI16, DType::kI8,  DType::kU8};
  return v;
}

}  // namespace amp::kernels
