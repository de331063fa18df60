#include "kernels/common/recurrent_plan.h"

#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<RecurrentPlan> check_recurrent_io(const KernelConfig& cfg, DType t) {
  AMP_ASSIGN_OR_RETURN(const graph::RecurrentAttrs* a, resolved_attrs<graph::RecurrentAttrs>(cfg));
  const std::string op = op_label(cfg);
  auto present = [&](size_t i) { return i < cfg.inputs.size() && cfg.inputs[i].present; };
  auto out_present = [&](size_t i) { return i < cfg.outputs.size() && cfg.outputs[i].present; };
  for (size_t i : {0, 1, 2})
    if (!present(i)) return invalid_model(op + ": input " + std::to_string(i) + " is required");
  RecurrentPlan p;
  p.kind = a->kind;
  p.directions = a->directions();
  p.reverse_only = a->direction == graph::RecurrentAttrs::kReverse;
  p.layout = a->layout;
  p.gates = a->gates();
  p.hidden = a->hidden;
  p.clip = a->clip;
  p.input_forget = a->input_forget;
  p.linear_before_reset = a->linear_before_reset;
  const TensorDesc& x = cfg.inputs[0];
  if (x.rank() != 3) return invalid_model(op + ": X must be 3-D");
  p.seq = x.dims[p.layout == 0 ? 0 : 1];
  p.batch = x.dims[p.layout == 0 ? 1 : 0];
  p.input = x.dims[2];
  const int per = a->activation_count();
  if (a->activations.size() != static_cast<size_t>(per * p.directions))
    return internal_error(op + ": activations unresolved");
  for (int d = 0; d < p.directions; ++d)
    for (int k = 0; k < per; ++k) p.act[d][k] = a->activations[static_cast<size_t>(d * per + k)];
  const int64_t gh = p.gates * p.hidden, dirs = p.directions;
  auto expect = [&](size_t i, std::vector<int64_t> dims) -> Status {
    if (cfg.inputs[i].dtype != t || cfg.inputs[i].dims != dims)
      return invalid_model(op + ": input " + std::to_string(i) + " is " +
                           dims_to_string(cfg.inputs[i].dims) + ", expected " +
                           dims_to_string(dims) + " of X's dtype");
    return Status::ok();
  };
  const std::vector<int64_t> state = p.layout == 0 ? std::vector<int64_t>{dirs, p.batch, p.hidden}
                                                   : std::vector<int64_t>{p.batch, dirs, p.hidden};
  if (x.dtype != t) return invalid_model(op + ": X has the wrong dtype");
  AMP_RETURN_IF_ERROR(expect(1, {dirs, gh, p.input}));
  AMP_RETURN_IF_ERROR(expect(2, {dirs, gh, p.hidden}));
  p.has_bias = present(3);
  if (p.has_bias) AMP_RETURN_IF_ERROR(expect(3, {dirs, 2 * gh}));
  p.has_lens = present(4);
  if (p.has_lens) {
    const TensorDesc& lens = cfg.inputs[4];
    if ((lens.dtype != DType::kI32 && lens.dtype != DType::kI64) || lens.numel() != p.batch)
      return invalid_model(op + ": sequence_lens must hold " + std::to_string(p.batch) +
                           " integers");
    p.lens_dtype = lens.dtype;
  }
  p.has_h0 = present(5);
  if (p.has_h0) AMP_RETURN_IF_ERROR(expect(5, state));
  p.has_c0 = present(6);
  if (p.has_c0) AMP_RETURN_IF_ERROR(expect(6, state));
  p.has_p = present(7);
  if (p.has_p) AMP_RETURN_IF_ERROR(expect(7, {dirs, 3 * p.hidden}));
  p.has_y = out_present(0);
  p.has_yh = out_present(1);
  p.has_yc = out_present(2);
  for (size_t i = 0; i < cfg.outputs.size(); ++i)
    if (cfg.outputs[i].present && cfg.outputs[i].dtype != t)
      return invalid_model(op + ": output " + std::to_string(i) + " must have X's dtype");
  return p;
}

}  // namespace amp::kernels
