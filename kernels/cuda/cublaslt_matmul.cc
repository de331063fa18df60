// MatMul and Gemm on cuBLASLt, with bias and Relu in cuBLASLt's epilogue and the other
// fused activations in a small kernel after. Semantics mirror kernels/cpu/dnnl_matmul.cc.
//
// Row-major on a column-major library: Y = A B is computed as Y^T = B^T A^T, i.e.
// cuBLASLt's "A" is our B, its "B" is our A, and its D is Y^T [N, M] with ld N; a
// row-major matrix is the column-major transpose of itself, so no data moves. Gemm's
// transA / transB become cuBLASLt's op on the corresponding operand.
//
// MatMul batching (numpy broadcasting): when B has no batch dims (the usual [.., M, K] x
// [K, N] of a linear layer) the batch folds into M and one GEMM runs. Otherwise batch
// axes where the output is 1 are dropped and neighbours that broadcast alike merged
// (as on the CPU); the innermost merged axis becomes one strided-batched call (batch
// stride 0 for the operand that broadcasts), any outer axes a loop of such calls in run().
//
// Gemm: Y = act(alpha A' B' + beta C). cuBLASLt computes act(alpha op(A) op(B) + beta C +
// bias) with bias a vector along D's rows, i.e. along Y's columns, so:
//   - C broadcast along Y's rows ([N], [1, N], scalar): the bias epilogue; C itself when it
//     is [N] in Y's dtype and beta == 1, else beta C expanded into the workspace;
//   - C with M rows ([M, 1], [M, N]): cuBLASLt's C matrix with beta; [M, N] in place, other
//     shapes expanded into the workspace;
//   - alpha == 0 or K == 0: Y = act(beta C) (or act(0)) by a broadcast kernel.
//
// Numerics: compute type CUBLAS_COMPUTE_32F for every dtype (fp32 accumulation); fp32
// inputs use CUBLAS_COMPUTE_32F_FAST_TF32 only when DeviceHandles::allow_tf32. Relu (and
// no activation) run in cuBLASLt's epilogue, before the single rounding to Y's dtype. The
// other activations are applied by a kernel after: for f16/bf16 outputs cuBLASLt then
// writes an fp32 D into the workspace and the kernel rounds once into Y.
//
// Algorithm: cublasLtMatmulAlgoGetHeuristic in prepare() with DeviceHandles::cublaslt,
// for pointers aligned to 16 bytes, plus a fallback algorithm for element-aligned pointers
// (a view into the middle of a tensor); run() picks by the actual pointers. The matmul
// descriptor is rebuilt on the stack in each run() (cublasLtMatmulDescInit, no heap):
// the bias pointer is an attribute, and one prepared kernel may run concurrently on
// several streams.
#include <algorithm>
#include <cstring>

#include "kernels/common/matmul_io.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cudnn_common.h"
#include "kernels/cuda/cudnn_epilogue.h"

namespace amp::kernels::cuda {
namespace {

// cuBLASLt's recommended workspace on Hopper; the heuristic returns what it needs of it.
constexpr size_t kMaxWorkspace = size_t{32} << 20;
constexpr int kMaxOuter = 8;

class MatMulKernel final : public Kernel {
 public:
  explicit MatMulKernel(bool gemm) : gemm_(gemm) {}

  Status prepare(const KernelConfig& cfg) override;
  size_t workspace_bytes() const override { return ws_.total(); }
  Status run(const KernelArgs& a) const override;
  std::string implementation() const override {
    if (mode_ != Mode::kGemm) return {};
    return std::string("cuBLASLt matmul") + (bias_ ? ", bias epilogue" : "") +
           (aligned_possible_ ? "" : ", element-aligned algorithm");
  }

 private:
  enum class Mode { kEmpty, kFill, kGemm };

  std::string op() const { return gemm_ ? "Gemm" : "MatMul"; }
  Status matmul_geometry(const KernelConfig& cfg);
  Status gemm_geometry(const KernelConfig& cfg);
  Status setup_cublaslt(const cuda::DeviceHandles& dev);
  // Fills `desc` (stack storage) with the operation; bias_ptr is only an alignment hint in
  // prepare() and the real pointer in run().
  Status build_desc(cublasLtMatmulDescOpaque_t* desc, const void* bias_ptr) const;
  Status heuristic(const cuda::DeviceHandles& dev, uint32_t align, cublasLtMatmulAlgo_t* algo,
                   size_t* ws_bytes);

