// MatMul and Gemm on oneDNN's matmul primitive, with the fused activation as a post-op.
//
// MatMul follows numpy: a 1-D A is [1, K] and a 1-D B is [K, 1] (the added axis is
// dropped from the output), batch axes broadcast. oneDNN matmul broadcasts batch axes of
// size 1 itself, so the only reshaping is cosmetic: batch axes where the output is 1 are
// dropped and neighbouring batch axes that broadcast alike are merged (a dense row-major
// tensor's adjacent axes merge without copying), which also keeps the rank within
// oneDNN's 12 dims for any realistic model; more than 10 irreducible batch axes are
// reported as unsupported.
//
// Gemm: Y = act(alpha * A' B' + beta * C), A' = transA ? A^T : A (a strided view, no
// copy), likewise B'. alpha is oneDNN's output scale, which scales the bias too (dst =
// alpha (A B + bias)), so:
//   - C broadcast along rows ([N], [1, N], scalar): bias [1, N] = beta C / alpha;
//   - C with M rows ([M, 1], [M, N]): the destination is prefilled with beta C and a sum
//     post-op adds it (f32 destination, in the workspace unless Y is f32);
//   - alpha == 0 (or K == 0): Y = act(beta C) (or act(0)) by a loop, no primitive.
//
// Dtypes as in dnnl_conv.cc: f32 native; bf16 native (f32 accumulation) when the CPU has
// it, else widened like f16; f16 widened to f32 in the workspace, rounded once on store.
// A constant B is converted and packed (format_tag::any) once in prepare(); a variable B
// stays in its plain (possibly transposed) layout.
//
// Our own loops take f32 products with a constant 2-D B and at most a row bias: those of a
// few thousand multiply-adds (classifier heads), which cost less than oneDNN's call
// overhead (kernels/cpu/small_gemm.h), and, on CPUs with AVX2 but no AVX-512, those of at
// least 4 rows, where oneDNN repacks B on every call (kernels/cpu/packed_gemm.h); those of
// a few rows (a decoder's token: up to 4 with AVX-512, 2 with AVX2), which stream B from
// memory at twice oneDNN's rate (kernels/cpu/packed_gemv.h). And f16
// and bf16 products of the same kind with at most 4 rows (a decoder's token), which oneDNN
// would compute from B widened to f32: those read B in its 16 bits (kernels/cpu/half_gemv.h).
#include <algorithm>

#include "kernels/common/matmul_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dnnl_common.h"
#include "kernels/cpu/gemm_strip_avx512.h"
#include "kernels/cpu/half_gemv.h"
#include "kernels/cpu/packed_gemm.h"
#include "kernels/cpu/packed_gemv.h"
#include "kernels/cpu/small_gemm.h"

namespace amp::kernels::cpu {
namespace {

using dnnl::memory;
using dt = memory::data_type;

class MatMulKernel final : public Kernel {
 public:
  explicit MatMulKernel(bool gemm) : gemm_(gemm) {}

  Status prepare(const KernelConfig& cfg) override {
    return dnnl_guard(op(), [&] { return prepare_impl(cfg); });
  }
  size_t workspace_bytes() const override { return ws_.total(); }
  Status run(const KernelArgs& a) const override {
    return dnnl_guard(op(), [&] { return run_impl(a); });
  }
  std::string implementation() const override { return impl_; }
  void held_constants(std::vector<HeldConstant>& out) const override {
    if (mode_ == Mode::kSmall) out.push_back(small_.held_constant());
    if (mode_ == Mode::kPacked) out.push_back(packed_.held_constant());
    if (mode_ == Mode::kGemv) out.push_back(gemv_.held_constant());
    if (mode_ == Mode::kHalf && !half_.reads_b_in_place()) out.push_back(half_.held_constant());
    weights_.held_constants(out);
  }
  // B (input 1) when a packed form of it is what run() multiplies by.
  std::vector<size_t> replaced_constant_inputs() const override {
    if (mode_ == Mode::kSmall || mode_ == Mode::kPacked || mode_ == Mode::kGemv) return {1};
    if (mode_ == Mode::kHalf && !half_.reads_b_in_place()) return {1};
    if (mode_ == Mode::kPrimitive && weights_.holds_constant()) return {1};
    return {};
  }

