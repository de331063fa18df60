// Host-side helpers of the CUDA reduction family (reduce_util.h): the reduction plan,
// axis normalization and the common prepare() checks, as in kernels/cpu/reduce_util.cc.
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda_reduction {

Status check_io(const KernelConfig& cfg, DType t, DType out) {
  if (out == DType::kUndefined) out = t;
  if (cfg.inputs.empty() || !cfg.inputs[0].present) return invalid_model("input 0 is missing");
  if (cfg.outputs.empty() || !cfg.outputs[0].present) return invalid_model("output 0 is missing");
  if (cfg.inputs[0].dtype != t)
    return invalid_model("input 0 has dtype " + std::string(dtype_name(cfg.inputs[0].dtype)) +
                         ", this kernel takes " + std::string(dtype_name(t)));
  if (cfg.outputs[0].dtype != out)
    return invalid_model("output 0 has dtype " + std::string(dtype_name(cfg.outputs[0].dtype)) +
                         ", expected " + std::string(dtype_name(out)));
  if (cfg.inputs[0].rank() > static_cast<size_t>(kMaxRank))
    return unsupported("input rank " + std::to_string(cfg.inputs[0].rank()) + " exceeds " +
                       std::to_string(kMaxRank));
  return Status::ok();
}

}  // namespace amp::kernels::cuda_reduction