  const bool gemm_;
  DType dtype_ = DType::kUndefined;
  ew::Activation act_;
  Mode mode_ = Mode::kGemm;

  int64_t m_ = 0, n_ = 0, k_ = 0;
  int64_t y_numel_ = 0;
  // Innermost strided batch (elements) and the outer loop (MatMul only).
  int64_t batch_ = 1, stride_a_ = 0, stride_b_ = 0, stride_y_ = 0;
  int n_outer_ = 0;
  int64_t outer_count_ = 1;
  int64_t outer_dims_[kMaxOuter] = {}, outer_sa_[kMaxOuter] = {}, outer_sb_[kMaxOuter] = {},
          outer_sy_[kMaxOuter] = {};

  // Gemm's C (header comment).
  GemmDims gemm_dims_;  // Gemm: alpha, beta, C's use and dims, transposes
  bool bias_ = false, bias_direct_ = false;
  bool c_matrix_ = false, c_direct_ = false;

  // cuBLASLt state.
  bool act_fused_ = true;  // kNone or kRelu: in cuBLASLt's epilogue
  bool stage_d_ = false;   // D in fp32 in the workspace, activation kernel rounds into Y
  DType d_type_ = DType::kUndefined;
  cublasComputeType_t compute_ = CUBLAS_COMPUTE_32F;
  cublasLtMatrixLayoutOpaque_t layout_a_{}, layout_b_{}, layout_d_{};  // cuBLASLt's A, B, C/D
  cublasLtMatmulAlgo_t algo_{}, algo_fallback_{};
  bool aligned_possible_ = true;  // loop offsets keep 16-byte alignment; algo_ valid
  bool fallback_ok_ = true;       // algo_fallback_ valid
  size_t blas_ws_bytes_ = 0;

  WorkspaceLayout ws_;
  size_t off_bias_ = WorkspaceLayout::kNone, off_c_ = WorkspaceLayout::kNone;
  size_t off_stage_ = WorkspaceLayout::kNone, off_blas_ = WorkspaceLayout::kNone;
};

Status MatMulKernel::matmul_geometry(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(const MatMulDims d, read_matmul_dims(cfg));
  m_ = d.m;
  k_ = d.k;
  n_ = d.n;
  bool b_batched = false;
  for (int64_t v : d.b_batch) b_batched = b_batched || v != 1;
  if (!b_batched) {
    // [batch..., M, K] x [K, N]: the batch is more rows of one GEMM.
    for (int64_t v : d.batch) m_ *= v;
    return Status::ok();
  }
  const BatchGroups groups = merge_batch_axes(d);
  const std::vector<int64_t>& ga = groups.a;
  const std::vector<int64_t>& gb = groups.b;
  const std::vector<int64_t>& gy = groups.y;
  const size_t g = gy.size();  // >= 1: B is batched
  if (g - 1 > static_cast<size_t>(kMaxOuter))
    return unsupported("MatMul: more than " + std::to_string(kMaxOuter + 1) +
                       " irreducible batch axes");
  // Dense strides of each group in A, B and Y (0 where the operand broadcasts).
  std::vector<int64_t> sa(g), sb(g), sy(g);
  int64_t pa = m_ * k_, pb = k_ * n_, py = m_ * n_;
  for (size_t i = g; i-- > 0;) {
    sa[i] = ga[i] == 1 ? 0 : pa;
    sb[i] = gb[i] == 1 ? 0 : pb;
    sy[i] = py;
    pa *= ga[i];
    pb *= gb[i];
    py *= gy[i];
  }
  batch_ = gy[g - 1];
  stride_a_ = sa[g - 1];
  stride_b_ = sb[g - 1];
  stride_y_ = sy[g - 1];
  n_outer_ = static_cast<int>(g - 1);
  for (int i = 0; i < n_outer_; ++i) {
    outer_dims_[i] = gy[static_cast<size_t>(i)];
    outer_sa_[i] = sa[static_cast<size_t>(i)];
    outer_sb_[i] = sb[static_cast<size_t>(i)];
    outer_sy_[i] = sy[static_cast<size_t>(i)];
    outer_count_ *= outer_dims_[i];
  }
  return Status::ok();
}

Status MatMulKernel::gemm_geometry(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(gemm_dims_, read_gemm_dims(cfg, dtype_));
  m_ = gemm_dims_.m;
  k_ = gemm_dims_.k;
  n_ = gemm_dims_.n;
  return Status::ok();
}

Status MatMulKernel::build_desc(cublasLtMatmulDescOpaque_t* desc, const void* bias_ptr) const {
  AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulDescInit(desc, compute_, CUDA_R_32F));
  // cuBLASLt's A is our B, its B is our A (header comment).
  const int32_t op_a = gemm_dims_.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int32_t op_b = gemm_dims_.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  AMP_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
  AMP_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
  const bool relu = act_fused_ && act_.kind == ew::ActivationKind::kRelu;
  uint32_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  if (bias_)
    epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  else if (relu)
    epilogue = CUBLASLT_EPILOGUE_RELU;
  AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                                            &epilogue, sizeof(epilogue)));
  if (bias_) {
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias_ptr, sizeof(bias_ptr)));
    const int32_t bias_type = static_cast<int32_t>(cuda_type(d_type_));
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
  }
  return Status::ok();
}