 private:
  enum class Mode { kEmpty, kFill, kSmall, kPacked, kGemv, kHalf, kPrimitive };

  std::string op() const { return gemm_ ? "Gemm" : "MatMul"; }
  Status prepare_impl(const KernelConfig& cfg);
  Status matmul_geometry(const KernelConfig& cfg);
  Status gemm_geometry(const KernelConfig& cfg);
  dnnl::primitive_desc create_pd(dt compute, dt dst_type, bool b_constant) const;
  Status build(const KernelConfig& cfg);
  // Rows of A when this product suits our own loops (constant 2-D B, ...), else 0.
  int64_t own_loop_rows(const KernelConfig& cfg) const;
  void prepare_bias_row(const KernelConfig& cfg);
  // Gemm's C as the bias row [N] (c_as_bias_), in f32.
  const float* bias_row(const void* c, void* workspace) const;
  Status run_impl(const KernelArgs& a) const;
  // beta * C broadcast to element (i, j) of [M, N]; C in f32 at `c`.
  float c_at(const float* c, int64_t i, int64_t j) const {
    return gemm_dims_.beta *
           c[(gemm_dims_.cm == 1 ? 0 : i) * gemm_dims_.cn + (gemm_dims_.cn == 1 ? 0 : j)];
  }
  void fill(const float* c, void* out, int threads) const;

  const bool gemm_;
  std::string impl_;  // implementation(); empty (own loop) for the fill and empty modes
  DType dtype_ = DType::kUndefined;
  ew::Activation act_;
  Mode mode_ = Mode::kPrimitive;

  // oneDNN shapes: src [batch_a..., M, K], weights [batch_b..., K, N], dst [batch..., M, N].
  memory::dims a_dims_, a_strides_, b_dims_, b_strides_, y_dims_;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  int64_t a_numel_ = 0, b_numel_ = 0, y_numel_ = 0;

  // Gemm's C (header comment).
  GemmDims gemm_dims_;  // Gemm: alpha, beta, C's use and dims, transposes
  bool c_as_bias_ = false, c_prefill_ = false;
  std::vector<float> c_const_;             // constant C widened to f32 (prefill / fill)
  size_t off_c_ = WorkspaceLayout::kNone;  // variable C widened to f32
  std::vector<float> bias_const_;          // constant C as bias [N] = beta C / alpha
  size_t off_bias_ = WorkspaceLayout::kNone;
  SmallGemm small_;    // Mode::kSmall
  PackedGemm packed_;  // Mode::kPacked
  PackedGemv gemv_;    // Mode::kGemv
  HalfGemv half_;      // Mode::kHalf: A and Y staged in f32 (off_src_, off_dst_)

