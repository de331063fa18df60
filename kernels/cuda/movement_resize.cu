// CUDA Resize(X, roi?, scales?, sizes?) with the semantics of kernels/cpu/movement_resize.cc
// (the ONNX reference implementation): modes nearest | linear | cubic; every
// coordinate_transformation_mode; nearest_mode; cubic_coeff_a; exclude_outside; antialias;
// axes; keep_aspect_ratio_policy; tf_crop_and_resize with extrapolation_value.
//
// No tables: the per-coordinate rules (coordinate transform, tap window and weights) are one
// AMP_HOST_DEVICE function, resize_axis_taps() (kernels/common/resize_taps.h, the one the CPU
// builds its tables with), which each thread evaluates for its own output coordinate in
// double precision, as the CPU does.
// prepare() runs the same function on the host to find axes whose resize is the identity.
//   nearest:        one gather kernel on raw element bytes (every dtype); an output element
//                   is the extrapolation value when any axis' coordinate lies outside the roi.
//   linear / cubic: one separable pass per non-identity axis, the most shrinking axis first,
//                   accumulating in fp32 (f64 for f64) with fp32 intermediates in the
//                   workspace, rounding once to the storage type on the last pass (the CPU's
//                   order, so results agree up to fp32 rounding of the same sums).
// Constant roi/scales/sizes are resolved in prepare() and passed by value. Run-time ones are
// read on the device: thread 0 of each block resolves the axis specs (the same
// resolve_spec() as the host) into shared memory. Run-time parameters the CPU would reject
// (non-positive scales, sizes not matching the output, more taps than prepared for) write
// zeros instead of failing; every index is clamped into the input, so no access leaves the
// buffers. With run-time parameters every resized axis gets a pass (identity ones included).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/common/elementwise_functors.h"
#include "kernels/common/resize_plan.h"
#include "kernels/common/resize_taps.h"
#include "kernels/cuda/movement_cuda.h"
#include "runtime/common/half.h"
#include "runtime/common/host_device.h"