Status MatMulKernel::heuristic(const cuda::DeviceHandles& dev, uint32_t align,
                               cublasLtMatmulAlgo_t* algo, size_t* ws_bytes) {
  cublasLtMatmulDescOpaque_t desc;
  // A 256-aligned stand-in for the bias pointer: the heuristic reads its alignment only.
  AMP_RETURN_IF_ERROR(build_desc(&desc, reinterpret_cast<const void*>(uintptr_t{256})));
  cublasLtMatmulPreferenceOpaque_t pref;
  AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulPreferenceInit(&pref));
  const uint64_t max_ws = kMaxWorkspace;
  AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulPreferenceSetAttribute(
      &pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof(max_ws)));
  for (auto attr :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    AMP_CUBLAS_RETURN_IF_ERROR(
        cublasLtMatmulPreferenceSetAttribute(&pref, attr, &align, sizeof(align)));
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulAlgoGetHeuristic(
      dev.cublaslt, &desc, const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_a_),
      const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_b_),
      const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_d_),
      const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_d_), &pref, 1, &result, &returned));
  if (returned < 1 || result.state != CUBLAS_STATUS_SUCCESS)
    return unsupported(op() + ": cuBLASLt has no algorithm for M=" + std::to_string(m_) +
                       " N=" + std::to_string(n_) + " K=" + std::to_string(k_) + " (" +
                       std::string(dtype_name(dtype_)) + ", alignment " + std::to_string(align) +
                       ")");
  *algo = result.algo;
  *ws_bytes = result.workspaceSize;
  return Status::ok();
}