  bool stage_src_ = false, stage_dst_ = false;
  DnnlPrimitivePair prims_;
  memory::desc src_md_, wei_md_, bias_md_, dst_md_, scratch_md_;
  DnnlWeights weights_;
  WorkspaceLayout ws_;
  size_t off_scratch_ = WorkspaceLayout::kNone, off_src_ = WorkspaceLayout::kNone;
  size_t off_dst_ = WorkspaceLayout::kNone;
};

Status MatMulKernel::matmul_geometry(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const MatMulDims d, read_matmul_dims(cfg));
  m_ = d.m;
  k_ = d.k;
  n_ = d.n;
  const BatchGroups g = merge_batch_axes(d);
  if (g.y.size() + 2 > DNNL_MAX_NDIMS)
    return unsupported("MatMul: more than " + std::to_string(DNNL_MAX_NDIMS - 2) +
                       " irreducible batch axes");
  a_dims_.assign(g.a.begin(), g.a.end());
  a_dims_.insert(a_dims_.end(), {m_, k_});
  b_dims_.assign(g.b.begin(), g.b.end());
  b_dims_.insert(b_dims_.end(), {k_, n_});
  y_dims_.assign(g.y.begin(), g.y.end());
  y_dims_.insert(y_dims_.end(), {m_, n_});
  a_strides_ = dense_strides(a_dims_);
  b_strides_ = dense_strides(b_dims_);
  return Status::ok();
}

Status MatMulKernel::gemm_geometry(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(gemm_dims_, read_gemm_dims(cfg, dtype_));
  const GemmDims& d = gemm_dims_;
  m_ = d.m;
  k_ = d.k;
  n_ = d.n;
  a_dims_ = {m_, k_};
  a_strides_ = d.trans_a ? memory::dims{1, m_} : memory::dims{k_, 1};
  b_dims_ = {k_, n_};
  b_strides_ = d.trans_b ? memory::dims{1, k_} : memory::dims{n_, 1};
  y_dims_ = {m_, n_};
  return Status::ok();
}

dnnl::primitive_desc MatMulKernel::create_pd(dt compute, dt dst_type, bool b_constant) const {
  const memory::desc src(a_dims_, compute, a_strides_);
  const memory::desc wei = b_constant ? memory::desc(b_dims_, compute, memory::format_tag::any)
                                      : memory::desc(b_dims_, compute, b_strides_);
  const memory::desc dst = plain_desc(y_dims_, dst_type);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (gemm_dims_.alpha != 1.0f) attr.set_output_scales(0, {gemm_dims_.alpha});
  dnnl::post_ops po;
  if (c_prefill_) po.append_sum(1.0f);
  (void)append_activation(po, act_);  // kinds were validated by shape inference
  attr.set_post_ops(po);
  if (c_as_bias_) {
    const memory::desc bias = plain_desc({1, n_}, dt::f32);
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, bias, dst), attr,
                                        dnnl_engine());
  }
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, wei, dst), attr, dnnl_engine());
}

