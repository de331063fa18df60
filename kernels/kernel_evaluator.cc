#include "kernels/kernel_evaluator.h"

#include <cstring>
#include <memory>
#include <utility>

namespace amp::kernels {
namespace {

// The registry's lookup rule (kernels::kernel_dtype) over the node's values.
DType lookup_dtype(const std::vector<const graph::Value*>& inputs,
                   const std::vector<const graph::Value*>& outputs) {
  for (const graph::Value* v : inputs)
    if (v != nullptr && is_float(v->dtype)) return v->dtype;
  for (const graph::Value* v : inputs)
    if (v != nullptr) return v->dtype;
  for (const graph::Value* v : outputs)
    if (v != nullptr) return v->dtype;
  return DType::kUndefined;
}

constexpr size_t kAlignment = 64;

}  // namespace

Result<std::optional<std::vector<graph::TensorData>>> KernelEvaluator::evaluate(
    const graph::Node& node, const std::vector<const graph::Value*>& inputs,
    const std::vector<const graph::Value*>& outputs) {
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<graph::TensorData>> simple,
                       reference_.evaluate(node, inputs, outputs));
  if (simple) return simple;
  // Shape and Size read only their input's shape, which a kernel cannot be given as data.
  for (const graph::Value* v : inputs)
    if (v != nullptr && !v->is_constant()) return std::optional<std::vector<graph::TensorData>>();
  const KernelDef* def = registry_.find(node.op, Backend::kCpu, lookup_dtype(inputs, outputs));
  if (def == nullptr) return std::optional<std::vector<graph::TensorData>>();
  KernelConfig cfg;
  cfg.node = &node;
  std::vector<const void*> in_ptrs;
  for (const graph::Value* v : inputs) {
    TensorDesc d;
    d.present = v != nullptr;
    if (v != nullptr) {
      d.dtype = v->dtype;
      d.dims = v->constant->dims();
      d.constant_data = v->constant->bytes();
    }
    cfg.inputs.push_back(d);
    in_ptrs.push_back(d.constant_data);
  }
  std::vector<std::vector<uint8_t>> out_bytes(outputs.size());
  std::vector<void*> out_ptrs(outputs.size(), nullptr);
  for (size_t k = 0; k < outputs.size(); ++k) {
    TensorDesc d;
    d.present = outputs[k] != nullptr;
    if (d.present) {
      d.dtype = outputs[k]->dtype;
      d.dims = outputs[k]->shape->static_dims();
      out_bytes[k].assign(d.bytes(), 0);
      out_ptrs[k] = out_bytes[k].data();
    }
    cfg.outputs.push_back(d);
  }
  // Every output empty: nothing to compute, so the kernel is neither prepared nor run, as in
  // a plan (runtime/empty_step.h).
  const bool all_empty = only_empty_outputs(cfg.outputs);
  std::unique_ptr<Kernel> kernel = def->create();
  if (!all_empty && !kernel->prepare(cfg).is_ok())
    return std::optional<std::vector<graph::TensorData>>();
  std::vector<uint8_t> ws(kernel->workspace_bytes() + kAlignment);
  KernelArgs args;
  args.inputs = in_ptrs.data();
  args.outputs = out_ptrs.data();
  args.workspace =
      ws.data() + (kAlignment - reinterpret_cast<uintptr_t>(ws.data()) % kAlignment) % kAlignment;
  if (!all_empty) AMP_RETURN_IF_ERROR(kernel->run(args));
  std::vector<graph::TensorData> result;
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (outputs[k] == nullptr) {
      result.emplace_back();
      continue;
    }
    AMP_ASSIGN_OR_RETURN(
        graph::TensorData t,
        graph::TensorData::from_bytes(outputs[k]->dtype, outputs[k]->shape->static_dims(),
                                      std::move(out_bytes[k])));
    result.push_back(std::move(t));
  }
  return std::optional<std::vector<graph::TensorData>>(std::move(result));
}

}  // namespace amp::kernels