Status MatMulKernel::setup_cublaslt(const cuda::DeviceHandles& dev) {
  act_fused_ = act_.kind == ew::ActivationKind::kNone || act_.kind == ew::ActivationKind::kRelu;
  stage_d_ = !act_fused_ && dtype_ != DType::kF32;
  d_type_ = stage_d_ ? DType::kF32 : dtype_;
  compute_ =
      dtype_ == DType::kF32 && dev.allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  if (gemm_dims_.use_c) {
    if (gemm_dims_.cm == 1) {
      bias_ = true;
      bias_direct_ = gemm_dims_.cn == n_ && gemm_dims_.beta == 1.0f && d_type_ == dtype_;
    } else {
      c_matrix_ = true;
      c_direct_ = gemm_dims_.cn == n_ && d_type_ == dtype_;
    }
  }
  // Layouts (header comment): cuBLASLt A = our B, B = our A, D = Y^T.
  const cudaDataType_t in_t = cuda_type(dtype_), d_t = cuda_type(d_type_);
  if (!gemm_dims_.trans_b)
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutInit(&layout_a_, in_t, n_, k_, n_));
  else
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutInit(&layout_a_, in_t, k_, n_, k_));
  if (!gemm_dims_.trans_a)
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutInit(&layout_b_, in_t, k_, m_, k_));
  else
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutInit(&layout_b_, in_t, m_, k_, m_));
  AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutInit(&layout_d_, d_t, n_, m_, n_));
  if (batch_ > 1) {
    if (batch_ > INT32_MAX) return unsupported(op() + ": batch too large for cuBLASLt");
    const int32_t count = static_cast<int32_t>(batch_);
    const struct {
      cublasLtMatrixLayoutOpaque_t* layout;
      int64_t stride;
    } sets[] = {{&layout_a_, stride_b_}, {&layout_b_, stride_a_}, {&layout_d_, stride_y_}};
    for (const auto& s : sets) {
      AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutSetAttribute(
          s.layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
      AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutSetAttribute(
          s.layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s.stride, sizeof(s.stride)));
    }
  }
  // Byte offsets of the outer loop must keep 16-byte alignment for the fast algorithm.
  const size_t in_elem = dtype_size(dtype_), d_elem = dtype_size(d_type_);
  for (int i = 0; i < n_outer_; ++i)
    aligned_possible_ = aligned_possible_ && (outer_sa_[i] * in_elem) % 16 == 0 &&
                        (outer_sb_[i] * in_elem) % 16 == 0 && (outer_sy_[i] * d_elem) % 16 == 0 &&
                        (outer_sy_[i] * dtype_size(dtype_)) % 16 == 0;
  // Two algorithms: for 16-byte aligned pointers (the arena aligns to 256) and, as a
  // fallback, for element-aligned ones. At least one must exist.
  const bool aligned_layout = aligned_possible_;
  const uint32_t min_align = static_cast<uint32_t>(std::min(in_elem, d_elem));
  auto find_algorithms = [&]() -> Status {
    size_t fast_ws = 0, slow_ws = 0;
    Status fast = aligned_layout ? heuristic(dev, 16, &algo_, &fast_ws)
                                 : unsupported(op() + ": misaligned batch offsets");
    const Status slow = heuristic(dev, min_align, &algo_fallback_, &slow_ws);
    if (!fast.is_ok() && !slow.is_ok()) return slow;
    aligned_possible_ = fast.is_ok();
    fallback_ok_ = slow.is_ok();
    blas_ws_bytes_ = std::max(fast_ws, slow_ws);
    return Status::ok();
  };
  Status found = find_algorithms();
  if (!found.is_ok() && bias_) {
    // Not every cuBLASLt has a BIAS epilogue for every type combination (fp16 inputs with
    // an fp32 D, for one): add C as a broadcast matrix through beta instead.
    bias_ = bias_direct_ = false;
    c_matrix_ = true;
    c_direct_ = false;
    found = find_algorithms();
  }
  AMP_RETURN_IF_ERROR(found);

  if (bias_ && !bias_direct_) off_bias_ = ws_.add(static_cast<size_t>(n_) * d_elem);
  if (c_matrix_ && !c_direct_) off_c_ = ws_.add(static_cast<size_t>(m_ * n_) * d_elem);
  if (stage_d_) off_stage_ = ws_.add(static_cast<size_t>(y_numel_) * d_elem);
  off_blas_ = ws_.add(blas_ws_bytes_);
  return Status::ok();
}

Status MatMulKernel::prepare(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(act_, check_matmul_io(cfg, gemm_));
  AMP_ASSIGN_OR_RETURN(const cuda::DeviceHandles* dev, device_handles(cfg));
  dtype_ = cfg.inputs[0].dtype;
  if (!is_library_float(dtype_))
    return unsupported(op() + ": dtype " + std::string(dtype_name(dtype_)) +
                       " (the cuBLASLt kernel takes f32, f16, bf16)");
  AMP_RETURN_IF_ERROR(gemm_ ? gemm_geometry(cfg) : matmul_geometry(cfg));
  y_numel_ = cfg.outputs[0].numel();
  if (y_numel_ == 0) {
    mode_ = Mode::kEmpty;
    return Status::ok();
  }
  if (k_ == 0 || (gemm_ && gemm_dims_.alpha == 0.0f)) {
    mode_ = Mode::kFill;
    return Status::ok();
  }
  mode_ = Mode::kGemm;
  return setup_cublaslt(*dev);
}

bool aligned16(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % 16 == 0;
}