namespace amp::kernels::cuda {
namespace {

// The validated attributes: shape inference's record (graph/ops/op_attrs.h).
using ResizeAttrs = graph::ResizeSampling;

// Taps per coordinate the CUDA kernels hold: 4 without antialias (cubic), kMaxTaps with
// (linear/cubic filters stretched by 1/scale when downsampling: 64 taps reach a 16x linear
// or 8x cubic downscale).
constexpr int kPlainTaps = 4;
constexpr int kMaxTaps = 64;

// ---- Kernels ------------------------------------------------------------------------------

struct AxisSpecs {
  AxisSpec a[kMaxRank];
};

// Nearest: a gather of raw elements. `specs` is used when roi/param are null (constants).
template <typename E>
__global__ void resize_nearest_kernel(const E* src, E* dst, int64_t n, ResizeStatic st,
                                      AxisSpecs specs, const void* roi, const void* param, E fill) {
  __shared__ AxisSpec sh[kMaxRank];
  __shared__ int sh_ok;
  if (threadIdx.x == 0) {
    bool ok = true;
    for (int a = 0; a < st.rank; ++a) {
      if (param != nullptr)
        ok = resolve_spec(st, roi, param, a, &sh[a]) && ok;
      else
        sh[a] = specs.a[a];
    }
    sh_ok = ok;
  }
  __syncthreads();
  const bool ok = sh_ok != 0;
  for (int64_t i = thread_index(); i < n; i += grid_stride()) {
    if (!ok) {
      dst[i] = E{};
      continue;
    }
    int64_t rem = i, off = 0, in_stride = 1;
    bool outside = false;
    for (int a = st.rank - 1; a >= 0; --a) {
      const int64_t q = rem / st.out_dims[a];
      const int64_t o = rem - q * st.out_dims[a];
      rem = q;
      int64_t src_i = o;
      if (st.axis_pos[a] >= 0) {
        double w;
        bool ex;
        resize_axis_taps(st.at, sh[a], 1, o, &src_i, &w, &ex);
        outside = outside || ex;
      }
      off += src_i * in_stride;
      in_stride *= st.in_dims[a];
    }
    dst[i] = outside ? fill : src[off];
  }
}

// One separable pass over axis `axis`: src [outer, in_len, inner] -> dst [outer, out_len,
// inner], accumulating in C. `spec`/`taps` are used when roi/param are null (constants).
template <typename Src, typename Dst, typename C, int kTaps>
__global__ void resize_pass_kernel(const Src* src, Dst* dst, int64_t outer, int64_t in_len,
                                   int64_t out_len, int64_t inner, ResizeStatic st, int axis,
                                   AxisSpec spec, int taps, int cap, const void* roi,
                                   const void* param, C fill) {
  __shared__ AxisSpec sh_spec;
  __shared__ int sh_taps;
  __shared__ int sh_ok;
  if (threadIdx.x == 0) {
    if (param != nullptr) {
      bool ok = resolve_spec(st, roi, param, axis, &sh_spec);
      const int t = resize_tap_count(st.at, sh_spec.scale);
      ok = ok && t <= cap && t <= kTaps;
      sh_taps = t < kTaps ? t : kTaps;
      sh_ok = ok;
    } else {
      sh_spec = spec;
      sh_taps = taps;
      sh_ok = 1;
    }
  }
  __syncthreads();
  const bool ok = sh_ok != 0;
  const int nt = sh_taps;
  const AxisSpec s = sh_spec;
  const int64_t n = outer * out_len * inner;
  int64_t idx[kTaps];
  double w[kTaps];
  for (int64_t k = thread_index(); k < n; k += grid_stride()) {
    if (!ok) {
      dst[k] = dev_store<Dst>(C(0));
      continue;
    }
    const int64_t t = k / inner;
    const int64_t i = k - t * inner;
    const int64_t ou = t / out_len;
    const int64_t o = t - ou * out_len;
    bool ex;
    resize_axis_taps(st.at, s, nt, o, idx, w, &ex);
    if (ex) {
      dst[k] = dev_store<Dst>(fill);
      continue;
    }
    const Src* s0 = src + ou * in_len * inner + i;
    C acc = 0;
    for (int tp = 0; tp < nt; ++tp) acc += static_cast<C>(w[tp]) * dev_load(s0[idx[tp] * inner]);
    dst[k] = dev_store<Dst>(acc);
  }
}

constexpr size_t kAlign = 256;
inline size_t align_up(size_t n) {
  return (n + kAlign - 1) / kAlign * kAlign;
}

class ResizeKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(st_, check_resize_io(cfg));
    AMP_RETURN_IF_ERROR(check_max_rank(cfg.inputs[0], "Resize input"));
    const ResizeAttrs& at = st_.at;
    const int rank = st_.rank;
    const bool all_const = st_.all_const;
    const TensorDesc& out = cfg.outputs[0];
    dtype_ = cfg.inputs[0].dtype;
    numel_ = out.numel();
    elem_ = dtype_size(dtype_);
    param_index_ = st_.param_index();
    const TensorDesc& param = cfg.inputs[param_index_];
    resolved_ = all_const;

    fill_ = fill_element(at.extrapolation);

    // Per-axis specs and tap capacities: exact when the parameters are known now, else a
    // bound (scale >= (out - 0.5) / in under every way of giving the output size).
    for (int a = 0; a < rank; ++a) {
      AxisSpec& s = specs_.a[a];
      if (all_const) {
        if (!resolve_spec(st_, st_.has_roi ? cfg.inputs[1].constant_data : nullptr,
                          param.constant_data, a, &s))
          return invalid_model("Resize: scales entry " + std::to_string(st_.axis_pos[a]) +
                               " must be positive (or sizes must give the output shape " +
                               dims_to_string(out.dims) + ")");
        cap_[a] = resize_tap_count(at, s.scale);
      } else {
        s = make_spec(st_.in_dims[a], st_.out_dims[a]);
        cap_[a] = 1;
        if (st_.out_dims[a] > 0 && st_.in_dims[a] > 0)
          cap_[a] = resize_tap_count(at, (static_cast<double>(st_.out_dims[a]) - 0.5) /
                                             static_cast<double>(st_.in_dims[a]));
      }
      if (st_.axis_pos[a] >= 0 && cap_[a] > kMaxTaps)
        return unsupported("Resize: antialias filter of " + std::to_string(cap_[a]) +
                           " taps on axis " + std::to_string(a) + " (the CUDA kernel takes " +
                           std::to_string(kMaxTaps) + ")");
      identity_[a] = st_.axis_pos[a] < 0 || (all_const && is_identity(s, cap_[a]));
    }

