#include "kernels/common/matmul_io.h"

#include <algorithm>
#include <string>

#include "kernels/common/kernel_checks.h"

namespace amp::kernels {

Result<graph::FusedActivation> check_matmul_io(const KernelConfig& cfg, bool gemm) {
  const std::string op = op_label(cfg);
  AMP_RETURN_IF_ERROR(check_arity(cfg, 2, gemm ? 3 : 2));
  if (cfg.outputs.size() != 1) return invalid_model(op + ": expects one output");
  const DType dtype = cfg.inputs[0].dtype;
  if (cfg.inputs[1].dtype != dtype || cfg.outputs[0].dtype != dtype)
    return invalid_model(op + ": A, B and Y must share one dtype");
  if (gemm) {
    AMP_ASSIGN_OR_RETURN(const graph::GemmAttrs* a, resolved_attrs<graph::GemmAttrs>(cfg));
    return a->act;
  }
  AMP_ASSIGN_OR_RETURN(const graph::MatMulAttrs* a, resolved_attrs<graph::MatMulAttrs>(cfg));
  return a->act;
}

Result<MatMulDims> read_matmul_dims(const KernelConfig& cfg) {
  const TensorDesc& a = cfg.inputs[0];
  const TensorDesc& b = cfg.inputs[1];
  if (a.rank() == 0 || b.rank() == 0) return invalid_model("MatMul: inputs must have rank >= 1");
  std::vector<int64_t> ad = a.dims, bd = b.dims;
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const size_t r = std::max(ad.size(), bd.size());
  ad.insert(ad.begin(), r - ad.size(), 1);
  bd.insert(bd.begin(), r - bd.size(), 1);
  MatMulDims d;
  d.m = ad[r - 2];
  d.k = ad[r - 1];
  d.n = bd[r - 1];
  if (bd[r - 2] != d.k)
    return invalid_model("MatMul: inner dims differ: A " + dims_to_string(a.dims) + ", B " +
                         dims_to_string(b.dims));
  d.a_batch.assign(ad.begin(), ad.end() - 2);
  d.b_batch.assign(bd.begin(), bd.end() - 2);
  d.batch.resize(r - 2);
  for (size_t i = 0; i + 2 < r; ++i) {
    if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
      return invalid_model("MatMul: batch dims of A " + dims_to_string(a.dims) + " and B " +
                           dims_to_string(b.dims) + " do not broadcast");
    d.batch[i] = ad[i] == 1 ? bd[i] : ad[i];
  }
  std::vector<int64_t> expect = d.batch;
  if (a.rank() > 1) expect.push_back(d.m);
  if (b.rank() > 1) expect.push_back(d.n);
  if (cfg.outputs[0].dims != expect)
    return invalid_model("MatMul: output dims " + dims_to_string(cfg.outputs[0].dims) +
                         " should be " + dims_to_string(expect));
  return d;
}

BatchGroups merge_batch_axes(const MatMulDims& d) {
  BatchGroups g;
  int prev = -1;
  for (size_t i = 0; i < d.batch.size(); ++i) {
    if (d.batch[i] == 1) continue;
    const int pattern = (d.a_batch[i] == 1 ? 1 : 0) | (d.b_batch[i] == 1 ? 2 : 0);
    if (pattern == prev) {
      g.a.back() *= d.a_batch[i];
      g.b.back() *= d.b_batch[i];
      g.y.back() *= d.batch[i];
    } else {
      g.a.push_back(d.a_batch[i]);
      g.b.push_back(d.b_batch[i]);
      g.y.push_back(d.batch[i]);
      prev = pattern;
    }
  }
  return g;
}

Result<GemmDims> read_gemm_dims(const KernelConfig& cfg, DType dtype) {
  AMP_ASSIGN_OR_RETURN(const graph::GemmAttrs* attrs, resolved_attrs<graph::GemmAttrs>(cfg));
  const TensorDesc& a = cfg.inputs[0];
  const TensorDesc& b = cfg.inputs[1];
  if (a.rank() != 2 || b.rank() != 2)
    return invalid_model("Gemm: A and B must be 2-D, got " + dims_to_string(a.dims) + " and " +
                         dims_to_string(b.dims));
  GemmDims d;
  d.trans_a = attrs->trans_a;
  d.trans_b = attrs->trans_b;
  d.alpha = attrs->alpha;
  d.beta = attrs->beta;
  d.m = d.trans_a ? a.dims[1] : a.dims[0];
  d.k = d.trans_a ? a.dims[0] : a.dims[1];
  d.n = d.trans_b ? b.dims[0] : b.dims[1];
  const int64_t kb = d.trans_b ? b.dims[1] : b.dims[0];
  if (kb != d.k)
    return invalid_model("Gemm: inner dims differ: A " + dims_to_string(a.dims) +
                         (d.trans_a ? "^T" : "") + ", B " + dims_to_string(b.dims) +
                         (d.trans_b ? "^T" : ""));
  if (cfg.outputs[0].dims != std::vector<int64_t>{d.m, d.n})
    return invalid_model("Gemm: output dims " + dims_to_string(cfg.outputs[0].dims) +
                         " should be " + dims_to_string({d.m, d.n}));
  const bool has_c = cfg.inputs.size() == 3 && cfg.inputs[2].present;
  if (has_c) {
    const TensorDesc& c = cfg.inputs[2];
    if (c.dtype != dtype) return invalid_model("Gemm: C dtype differs from A's");
    if (c.rank() > 2) return invalid_model("Gemm: C must have rank <= 2");
    d.cm = c.rank() == 2 ? c.dims[0] : 1;
    d.cn = c.rank() >= 1 ? c.dims.back() : 1;
    if ((d.cm != 1 && d.cm != d.m) || (d.cn != 1 && d.cn != d.n))
      return invalid_model("Gemm: C " + dims_to_string(c.dims) + " does not broadcast to " +
                           dims_to_string({d.m, d.n}));
  }
  // beta == 0 ignores C (ONNX: C is optional; a zero beta means it is not used).
  d.use_c = has_c && d.beta != 0.0f;
  return d;
}

}  // namespace amp::kernels