Status MatMulKernel::prepare_impl(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(act_, check_matmul_io(cfg, gemm_));
  dtype_ = cfg.inputs[0].dtype;
  if (dtype_ != DType::kF32 && dtype_ != DType::kF16 && dtype_ != DType::kBF16)
    return unsupported(op() + ": dtype " + std::string(dtype_name(dtype_)) +
                       " (the oneDNN kernel takes f32, f16, bf16)");
  AMP_RETURN_IF_ERROR(gemm_ ? gemm_geometry(cfg) : matmul_geometry(cfg));
  a_numel_ = cfg.inputs[0].numel();
  b_numel_ = cfg.inputs[1].numel();
  y_numel_ = cfg.outputs[0].numel();

  if (y_numel_ == 0) {
    mode_ = Mode::kEmpty;
    return Status::ok();
  }
  // C in f32 for the loop paths (prefill and fill).
  const bool fill = k_ == 0 || (gemm_ && gemm_dims_.alpha == 0.0f);
  c_prefill_ = gemm_dims_.use_c && !fill && gemm_dims_.cm != 1;
  c_as_bias_ = gemm_dims_.use_c && !fill && gemm_dims_.cm == 1;
  if (gemm_dims_.use_c && (fill || c_prefill_)) {
    const TensorDesc& c = cfg.inputs[2];
    if (c.constant_data != nullptr) {
      c_const_.resize(static_cast<size_t>(c.numel()));
      load_scaled_f32(dtype_, c.constant_data, 1.0f, c_const_.data(), c.numel());
    } else {
      off_c_ = ws_.add(static_cast<size_t>(c.numel()) * sizeof(float));
    }
  }
  if (fill) {
    mode_ = Mode::kFill;
    return Status::ok();
  }
  // Rows of A (batch axes and M, dense) times B [K, N] read through its strides.
  const int64_t rows = own_loop_rows(cfg);
  const int64_t stride_k = rows > 0 ? b_strides_[b_strides_.size() - 2] : 0;
  const int64_t stride_n = rows > 0 ? b_strides_.back() : 0;
  if (dtype_ != DType::kF32) {
    if (rows == 0 || rows > HalfGemv::kMaxRows || !HalfGemv::suits_this_cpu()) return build(cfg);
    mode_ = Mode::kHalf;
    prepare_bias_row(cfg);
    off_src_ = ws_.add(static_cast<size_t>(a_numel_) * sizeof(float));
    off_dst_ = ws_.add(static_cast<size_t>(y_numel_) * sizeof(float));
    half_.prepare(dtype_, k_, n_, static_cast<const uint16_t*>(cfg.inputs[1].constant_data),
                  stride_k, stride_n, act_, cfg.inputs[1].constant_owner);
    impl_ = "own GEMV over " + std::string(dtype_name(dtype_)) + " weights, avx2";
    return Status::ok();
  }
  const float* b = static_cast<const float*>(cfg.inputs[1].constant_data);
  if (rows > 0 && SmallGemm::pays(rows, k_, n_)) {
    mode_ = Mode::kSmall;
    prepare_bias_row(cfg);
    small_.prepare(rows, k_, n_, b, stride_k, stride_n, nullptr, act_,
                   cfg.inputs[1].constant_owner);
    impl_ = "own loop, small product";
    return Status::ok();
  }
  if (rows >= PackedGemm::kMinRows && PackedGemm::suits_this_cpu()) {
    mode_ = Mode::kPacked;
    prepare_bias_row(cfg);
    packed_.prepare(k_, n_, b, stride_k, stride_n, act_, cfg.inputs[1].constant_owner);
    impl_ = "own packed GEMM, avx2";
    return Status::ok();
  }
  if (rows > 0 && PackedGemv::suits_this_cpu() && rows <= PackedGemv::max_rows()) {
    mode_ = Mode::kGemv;
    prepare_bias_row(cfg);
    gemv_.prepare(k_, n_, b, stride_k, stride_n, cfg.inputs[1].constant_owner);
    impl_ = std::string("own GEMV, packed panels, ") + (cpu_has_avx512f() ? "avx512" : "avx2");
    return Status::ok();
  }
  return build(cfg);
}

// A constant B without batch axes (so A's rows are the output's), no transposed A, and Gemm's
// C at most a row bias with alpha 1 (no own loop has an output scale).
int64_t MatMulKernel::own_loop_rows(const KernelConfig& cfg) const {
  if (cfg.inputs[1].constant_data == nullptr || cfg.inputs[1].dtype != dtype_) return 0;
  for (size_t i = 0; i + 2 < b_dims_.size(); ++i)
    if (b_dims_[i] != 1) return 0;
  if (gemm_ && (gemm_dims_.trans_a || gemm_dims_.alpha != 1.0f || c_prefill_)) return 0;
  if (a_numel_ % k_ != 0 || a_numel_ / k_ * n_ != y_numel_) return 0;
  return a_numel_ / k_;
}

void MatMulKernel::prepare_bias_row(const KernelConfig& cfg) {
  if (!c_as_bias_) return;
  const TensorDesc& c = cfg.inputs[2];
  if (c.constant_data != nullptr) {
    std::vector<float> cv(static_cast<size_t>(c.numel()));
    load_scaled_f32(dtype_, c.constant_data, gemm_dims_.beta / gemm_dims_.alpha, cv.data(),
                    c.numel());
    bias_const_.resize(static_cast<size_t>(n_));
    for (int64_t j = 0; j < n_; ++j) bias_const_[j] = cv[gemm_dims_.cn == 1 ? 0 : j];
  } else {
    off_bias_ = ws_.add(static_cast<size_t>(n_) * sizeof(float));
  }
}

