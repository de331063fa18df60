// Shape checks and broadcast plans of the CUDA elementwise family. Host code only;
// the messages and the plan algorithm mirror kernels/cpu/elementwise_broadcast.cc so both
// backends accept and reject the same nodes.
#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/elementwise_cuda.h"

namespace amp::kernels {

// The family's entry point (cuda_kernels.h): one call per file.
void register_cuda_elementwise_kernels(KernelRegistry& registry) {
  cuda_ew::register_unary(registry);
  cuda_ew::register_cast(registry);
  cuda_ew::register_binary(registry);
  cuda_ew::register_compare(registry);
}

namespace cuda_ew {
namespace {

template <int N>
Result<BroadcastPlan<N>> make_plan(const std::vector<std::vector<int64_t>>& inputs,
                                   const std::vector<int64_t>& out, bool exact) {
  if (inputs.size() != static_cast<size_t>(N))
    return internal_error("broadcast plan for " + std::to_string(inputs.size()) +
                          " inputs, expected " + std::to_string(N));
  if (exact) {
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> expected, broadcast_dims(inputs));
    if (expected != out)
      return invalid_model("output shape " + dims_to_string(out) + " is not the broadcast " +
                           dims_to_string(expected) + " of the inputs");
  }
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

  BroadcastPlan<N> p;
  p.numel = 1;
  for (int64_t d : out) p.numel *= d;
  p.calc.rank = 1;
  p.calc.dims[0] = p.numel;    // 0 when empty, 1 for a single element
  if (p.numel <= 1) return p;  // strides stay 0

  std::vector<std::vector<int64_t>> in_strides;
  for (const auto& in : inputs) in_strides.push_back(broadcast_strides(in, out));

  // Keep the output axes longer than 1; merge axis d into the previous kept axis when every
  // input steps through both as one run (stride[prev] == stride[d] * dims[d]).
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
  if (dims.size() > static_cast<size_t>(kMaxDims))
    return unsupported("broadcast over " + std::to_string(dims.size()) +
                       " non-mergeable axes (the CUDA kernels take at most " +
                       std::to_string(kMaxDims) + ")");
  p.calc.rank = static_cast<int>(dims.size());
  for (int d = 0; d < p.calc.rank; ++d) {
    p.calc.dims[d] = dims[static_cast<size_t>(d)];
    for (int k = 0; k < N; ++k)
      p.calc.strides[k][d] = strides[static_cast<size_t>(k)][static_cast<size_t>(d)];
  }
  return p;
}

}  // namespace

Status check_same_shape(const KernelConfig& cfg) {
  if (cfg.outputs[0].dims != cfg.inputs[0].dims)
    return invalid_model("output shape " + dims_to_string(cfg.outputs[0].dims) +
                         " differs from the input's " + dims_to_string(cfg.inputs[0].dims));
  return Status::ok();
}

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

Result<BroadcastPlan<2>> make_plan2(const std::vector<std::vector<int64_t>>& inputs,
                                    const std::vector<int64_t>& out, bool exact) {
  return make_plan<2>(inputs, out, exact);
}

Result<BroadcastPlan<3>> make_plan3(const std::vector<std::vector<int64_t>>& inputs,
                                    const std::vector<int64_t>& out, bool exact) {
  return make_plan<3>(inputs, out, exact);
}

}  // namespace cuda_ew
}  // namespace amp::kernels
