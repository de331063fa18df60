// CUDA Pad(data, pads, constant_value?, axes?) with mode constant | reflect | edge | wrap,
// mirroring kernels/cpu/movement_pad.cc: negative pads crop; reflect and wrap repeat as
// numpy.pad does when a pad exceeds the axis.
//
// One thread per output element: per axis, pad_source() maps the output coordinate to an
// input coordinate or to "the constant". The begin pads come from prepare() when pads and
// axes are constants; otherwise thread 0 of each block resolves them from the device
// tensors into shared memory (the same pad_resolve() as the host). Run-time pads that do
// not give the static output shape (the CPU's invalid_input) write zeros. constant_value is
// read on the device (absent: zero bytes).
#include <cstring>

#include "kernels/cuda/movement_cuda.h"
#include "runtime/common/host_device.h"

namespace amp::kernels::cuda {
namespace {

enum PadMode : int { kConstant, kReflect, kEdge, kWrap };

struct PadParams {
  int mode = kConstant;
  int rank = 0;
  int n_axes = 0;
  DType pads_dtype = DType::kI64;
  DType axes_dtype = DType::kI64;
  bool has_axes = false;
  int64_t in_dims[kMaxRank] = {};
  int64_t out_dims[kMaxRank] = {};
  int64_t begin[kMaxRank] = {};  // resolved begin pads (constant pads)
};

// Source index of output position o (begin pad b, input size n), or -1 for the constant.
// Always inside [0, n) or -1, whatever b is.
AMP_HOST_DEVICE int64_t pad_source(int mode, int64_t o, int64_t b, int64_t n) {
  const int64_t i = o - b;
  if (i >= 0 && i < n) return i;
  if (n <= 0) return -1;
  switch (mode) {
    case kEdge:
      return i < 0 ? 0 : n - 1;
    case kWrap:
      return ((i % n) + n) % n;
    case kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      const int64_t m = ((i % period) + period) % period;
      return m < n ? m : period - m;
    }
    default:
      return -1;
  }
}

AMP_HOST_DEVICE int64_t read_index(const void* p, DType t, int i) {
  return t == DType::kI32 ? static_cast<int64_t>(static_cast<const int32_t*>(p)[i])
                          : static_cast<const int64_t*>(p)[i];
}

// Reads pads (and axes) into begin[]; returns -1 on success, else the offending axis (or
// rank + entry for a bad axes entry).
AMP_HOST_DEVICE int pad_resolve(const PadParams& p, const void* pads, const void* axes,
                                int64_t* begin) {
  int64_t end[kMaxRank];
  bool seen[kMaxRank];
  for (int a = 0; a < p.rank; ++a) {
    begin[a] = 0;
    end[a] = 0;
    seen[a] = false;
  }
  for (int i = 0; i < p.n_axes; ++i) {
    const int64_t ax = p.has_axes ? read_index(axes, p.axes_dtype, i) : i;
    const int64_t a = ax < -p.rank || ax >= p.rank ? -1 : (ax < 0 ? ax + p.rank : ax);
    if (a < 0 || seen[a]) return p.rank + i;
    seen[a] = true;
    begin[a] = read_index(pads, p.pads_dtype, i);
    end[a] = read_index(pads, p.pads_dtype, i + p.n_axes);
  }
  for (int a = 0; a < p.rank; ++a) {
    if (p.in_dims[a] + begin[a] + end[a] != p.out_dims[a]) return a;
    if (p.in_dims[a] == 0 && p.out_dims[a] > 0 && p.mode != kConstant) return a;
  }
  return -1;
}

template <typename E>
__global__ void pad_kernel(const E* src, E* dst, int64_t n, PadParams p, const void* pads,
                           const void* axes, const E* cval_ptr) {
  __shared__ int64_t sh_begin[kMaxRank];
  __shared__ int sh_ok;
  if (threadIdx.x == 0) {
    if (pads != nullptr) {
      sh_ok = pad_resolve(p, pads, axes, sh_begin) < 0;
    } else {
      for (int a = 0; a < p.rank; ++a) sh_begin[a] = p.begin[a];
      sh_ok = 1;
    }
  }
  __syncthreads();
  const bool ok = sh_ok != 0;
  const E cval = cval_ptr != nullptr ? *cval_ptr : E{};
  for (int64_t i = thread_index(); i < n; i += grid_stride()) {
    if (!ok) {
      dst[i] = E{};
      continue;
    }
    int64_t rem = i, off = 0, in_stride = 1;
    bool constant = false;
    for (int a = p.rank - 1; a >= 0; --a) {
      const int64_t q = rem / p.out_dims[a];
      const int64_t o = rem - q * p.out_dims[a];
      rem = q;
      const int64_t s = pad_source(p.mode, o, sh_begin[a], p.in_dims[a]);
      constant = constant || s < 0;
      off += s * in_stride;
      in_stride *= p.in_dims[a];
    }
    dst[i] = constant ? cval : src[off];
  }
}

class PadKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_io(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    AMP_RETURN_IF_ERROR(check_max_rank(in, "Pad input"));
    if (in.rank() != out.rank() || in.dtype != out.dtype)
      return invalid_model("Pad: output " + dims_to_string(out.dims) +
                           " does not match the input's rank or dtype");
    p_ = PadParams{};
    AMP_ASSIGN_OR_RETURN(std::string mode, node_attrs(cfg).get_string("mode", "constant"));
    if (mode == "constant")
      p_.mode = kConstant;
    else if (mode == "reflect")
      p_.mode = kReflect;
    else if (mode == "edge")
      p_.mode = kEdge;
    else if (mode == "wrap")
      p_.mode = kWrap;
    else
      return unsupported("Pad: mode '" + mode + "'");
    p_.rank = static_cast<int>(in.rank());
    for (int a = 0; a < p_.rank; ++a) {
      p_.in_dims[a] = in.dims[static_cast<size_t>(a)];
      p_.out_dims[a] = out.dims[static_cast<size_t>(a)];
    }
    elem_ = dtype_size(in.dtype);
    numel_ = out.numel();

    if (cfg.inputs.size() < 2 || !cfg.inputs[1].present) return invalid_model("Pad: needs pads");
    const TensorDesc& pads = cfg.inputs[1];
    if (pads.dtype != DType::kI64 && pads.dtype != DType::kI32)
      return invalid_model("Pad: pads must be i64");
    p_.pads_dtype = pads.dtype;
    const bool has_axes = cfg.inputs.size() > 3 && cfg.inputs[3].present;
    int64_t n_axes = p_.rank;
    if (has_axes) {
      const TensorDesc& axes = cfg.inputs[3];
      if (axes.dtype != DType::kI64 && axes.dtype != DType::kI32)
        return invalid_model("Pad: axes must be i32 or i64");
      n_axes = axes.numel();
      p_.axes_dtype = axes.dtype;
    }
    if (n_axes > p_.rank || pads.numel() != 2 * n_axes)
      return invalid_model("Pad: pads has " + std::to_string(pads.numel()) + " entries for " +
                           std::to_string(n_axes) + " axes of a rank-" + std::to_string(p_.rank) +
                           " input");
    p_.n_axes = static_cast<int>(n_axes);
    p_.has_axes = has_axes;
    has_value_ = false;
    if (cfg.inputs.size() > 2 && cfg.inputs[2].present) {
      const TensorDesc& cv = cfg.inputs[2];
      if (cv.dtype != in.dtype)
        return invalid_model("Pad: constant_value dtype " + std::string(dtype_name(cv.dtype)) +
                             " differs from the data's " + std::string(dtype_name(in.dtype)));
      if (cv.numel() > 1) return invalid_model("Pad: constant_value must be a scalar");
      has_value_ = cv.numel() == 1;
    }
    resolved_ = false;
    if (pads.constant_data && (!has_axes || cfg.inputs[3].constant_data)) {
      const int bad = pad_resolve(p_, pads.constant_data,
                                  has_axes ? cfg.inputs[3].constant_data : nullptr, p_.begin);
      if (bad >= p_.rank)
        return invalid_model("Pad: axes entry " + std::to_string(bad - p_.rank) +
                             " is out of range or repeated for rank " + std::to_string(p_.rank));
      if (bad >= 0)
        return invalid_model("Pad: axis " + std::to_string(bad) + " of size " +
                             std::to_string(p_.in_dims[bad]) + " padded by (" +
                             std::to_string(p_.begin[bad]) + ", ...) does not give the output's " +
                             std::to_string(p_.out_dims[bad]) +
                             " (or an empty axis is padded in a non-constant mode)");
      resolved_ = true;
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    if (numel_ == 0) return Status::ok();
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    const void* pads = resolved_ ? nullptr : a.inputs[1];
    const void* axes = !resolved_ && p_.has_axes ? a.inputs[3] : nullptr;
    const void* cval = has_value_ ? a.inputs[2] : nullptr;
    const unsigned blocks = grid_for(numel_);
    switch (elem_) {
      case 1:
        pad_kernel<uint8_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint8_t>(0), a.output<uint8_t>(0), numel_, p_,
                                              pads, axes, static_cast<const uint8_t*>(cval));
        break;
      case 2:
        pad_kernel<uint16_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint16_t>(0), a.output<uint16_t>(0), numel_,
                                              p_, pads, axes, static_cast<const uint16_t*>(cval));
        break;
      case 4:
        pad_kernel<uint32_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint32_t>(0), a.output<uint32_t>(0), numel_,
                                              p_, pads, axes, static_cast<const uint32_t*>(cval));
        break;
      case 8:
        pad_kernel<uint64_t>
            <<<blocks, kThreads, 0, stream>>>(a.input<uint64_t>(0), a.output<uint64_t>(0), numel_,
                                              p_, pads, axes, static_cast<const uint64_t*>(cval));
        break;
      default:
        return internal_error("Pad: element size " + std::to_string(elem_));
    }
    return launch_status("pad_kernel");
  }

 private:
  PadParams p_;
  size_t elem_ = 0;
  int64_t numel_ = 0;
  bool has_value_ = false;
  bool resolved_ = false;
};

}  // namespace

void register_pad_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kPad, Backend::kCuda, all_dtypes(),
            [] { return std::make_unique<PadKernel>(); });
}

}  // namespace amp::kernels::cuda