    // Separable passes (not nearest): the most shrinking axis first, so later passes work
    // on less data; identity axes (known only with constant parameters) are skipped.
    n_passes_ = 0;
    for (int a = 0; a < rank; ++a)
      if (!identity_[a]) order_[n_passes_++] = a;
    std::stable_sort(order_, order_ + n_passes_, [&](int p, int q) {
      return static_cast<double>(st_.out_dims[p]) * static_cast<double>(st_.in_dims[q]) <
             static_cast<double>(st_.out_dims[q]) * static_cast<double>(st_.in_dims[p]);
    });
    scratch_bytes_ = 0;
    if (at.mode != ResizeAttrs::kNearest && n_passes_ >= 2) {
      // Any subset of axes may be resized between passes: bound by the larger of in/out.
      int64_t bound = 1;
      for (int a = 0; a < rank; ++a) bound *= std::max(st_.in_dims[a], st_.out_dims[a]);
      const size_t c = dtype_ == DType::kF64 ? sizeof(double) : sizeof(float);
      scratch_bytes_ = align_up(static_cast<size_t>(bound) * c);
    }
    return Status::ok();
  }

  size_t workspace_bytes() const override { return 2 * scratch_bytes_; }

  Status run(const KernelArgs& args) const override {
    if (numel_ == 0) return Status::ok();
    const cudaStream_t stream = static_cast<cudaStream_t>(args.stream);
    const void* roi = !resolved_ && st_.has_roi ? args.inputs[1] : nullptr;
    const void* param = resolved_ ? nullptr : args.inputs[param_index_];
    if (st_.at.mode == ResizeAttrs::kNearest) return run_nearest(args, roi, param, stream);
    if (n_passes_ == 0)  // every axis is the identity
      return copy_bytes(args.outputs[0], args.inputs[0], static_cast<size_t>(numel_) * elem_,
                        stream);
    switch (dtype_) {
      case DType::kF32:
        return run_interp<float, float>(args, roi, param, stream);
      case DType::kF16:
        return run_interp<Half, float>(args, roi, param, stream);
      case DType::kBF16:
        return run_interp<BFloat16, float>(args, roi, param, stream);
      case DType::kF64:
        return run_interp<double, double>(args, roi, param, stream);
      case DType::kUndefined:
      case DType::kU8:
      case DType::kI8:
      case DType::kI16:
      case DType::kI32:
      case DType::kI64:
      case DType::kBool:
        break;
    }
    return internal_error("Resize: interpolation on a non-float dtype");
  }

 private:
  // Whether every output coordinate of the axis reads exactly its own input coordinate.
  bool is_identity(const AxisSpec& s, int taps) const {
    if (s.in != s.out) return false;
    int64_t idx[kMaxTaps];
    double w[kMaxTaps];
    for (int64_t o = 0; o < s.out; ++o) {
      bool ex = false;
      resize_axis_taps(st_.at, s, taps, o, idx, w, &ex);
      if (ex) return false;
      for (int t = 0; t < taps; ++t)
        if (w[t] != 0.0 && (w[t] != 1.0 || idx[t] != o)) return false;
    }
    return true;
  }

  // extrapolation_value as one storage element (the CPU's store_element).
  uint64_t fill_element(float v) const {
    uint64_t bits = 0;
    switch (dtype_) {
      case DType::kF32:
        std::memcpy(&bits, &v, 4);
        break;
      case DType::kF64: {
        const double d = v;
        std::memcpy(&bits, &d, 8);
        break;
      }
      case DType::kF16:
        bits = float_to_half_bits(v);
        break;
      case DType::kBF16:
        bits = float_to_bf16_bits(v);
        break;
      case DType::kU8:
        bits = static_cast<uint8_t>(v);
        break;
      case DType::kI8:
        bits = static_cast<uint8_t>(static_cast<int8_t>(v));
        break;
      case DType::kI16:
        bits = static_cast<uint16_t>(static_cast<int16_t>(v));
        break;
      case DType::kI32:
        bits = static_cast<uint32_t>(static_cast<int32_t>(v));
        break;
      case DType::kI64: {
        const int64_t i = static_cast<int64_t>(v);
        std::memcpy(&bits, &i, 8);
        break;
      }
      case DType::kBool:
        bits = v != 0.0f ? 1 : 0;
        break;
      case DType::kUndefined:
        break;
    }
    return bits;
  }