const float* MatMulKernel::bias_row(const void* c, void* workspace) const {
  if (!bias_const_.empty()) return bias_const_.data();
  float* buf = reinterpret_cast<float*>(WorkspaceLayout::at(workspace, off_bias_));
  if (gemm_dims_.cn == 1) {
    float v;
    load_scaled_f32(dtype_, c, gemm_dims_.beta / gemm_dims_.alpha, &v, 1);
    std::fill(buf, buf + n_, v);
  } else {
    load_scaled_f32(dtype_, c, gemm_dims_.beta / gemm_dims_.alpha, buf, n_);
  }
  return buf;
}

Status MatMulKernel::build(const KernelConfig& cfg) {
  const bool b_constant = cfg.inputs[1].constant_data != nullptr;
  dnnl::primitive_desc pd;
  dt compute = dt::f32;
  bool built = false;
  if (dtype_ == DType::kBF16) {
    try {
      pd = prims_.build(cfg.num_threads, [&] {
        return create_pd(dt::bf16, c_prefill_ ? dt::f32 : dt::bf16, b_constant);
      });
      compute = dt::bf16;
      built = true;
    } catch (const dnnl::error&) {
      // No bf16 implementation on this CPU: fall through to f32 compute.
    }
  }
  if (!built) {
    stage_src_ = dtype_ != DType::kF32;
    pd = prims_.build(cfg.num_threads, [&] { return create_pd(dt::f32, dt::f32, b_constant); });
  }
  // The prefill is f32 (one rounding of beta C + alpha A B), so a low-precision Y is staged.
  stage_dst_ = dtype_ != DType::kF32 && (compute == dt::f32 || c_prefill_);
  impl_ = dnnl_implementation("matmul", pd, stage_src_, false, false);
  src_md_ = pd.query_md(dnnl::query::src_md);
  wei_md_ = pd.query_md(dnnl::query::weights_md);
  dst_md_ = pd.query_md(dnnl::query::dst_md);
  if (c_as_bias_) bias_md_ = pd.query_md(dnnl::query::weights_md, 1);
  scratch_md_ = pd.query_md(dnnl::query::scratchpad_md);

  off_scratch_ = ws_.add(scratch_md_.get_size());
  if (stage_src_) off_src_ = ws_.add(static_cast<size_t>(a_numel_) * sizeof(float));
  if (stage_dst_) off_dst_ = ws_.add(static_cast<size_t>(y_numel_) * sizeof(float));
  prepare_bias_row(cfg);
  return weights_.prepare(dtype_, b_dims_, b_strides_, cfg.inputs[1].constant_data,
                          cfg.inputs[1].constant_owner, wei_md_, ws_, cfg.num_threads);
}

template <typename T>
void fill_as(const float* c, float beta, int64_t cm, int64_t cn, int64_t m, int64_t n,
             int64_t total, const ew::Activation& act, T* out) {
  // Y = act(beta C) broadcast over [M, N] (or act(0) without C), repeated over batches.
  const int64_t mn = m * n;
  for (int64_t idx = 0; idx < total; ++idx) {
    const int64_t e = idx % mn, i = e / n, j = e % n;
    const float v = c ? beta * c[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)] : 0.0f;
    out[idx] = store_as<T>(ew::apply_activation(act, v));
  }
}

void MatMulKernel::fill(const float* c, void* out, int /*threads*/) const {
  const float* cv = gemm_dims_.use_c ? c : nullptr;
  switch (dtype_) {
    case DType::kF32:
      fill_as(cv, gemm_dims_.beta, gemm_dims_.cm, gemm_dims_.cn, m_, n_, y_numel_, act_,
              static_cast<float*>(out));
      return;
    case DType::kF16:
      fill_as(cv, gemm_dims_.beta, gemm_dims_.cm, gemm_dims_.cn, m_, n_, y_numel_, act_,
              static_cast<Half*>(out));
      return;
    case DType::kBF16:
      fill_as(cv, gemm_dims_.beta, gemm_dims_.cm, gemm_dims_.cn, m_, n_, y_numel_, act_,
              static_cast<BFloat16*>(out));
      return;
    default:
      return;  // prepare() admits only these
  }
}

