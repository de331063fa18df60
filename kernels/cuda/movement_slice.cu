// CUDA Slice(data, starts, ends, axes?, steps?), mirroring kernels/cpu/movement_slice_gather.cc.
//
// Slice is a strided view of the input (negative steps give negative strides). With
// constant parameters prepare() resolves the view on the host and run() is one strided copy
// (movement_copy.cu). With parameters computed at run time they are on the device, so the
// kernel resolves them itself: thread 0 of each block runs the same slice_resolve() as the
// host into shared memory, then every thread gathers. A run-time slice that does not give
// the static output shape (the CPU's invalid_input) writes zeros: no read leaves the input.
#include <cstring>

#include "kernels/cuda/movement_cuda.h"
#include "runtime/common/host_device.h"

namespace amp::kernels::cuda {
namespace {

// What prepare() learns about a Slice node, passed by value to the run-time kernel.
struct SliceStatic {
  int rank = 0;
  int n = 0;  // number of sliced axes (entries of starts/ends/axes/steps)
  int64_t in_dims[kMaxRank] = {};
  int64_t out_dims[kMaxRank] = {};
  DType dtypes[5] = {};  // of inputs 1..4 (i32 or i64)
  bool has_axes = false;
  bool has_steps = false;
};

// Why a slice does not resolve (host messages); kSliceOk when it does.
enum SliceError : int {
  kSliceOk = 0,
  kSliceBadAxis,        // axes entry out of range or repeated
  kSliceZeroStep,       // a steps entry is 0
  kSliceCountMismatch,  // an axis gives another length than the output's
  kSliceUnslicedAxis,   // an axis not sliced changes size
};

AMP_HOST_DEVICE int64_t read_index(const void* p, DType t, int i) {
  return t == DType::kI32 ? static_cast<int64_t>(static_cast<const int32_t*>(p)[i])
                          : static_cast<const int64_t*>(p)[i];
}

AMP_HOST_DEVICE int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// ONNX Slice (the CPU's resolve): negative starts/ends count from the end; then clamp to
// [0, d] for positive steps and [-1, d-1] (start [0, d-1]) for negative ones. Writes the
// view's base and per-axis strides over out_dims, or returns the error and, in *bad_axis,
// the axis concerned.
AMP_HOST_DEVICE int slice_resolve(const SliceStatic& s, const void* starts_p, const void* ends_p,
                                  const void* axes_p, const void* steps_p, int64_t* base_out,
                                  int64_t* strides, int* bad_axis) {
  int64_t in_strides[kMaxRank];
  int64_t st = 1;
  for (int a = s.rank - 1; a >= 0; --a) {
    in_strides[a] = st;
    st *= s.in_dims[a];
  }
  bool seen[kMaxRank];
  for (int a = 0; a < s.rank; ++a) {
    seen[a] = false;
    strides[a] = in_strides[a];
  }
  int64_t base = 0;
  for (int i = 0; i < s.n; ++i) {
    const int64_t axis = s.has_axes ? read_index(axes_p, s.dtypes[3], i) : i;
    const int64_t a = axis < -s.rank || axis >= s.rank ? -1 : (axis < 0 ? axis + s.rank : axis);
    *bad_axis = static_cast<int>(a < 0 ? i : a);
    if (a < 0 || seen[a]) return kSliceBadAxis;
    seen[a] = true;
    const int64_t d = s.in_dims[a];
    const int64_t step = s.has_steps ? read_index(steps_p, s.dtypes[4], i) : 1;
    if (step == 0) return kSliceZeroStep;
    int64_t start = read_index(starts_p, s.dtypes[1], i);
    int64_t end = read_index(ends_p, s.dtypes[2], i);
    int64_t count = 0;
    if (start < 0) start = start < -d ? -1 : start + d;  // avoids overflow near INT64_MIN
    if (end < 0) end = end < -d ? -1 : end + d;
    if (step > 0) {
      start = clamp64(start, 0, d);
      end = clamp64(end, 0, d);
      if (end > start) count = (end - start - 1) / step + 1;
    } else {
      start = clamp64(start, 0, d - 1 > 0 ? d - 1 : 0);
      end = clamp64(end, -1, d - 1);
      if (start > end && d > 0) {
        const uint64_t span = static_cast<uint64_t>(start - end);
        const uint64_t stride = 0 - static_cast<uint64_t>(step);
        count = static_cast<int64_t>((span - 1) / stride + 1);
      }
    }
    if (count != s.out_dims[a]) return kSliceCountMismatch;
    if (count > 0) base += start * in_strides[a];
    strides[a] = in_strides[a] * step;
  }
  for (int a = 0; a < s.rank; ++a) {
    if (!seen[a] && s.out_dims[a] != s.in_dims[a]) {
      *bad_axis = a;
      return kSliceUnslicedAxis;
    }
  }
  *base_out = base;
  return kSliceOk;
}

template <typename E>
__global__ void slice_runtime_kernel(const E* src, E* dst, int64_t n, SliceStatic s,
                                     const void* starts, const void* ends, const void* axes,
                                     const void* steps) {
  __shared__ int64_t sh_base;
  __shared__ int64_t sh_strides[kMaxRank];
  __shared__ int sh_ok;
  if (threadIdx.x == 0) {
    int bad_axis = 0;
    sh_ok =
        slice_resolve(s, starts, ends, axes, steps, &sh_base, sh_strides, &bad_axis) == kSliceOk;
  }
  __syncthreads();
  const bool ok = sh_ok != 0;
  const int64_t base = sh_base;
  for (int64_t i = thread_index(); i < n; i += grid_stride()) {
    if (!ok) {
      dst[i] = E{};
      continue;
    }
    int64_t rem = i, off = base;
    for (int a = s.rank - 1; a >= 0; --a) {
      const int64_t q = rem / s.out_dims[a];
      off += (rem - q * s.out_dims[a]) * sh_strides[a];
      rem = q;
    }
    dst[i] = src[off];
  }
}

class SliceKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.size() < 3) return invalid_model("Slice: needs data, starts and ends");
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Slice input"));
    if (out.rank() != in.rank() || out.dtype != in.dtype)
      return invalid_model("Slice: output " + dims_to_string(out.dims) +
                           " does not match the input's rank or dtype");
    s_ = SliceStatic{};
    s_.rank = static_cast<int>(in.rank());
    for (int a = 0; a < s_.rank; ++a) {
      s_.in_dims[a] = in.dims[static_cast<size_t>(a)];
      s_.out_dims[a] = out.dims[static_cast<size_t>(a)];
    }
    elem_ = dtype_size(in.dtype);
    numel_ = out.numel();
    const int64_t n = cfg.inputs[1].numel();
    if (!cfg.inputs[1].present || !cfg.inputs[2].present || cfg.inputs[1].rank() != 1 ||
        cfg.inputs[2].rank() != 1 || cfg.inputs[2].numel() != n)
      return invalid_model("Slice: starts and ends must be 1-D of one length");
    if (n > s_.rank)
      return invalid_model("Slice: " + std::to_string(n) + " starts for rank " +
                           std::to_string(s_.rank));
    s_.n = static_cast<int>(n);
    bool all_const = true;
    for (size_t i = 1; i < 5; ++i) {
      const bool given = i < cfg.inputs.size() && cfg.inputs[i].present;
      if (i >= 3 && !given) continue;
      const TensorDesc& t = cfg.inputs[i];
      if (t.dtype != DType::kI64 && t.dtype != DType::kI32)
        return invalid_model("Slice: input " + std::to_string(i) + " must be i32 or i64");
      if (t.rank() != 1 || t.numel() != n)
        return invalid_model("Slice: input " + std::to_string(i) + " has shape " +
                             dims_to_string(t.dims) + ", expected [" + std::to_string(n) + "]");
      s_.dtypes[i] = t.dtype;
      all_const = all_const && t.constant_data != nullptr;
    }
    s_.has_axes = cfg.inputs.size() > 3 && cfg.inputs[3].present;
    s_.has_steps = cfg.inputs.size() > 4 && cfg.inputs[4].present;
    resolved_ = false;
    if (all_const) {
      int64_t base = 0, strides[kMaxRank];
      int bad_axis = 0;
      const int err = slice_resolve(s_, cfg.inputs[1].constant_data, cfg.inputs[2].constant_data,
                                    s_.has_axes ? cfg.inputs[3].constant_data : nullptr,
                                    s_.has_steps ? cfg.inputs[4].constant_data : nullptr, &base,
                                    strides, &bad_axis);
      if (err != kSliceOk) return invalid_model(describe(err, bad_axis));
      plan_ = make_copy_plan(s_.rank, s_.out_dims, strides, base);
      resolved_ = true;
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    if (resolved_) return launch_copy_plan(plan_, a.inputs[0], a.outputs[0], elem_, stream);
    if (numel_ == 0) return Status::ok();
    const void* axes = s_.has_axes ? a.inputs[3] : nullptr;
    const void* steps = s_.has_steps ? a.inputs[4] : nullptr;
    const unsigned blocks = grid_for(numel_);
    switch (elem_) {
      case 1:
        slice_runtime_kernel<uint8_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint8_t>(0), a.output<uint8_t>(0), numel_, s_,
                                              a.inputs[1], a.inputs[2], axes, steps);
        break;
      case 2:
        slice_runtime_kernel<uint16_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint16_t>(0), a.output<uint16_t>(0), numel_,
                                              s_, a.inputs[1], a.inputs[2], axes, steps);
        break;
      case 4:
        slice_runtime_kernel<uint32_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint32_t>(0), a.output<uint32_t>(0), numel_,
                                              s_, a.inputs[1], a.inputs[2], axes, steps);
        break;
      case 8:
        slice_runtime_kernel<uint64_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint64_t>(0), a.output<uint64_t>(0), numel_,
                                              s_, a.inputs[1], a.inputs[2], axes, steps);
        break;
      default:
        return internal_error("Slice: element size " + std::to_string(elem_));
    }
    return launch_status("slice_runtime_kernel");
  }

 private:
  std::string describe(int err, int axis) const {
    switch (err) {
      case kSliceBadAxis:
        return "Slice: axes entry " + std::to_string(axis) +
               " is out of range or repeated for rank " + std::to_string(s_.rank);
      case kSliceZeroStep:
        return "Slice: steps entries must be non-zero";
      case kSliceCountMismatch:
        return "Slice: axis " + std::to_string(axis) + " does not give the output shape " +
               dims_to_string(s_.rank, s_.out_dims);
      case kSliceUnslicedAxis:
        return "Slice: unsliced axis " + std::to_string(axis) + " changes size";
      default:
        return "Slice: invalid parameters";
    }
  }

  SliceStatic s_;
  size_t elem_ = 0;
  int64_t numel_ = 0;
  bool resolved_ = false;
  CopyPlan plan_;
};

}  // namespace

void register_slice_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kSlice, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<SliceKernel>(); });
}

}  // namespace amp::kernels::cuda