  Status run_nearest(const KernelArgs& args, const void* roi, const void* param,
                     cudaStream_t stream) const {
    const unsigned blocks = grid_for(numel_);
    switch (elem_) {
      case 1:
        resize_nearest_kernel<uint8_t><<<blocks, kThreads, 0, stream>>>(
            args.input<uint8_t>(0), args.output<uint8_t>(0), numel_, st_, specs_, roi, param,
            static_cast<uint8_t>(fill_));
        break;
      case 2:
        resize_nearest_kernel<uint16_t><<<blocks, kThreads, 0, stream>>>(
            args.input<uint16_t>(0), args.output<uint16_t>(0), numel_, st_, specs_, roi, param,
            static_cast<uint16_t>(fill_));
        break;
      case 4:
        resize_nearest_kernel<uint32_t><<<blocks, kThreads, 0, stream>>>(
            args.input<uint32_t>(0), args.output<uint32_t>(0), numel_, st_, specs_, roi, param,
            static_cast<uint32_t>(fill_));
        break;
      case 8:
        resize_nearest_kernel<uint64_t>
            <<<blocks, kThreads, 0, stream>>>(args.input<uint64_t>(0), args.output<uint64_t>(0),
                                              numel_, st_, specs_, roi, param, fill_);
        break;
      default:
        return internal_error("Resize: element size " + std::to_string(elem_));
    }
    return launch_status("resize_nearest_kernel");
  }

  template <typename Src, typename Dst, typename C>
  Status launch_pass(const Src* src, Dst* dst, int64_t outer, int64_t in_len, int64_t inner, int a,
                     C fill, const void* roi, const void* param, cudaStream_t stream) const {
    const int64_t n = outer * st_.out_dims[a] * inner;
    if (n == 0) return Status::ok();
    const int taps = resolved_ ? resize_tap_count(st_.at, specs_.a[a].scale) : cap_[a];
    if (!st_.at.antialias)
      resize_pass_kernel<Src, Dst, C, kPlainTaps><<<grid_for(n), kThreads, 0, stream>>>(
          src, dst, outer, in_len, st_.out_dims[a], inner, st_, a, specs_.a[a], taps, cap_[a], roi,
          param, fill);
    else
      resize_pass_kernel<Src, Dst, C, kMaxTaps><<<grid_for(n), kThreads, 0, stream>>>(
          src, dst, outer, in_len, st_.out_dims[a], inner, st_, a, specs_.a[a], taps, cap_[a], roi,
          param, fill);
    return launch_status("resize_pass_kernel");
  }

  template <typename T, typename C>
  Status run_interp(const KernelArgs& args, const void* roi, const void* param,
                    cudaStream_t stream) const {
    const T* in = args.input<T>(0);
    T* out = args.output<T>(0);
    uint8_t* ws = static_cast<uint8_t*>(args.workspace);
    C* buf[2] = {reinterpret_cast<C*>(ws), reinterpret_cast<C*>(ws + scratch_bytes_)};
    const C fill = static_cast<C>(st_.at.extrapolation);
    int64_t cur[kMaxRank];
    for (int a = 0; a < st_.rank; ++a) cur[a] = st_.in_dims[a];
    const C* prev = nullptr;  // the last intermediate (compute type)
    for (int p = 0; p < n_passes_; ++p) {
      const int a = order_[p];
      int64_t outer = 1, inner = 1;
      for (int b = 0; b < a; ++b) outer *= cur[b];
      for (int b = a + 1; b < st_.rank; ++b) inner *= cur[b];
      const bool first = p == 0, last = p == n_passes_ - 1;
      C* next = last ? nullptr : buf[p % 2];
      if (first && last)
        AMP_RETURN_IF_ERROR(
            launch_pass(in, out, outer, cur[a], inner, a, fill, roi, param, stream));
      else if (first)
        AMP_RETURN_IF_ERROR(
            launch_pass(in, next, outer, cur[a], inner, a, fill, roi, param, stream));
      else if (last)
        AMP_RETURN_IF_ERROR(
            launch_pass(prev, out, outer, cur[a], inner, a, fill, roi, param, stream));
      else
        AMP_RETURN_IF_ERROR(
            launch_pass(prev, next, outer, cur[a], inner, a, fill, roi, param, stream));
      cur[a] = st_.out_dims[a];
      prev = next;
    }
    return Status::ok();
  }

  ResizeStatic st_;
  AxisSpecs specs_;  // resolved when resolved_, else in/out only
  DType dtype_ = DType::kF32;
  size_t param_index_ = 2;
  int64_t numel_ = 0;
  size_t elem_ = 0;
  uint64_t fill_ = 0;  // extrapolation_value as one storage element
  int cap_[kMaxRank] = {};
  bool identity_[kMaxRank] = {};
  int order_[kMaxRank] = {};
  int n_passes_ = 0;
  size_t scratch_bytes_ = 0;  // one intermediate buffer; the workspace holds two
  bool resolved_ = false;
};

}  // namespace

void register_resize_kernels(KernelRegistry& registry) {
  add_kernel_family<ResizeKernel>(registry, Backend::kCuda, resize_family());
}

}  // namespace amp::kernels::cuda