Status MatMulKernel::run(const KernelArgs& a) const {
  cudaStream_t st = static_cast<cudaStream_t>(a.stream);
  if (mode_ == Mode::kEmpty) return Status::ok();
  const void* c_in = gemm_dims_.use_c ? a.inputs[2] : nullptr;
  if (mode_ == Mode::kFill)
    return launch_broadcast_2d(c_in, dtype_, gemm_dims_.cm, gemm_dims_.cn, gemm_dims_.beta,
                               a.outputs[0], dtype_, m_, n_, y_numel_, act_, st);

  AMP_ASSIGN_OR_RETURN(const cuda::ContextHandles* ctx, context_handles(a));
  void* ws = a.workspace;
  const ew::Activation none;
  // Bias vector / C matrix in D's dtype.
  const void* bias = nullptr;
  if (bias_) {
    if (bias_direct_) {
      bias = c_in;
    } else {
      void* buf = WorkspaceLayout::at(ws, off_bias_);
      AMP_RETURN_IF_ERROR(launch_broadcast_2d(c_in, dtype_, 1, gemm_dims_.cn, gemm_dims_.beta, buf,
                                              d_type_, 1, n_, n_, none, st));
      bias = buf;
    }
  }
  void* d_base = stage_d_ ? WorkspaceLayout::at(ws, off_stage_) : a.outputs[0];
  const void* c_mat = d_base;
  float beta = 0.0f;
  if (c_matrix_) {
    beta = gemm_dims_.beta;
    if (c_direct_) {
      c_mat = c_in;
    } else {
      void* buf = WorkspaceLayout::at(ws, off_c_);
      AMP_RETURN_IF_ERROR(launch_broadcast_2d(c_in, dtype_, gemm_dims_.cm, gemm_dims_.cn, 1.0f, buf,
                                              d_type_, m_, n_, m_ * n_, none, st));
      c_mat = buf;
    }
  }
  const void* a_base = a.inputs[0];
  const void* b_base = a.inputs[1];
  const bool fast = aligned_possible_ && aligned16(a_base) && aligned16(b_base) &&
                    aligned16(d_base) && aligned16(c_mat) && (!bias || aligned16(bias));
  if (!fast && !fallback_ok_)
    return unsupported(op() +
                       ": operands are not 16-byte aligned and cuBLASLt has no "
                       "algorithm for element-aligned pointers of this shape");
  const cublasLtMatmulAlgo_t* algo = fast ? &algo_ : &algo_fallback_;

  cublasLtMatmulDescOpaque_t desc;
  AMP_RETURN_IF_ERROR(build_desc(&desc, bias));
  void* blas_ws = WorkspaceLayout::at(ws, off_blas_);
  const size_t in_elem = dtype_size(dtype_), d_elem = dtype_size(d_type_);
  auto* la = const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_a_);
  auto* lb = const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_b_);
  auto* ld = const_cast<cublasLtMatrixLayoutOpaque_t*>(&layout_d_);
  for (int64_t outer = 0; outer < outer_count_; ++outer) {
    // Offsets of this outer batch index (elements).
    int64_t oa = 0, ob = 0, oy = 0, rem = outer;
    for (int i = n_outer_ - 1; i >= 0; --i) {
      const int64_t idx = rem % outer_dims_[i];
      rem /= outer_dims_[i];
      oa += idx * outer_sa_[i];
      ob += idx * outer_sb_[i];
      oy += idx * outer_sy_[i];
    }
    const auto* pa = static_cast<const uint8_t*>(a_base) + oa * static_cast<int64_t>(in_elem);
    const auto* pb = static_cast<const uint8_t*>(b_base) + ob * static_cast<int64_t>(in_elem);
    auto* pd = static_cast<uint8_t*>(d_base) + oy * static_cast<int64_t>(d_elem);
    // Without a C matrix, C is D with beta 0 (cuBLASLt never reads it then).
    const void* pc = c_matrix_ ? c_mat : pd;
    AMP_CUBLAS_RETURN_IF_ERROR(cublasLtMatmul(ctx->cublaslt, &desc, &gemm_dims_.alpha, pb, la, pa,
                                              lb, &beta, pc, ld, pd, ld, algo, blas_ws,
                                              blas_ws_bytes_, st));
  }
  if (!act_fused_)
    return launch_bias_activation(d_base, d_type_, a.outputs[0], dtype_, nullptr, y_numel_, 1, 1,
                                  act_, st);
  return Status::ok();
}

}  // namespace

void register_matmul_kernels(KernelRegistry& registry) {
  add_kernel_family<MatMulKernel>(registry, Backend::kCuda, matmul_family());
}

}  // namespace amp::kernels::cuda
