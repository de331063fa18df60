#include "kernels/common/window_op_io.h"

#include <string>
#include <vector>

#include "kernels/common/kernel_checks.h"
#include "kernels/common/pool_geometry.h"

namespace amp::kernels {
namespace {

// The window must have been resolved for these (static) dims, and the output must be
// [N, channels, out...].
Status check_window(const KernelConfig& cfg, const graph::Window& w, int64_t channels) {
  const std::string op = op_label(cfg);
  const TensorDesc& x = cfg.inputs[0];
  const size_t rank = x.rank();
  if (rank < 3 || rank > 5)
    return unsupported(op + ": input rank " + std::to_string(rank) +
                       " (1-D to 3-D windows are supported)");
  const std::vector<int64_t> in_sp(x.dims.begin() + 2, x.dims.end());
  if (!w.resolved() || w.in_spatial != in_sp)
    return internal_error(op + ": the window was not resolved for input dims " +
                          dims_to_string(x.dims));
  std::vector<int64_t> y = {x.dims[0], channels};
  y.insert(y.end(), w.out_spatial.begin(), w.out_spatial.end());
  for (const TensorDesc& out : cfg.outputs)
    if (out.present && out.dims != y)
      return invalid_model(op + ": output dims " + dims_to_string(out.dims) +
                           " disagree with the attributes, which give " + dims_to_string(y));
  return Status::ok();
}

}  // namespace

Result<const graph::ConvAttrs*> check_conv_io(const KernelConfig& cfg) {
  const std::string op = op_label(cfg);
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, 3));
  if (cfg.outputs.size() != 1) return invalid_model(op + ": expects one output");
  AMP_ASSIGN_OR_RETURN(const graph::ConvAttrs* a, resolved_attrs<graph::ConvAttrs>(cfg));
  const DType dtype = cfg.inputs[0].dtype;
  if (dtype != DType::kF32 && dtype != DType::kF16 && dtype != DType::kBF16)
    return unsupported(op + ": dtype " + std::string(dtype_name(dtype)) +
                       " (the library kernels take f32, f16, bf16)");
  const bool has_bias = cfg.inputs.size() == 3 && cfg.inputs[2].present;
  if (has_bias != a->has_bias || cfg.inputs[1].dtype != dtype ||
      (has_bias && cfg.inputs[2].dtype != dtype) || cfg.outputs[0].dtype != dtype)
    return invalid_model(op + ": X, W, B and Y must share one dtype");
  if (cfg.inputs[1].rank() != cfg.inputs[0].rank())
    return invalid_model(op + ": W rank " + std::to_string(cfg.inputs[1].rank()) +
                         " differs from X rank " + std::to_string(cfg.inputs[0].rank()));
  if (has_bias && cfg.inputs[2].dims != std::vector<int64_t>{a->m})
    return invalid_model(op + ": B dims " + dims_to_string(cfg.inputs[2].dims) + " should be [" +
                         std::to_string(a->m) + "]");
  AMP_RETURN_IF_ERROR(check_window(cfg, a->window, a->m));
  return a;
}

Result<PoolSetup> check_pool_io(const KernelConfig& cfg) {
  const std::string op = op_label(cfg);
  AMP_ASSIGN_OR_RETURN(const graph::PoolAttrs* a, resolved_attrs<graph::PoolAttrs>(cfg));
  AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
  if (cfg.outputs.size() > (a->is_max ? 2u : 1u))
    return invalid_model(op + ": expects " + (a->is_max ? "outputs (Y[, Indices])" : "one output"));
  const DType dtype = cfg.inputs[0].dtype;
  const bool float_type = dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16;
  const bool int8_type = dtype == DType::kI8 || dtype == DType::kU8;
  if (!float_type && !(a->is_max && int8_type))
    return unsupported(op + ": dtype " + std::string(dtype_name(dtype)));
  if (cfg.outputs[0].dtype != dtype) return invalid_model(op + ": Y dtype differs from X's");
  const bool with_indices = cfg.outputs.size() == 2 && cfg.outputs[1].present;
  if (with_indices != a->with_indices)
    return internal_error(op + ": the Indices output disagrees with the node");
  if (with_indices && cfg.outputs[1].dtype != DType::kI64)
    return invalid_model(op + ": Indices must be i64");
  AMP_RETURN_IF_ERROR(
      check_window(cfg, a->window, cfg.inputs[0].rank() > 1 ? cfg.inputs[0].dims[1] : 0));
  PoolSetup setup;
  setup.attrs = *a;
  setup.dtype = cfg.inputs[0].dtype;
  setup.geom = pool_geometry(*a, cfg.inputs[0].dims[0] * cfg.inputs[0].dims[1]);
  return setup;
}

PoolGeometry pool_geometry(const graph::PoolAttrs& a, int64_t planes) {
  const graph::Window& w = a.window;
  const size_t sp = w.rank();
  PoolGeometry g;
  g.planes = planes;
  g.spatial = static_cast<int>(sp);
  g.col_major_indices = a.col_major_indices;
  for (size_t i = 0; i < sp; ++i) {
    const size_t ax = 3 - sp + i;
    g.in[ax] = w.in_spatial[i];
    g.out[ax] = w.out_spatial[i];
    g.k[ax] = w.kernel[i];
    g.s[ax] = w.strides[i];
    g.d[ax] = w.dilations[i];
    g.pb[ax] = w.pad_begin[i];
    g.pe[ax] = w.pad_end[i];
  }
  return g;
}

}  // namespace amp::kernels
