#include "kernels/common/einsum_plan.h"

#include <algorithm>
#include <string>
#include <vector>

#include "graph/ops/op_attrs.h"
#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<EinsumPlan> check_einsum_io(const KernelConfig& cfg, DType t) {
  AMP_ASSIGN_OR_RETURN(const graph::EinsumAttrs* a, resolved_attrs<graph::EinsumAttrs>(cfg));
  const size_t n = cfg.inputs.size();
  if (n == 0 || n > static_cast<size_t>(kEinsumMaxInputs) || a->inputs.size() != n)
    return unsupported("Einsum: " + std::to_string(n) + " operands (1.." +
                       std::to_string(kEinsumMaxInputs) + " supported)");
  for (size_t i = 0; i < n; ++i)
    if (!cfg.inputs[i].present || cfg.inputs[i].dtype != t ||
        cfg.inputs[i].rank() != a->inputs[i].size())
      return invalid_model("Einsum: operand " + std::to_string(i) + " does not fit the equation");
  if (cfg.outputs.empty() || cfg.outputs[0].dtype != t || cfg.outputs[0].rank() != a->output.size())
    return invalid_model("Einsum: the output does not fit the equation");
  if (a->label_sizes.empty()) return internal_error("Einsum: label sizes unresolved");
  // Plan label order: the output's, then every other label some operand uses.
  std::vector<int> order(a->output.begin(), a->output.end());
  for (const std::vector<int>& in : a->inputs)
    for (int id : in)
      if (std::find(order.begin(), order.end(), id) == order.end()) order.push_back(id);
  if (order.size() > static_cast<size_t>(kEinsumMaxLabels))
    return unsupported("Einsum: " + std::to_string(order.size()) + " labels (at most " +
                       std::to_string(kEinsumMaxLabels) + ")");
  EinsumPlan p;
  p.inputs = static_cast<int>(n);
  p.out_labels = static_cast<int>(a->output.size());
  p.sum_labels = static_cast<int>(order.size()) - p.out_labels;
  for (size_t l = 0; l < order.size(); ++l) {
    p.sizes[l] = a->label_sizes[static_cast<size_t>(order[l])];
    (static_cast<int>(l) < p.out_labels ? p.out_numel : p.sum_numel) *= p.sizes[l];
  }
  for (size_t i = 0; i < n; ++i) {
    const std::vector<int64_t> strides = contiguous_strides(cfg.inputs[i].dims);
    for (size_t ax = 0; ax < a->inputs[i].size(); ++ax) {
      const size_t l = static_cast<size_t>(std::find(order.begin(), order.end(), a->inputs[i][ax]) -
                                           order.begin());
      if (cfg.inputs[i].dims[ax] != 1) p.strides[i][l] += strides[ax];
    }
  }
  // A hostile (or just huge) contraction would keep the direct loop busy for hours.
  constexpr int64_t kMaxWork = int64_t{1} << 36;
  if (p.sum_numel > 0 && p.out_numel > kMaxWork / p.sum_numel)
    return unsupported("Einsum: " + std::to_string(p.out_numel) + " outputs x " +
                       std::to_string(p.sum_numel) +
                       " products each exceed the direct loop's limit of 2^36 multiply-adds");
  if (cfg.outputs[0].numel() != p.out_numel)
    return invalid_model("Einsum: output " + dims_to_string(cfg.outputs[0].dims) +
                         " does not fit the equation's sizes");
  return p;
}

}  // namespace amp::kernels
