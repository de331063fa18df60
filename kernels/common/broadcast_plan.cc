#include "kernels/common/broadcast_plan.h"

#include <algorithm>
#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<std::vector<int64_t>> broadcast_dims(const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (const auto& s : shapes) {
    const size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& o = out[offset + i];
      if (s[i] == o || s[i] == 1) continue;
      if (o != 1) {
        std::string all;
        for (const auto& t : shapes) all += (all.empty() ? "" : ", ") + dims_to_string(t);
        return invalid_model("shapes " + all + " do not broadcast");
      }
      o = s[i];
    }
  }
  return out;
}

Result<BroadcastPlan> make_broadcast_plan(const std::vector<std::vector<int64_t>>& inputs,
                                          const std::vector<int64_t>& out) {
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> expected, broadcast_dims(inputs));
  if (expected != out)
    return invalid_model("output shape " + dims_to_string(out) + " is not the broadcast " +
                         dims_to_string(expected) + " of the inputs");
  return make_broadcast_plan_to(inputs, out);
}

Result<BroadcastPlan> make_broadcast_plan_to(const std::vector<std::vector<int64_t>>& inputs,
                                             const std::vector<int64_t>& out) {
  if (inputs.empty() || inputs.size() > static_cast<size_t>(kMaxBroadcastInputs))
    return internal_error("broadcast plan for " + std::to_string(inputs.size()) + " inputs");
  for (const auto& in : inputs) {
    bool ok = in.size() <= out.size();
    for (size_t i = 0; ok && i < in.size(); ++i) {
      const int64_t o = out[out.size() - in.size() + i];
      ok = in[i] == o || in[i] == 1;
    }
    if (!ok)
      return invalid_model("shape " + dims_to_string(in) + " does not broadcast to " +
                           dims_to_string(out));
  }

  BroadcastPlan p;
  p.num_inputs = static_cast<int>(inputs.size());
  p.numel = 1;
  for (int64_t d : out) p.numel *= d;
  if (p.numel == 0) {  // nothing to compute; one empty axis keeps the loops trivial
    p.rank = 1;
    p.dims[0] = 0;
    return p;
  }

  std::vector<std::vector<int64_t>> in_strides;
  for (const auto& in : inputs) in_strides.push_back(broadcast_strides(in, out));

  // Keep the output axes longer than 1; merge axis d into the previous kept axis when every
  // input steps through both as one contiguous run (stride[prev] == stride[d] * dims[d]).
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides(inputs.size());
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t k = 0; merge && k < inputs.size(); ++k)
      merge = strides[k].back() == in_strides[k][d] * out[d];
    if (merge) {
      dims.back() *= out[d];
      for (size_t k = 0; k < inputs.size(); ++k) strides[k].back() = in_strides[k][d];
    } else {
      dims.push_back(out[d]);
      for (size_t k = 0; k < inputs.size(); ++k) strides[k].push_back(in_strides[k][d]);
    }
  }
  if (dims.empty()) {  // a single element
    dims.push_back(1);
    for (auto& s : strides) s.push_back(0);
  }
  if (dims.size() > static_cast<size_t>(kMaxBroadcastRank))
    return unsupported("broadcast over " + std::to_string(dims.size()) +
                       " non-mergeable axes (at most " + std::to_string(kMaxBroadcastRank) + ")");
  p.rank = static_cast<int>(dims.size());
  for (int d = 0; d < p.rank; ++d) {
    p.dims[d] = dims[d];
    for (int k = 0; k < p.num_inputs; ++k) p.strides[k][d] = strides[k][d];
  }
  return p;
}

Status check_same_shape(const KernelConfig& cfg) {
  if (cfg.outputs[0].dims != cfg.inputs[0].dims)
    return invalid_model("output shape " + dims_to_string(cfg.outputs[0].dims) +
                         " differs from the input's " + dims_to_string(cfg.inputs[0].dims));
  return Status::ok();
}

}  // namespace amp::kernels
