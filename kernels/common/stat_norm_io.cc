#include "kernels/common/stat_norm_io.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<GroupNormShape> check_group_norm_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_arity(cfg, 3, 3));
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::GroupNormAttrs* a,
                       same_shape_attrs<graph::GroupNormAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  if (x.rank() < 2) return invalid_model("GroupNormalization: input 0 must be [N, C, ...]");
  GroupNormShape s;
  s.n = x.dims[0];
  s.c = x.dims[1];
  s.spatial = dims_product(x.dims, 2, x.rank());
  s.groups = a->groups;
  s.epsilon = a->epsilon;
  s.scale_per_group = a->scale_per_group;
  if (s.groups < 1 || s.c % s.groups != 0)
    return invalid_model("GroupNormalization: " + std::to_string(s.groups) +
                         " groups do not divide " + std::to_string(s.c) + " channels");
  const int64_t per = s.scale_per_group ? s.groups : s.c;
  for (size_t i = 1; i < 3; ++i)
    if (cfg.inputs[i].dtype != t || cfg.inputs[i].numel() != per)
      return invalid_model("GroupNormalization: input " + std::to_string(i) + " must hold " +
                           std::to_string(per) + " values of X's dtype");
  return s;
}

Result<MvnShape> check_mvn_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::GroupNormAttrs* a,
                       same_shape_attrs<graph::GroupNormAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  if (x.rank() > static_cast<size_t>(kIndexMaxRank))
    return unsupported("MeanVarianceNormalization: rank " + std::to_string(x.rank()));
  MvnShape s;
  s.rank = static_cast<int>(x.rank());
  s.numel = x.numel();
  for (int k = 0; k < s.rank; ++k) s.dims[k] = x.dims[static_cast<size_t>(k)];
  for (int64_t ax : a->axes) {
    if (ax < 0 || ax >= s.rank) return internal_error("MeanVarianceNormalization: axes unresolved");
    s.reduced[ax] = true;
  }
  for (int k = 0; k < s.rank; ++k) (s.reduced[k] ? s.per_slot : s.slots) *= s.dims[k];
  return s;
}

Result<LrnShape> check_lrn_io(const KernelConfig& cfg, DType t) {
  AMP_RETURN_IF_ERROR(check_io(cfg, t));
  AMP_ASSIGN_OR_RETURN(const graph::LrnAttrs* a, same_shape_attrs<graph::LrnAttrs>(cfg));
  const TensorDesc& x = cfg.inputs[0];
  if (x.rank() < 2) return invalid_model("LRN: input 0 must be [N, C, ...]");
  LrnShape s;
  s.n = x.dims[0];
  s.c = x.dims[1];
  s.spatial = dims_product(x.dims, 2, x.rank());
  s.size = a->size;
  s.alpha = a->alpha;
  s.beta = a->beta;
  s.bias = a->bias;
  return s;
}

}  // namespace amp::kernels