Status MatMulKernel::run_impl(const KernelArgs& a) const {
  if (mode_ == Mode::kEmpty) return Status::ok();
  const int threads = a.num_threads;
  void* ws = a.workspace;
  const dnnl::engine& eng = dnnl_engine();

  // C widened to f32, for the fill and prefill paths.
  const float* c = c_const_.empty() ? nullptr : c_const_.data();
  if (off_c_ != WorkspaceLayout::kNone) {
    float* buf = reinterpret_cast<float*>(WorkspaceLayout::at(ws, off_c_));
    load_scaled_f32(dtype_, a.inputs[2], 1.0f, buf, gemm_dims_.cm * gemm_dims_.cn);
    c = buf;
  }
  if (mode_ == Mode::kFill) {
    fill(c, a.outputs[0], threads);
    return Status::ok();
  }
  const float* bias = c_as_bias_ ? bias_row(a.inputs[2], ws) : nullptr;
  if (mode_ == Mode::kSmall) {
    small_.run(static_cast<const float*>(a.inputs[0]), bias, static_cast<float*>(a.outputs[0]),
               threads);
    return Status::ok();
  }
  if (mode_ == Mode::kPacked) {
    packed_.run(static_cast<const float*>(a.inputs[0]), a_numel_ / k_, bias,
                static_cast<float*>(a.outputs[0]), threads);
    return Status::ok();
  }
  if (mode_ == Mode::kGemv) {
    gemv_.run_rows(static_cast<const float*>(a.inputs[0]), a_numel_ / k_, bias, act_,
                   static_cast<float*>(a.outputs[0]), threads);
    return Status::ok();
  }
  if (mode_ == Mode::kHalf) {
    auto* x = reinterpret_cast<float*>(WorkspaceLayout::at(ws, off_src_));
    auto* y = reinterpret_cast<float*>(WorkspaceLayout::at(ws, off_dst_));
    convert_to_f32(dtype_, a.inputs[0], x, a_numel_, threads);
    half_.run(x, a_numel_ / k_, static_cast<const uint16_t*>(a.inputs[1]), bias, y, threads);
    store_from_f32(dtype_, y, a.outputs[0], y_numel_, threads);
    return Status::ok();
  }

  const void* src = a.inputs[0];
  if (stage_src_) {
    float* buf = reinterpret_cast<float*>(WorkspaceLayout::at(ws, off_src_));
    convert_to_f32(dtype_, src, buf, a_numel_, threads);
    src = buf;
  }
  const void* wei = weights_.get(a.inputs[1], ws, threads);
  void* dst = stage_dst_ ? WorkspaceLayout::at(ws, off_dst_) : a.outputs[0];
  if (c_prefill_) {
    float* d = static_cast<float*>(dst);
    for (int64_t i = 0; i < m_; ++i)
      for (int64_t j = 0; j < n_; ++j) d[i * n_ + j] = c_at(c, i, j);
  }

  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(src_md_, eng, const_cast<void*>(src))},
      {DNNL_ARG_WEIGHTS, memory(wei_md_, eng, const_cast<void*>(wei))},
      {DNNL_ARG_DST, memory(dst_md_, eng, dst)}};
  if (c_as_bias_) args.emplace(DNNL_ARG_BIAS, memory(bias_md_, eng, const_cast<float*>(bias)));
  add_scratchpad(args, scratch_md_, ws, off_scratch_);
  dnnl_execute(prims_.for_threads(threads), args, threads);

  if (stage_dst_)
    store_from_f32(dtype_, static_cast<const float*>(dst), a.outputs[0], y_numel_, threads);
  return Status::ok();
}

}  // namespace

void register_matmul_kernels(KernelRegistry& registry) {
  add_kernel_family<MatMulKernel>(registry, Backend::kCpu, matmul_family());
}

}  // namespace amp::kernels::cpu
