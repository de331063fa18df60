// CUDA Pad(data, pads, constant_value?, axes?) with mode constant | reflect | edge | wrap,
// mirroring kernels/cpu/movement_pad.cc: negative pads crop; reflect and wrap repeat as
// numpy.pad does when a pad exceeds the axis.
//
// One thread per output element: per axis, pad_source() maps the output coordinate to an
// input coordinate or to "the constant" (kernels/common/pad_plan.h). The begin pads come from
// prepare() when pads and axes are constants; otherwise thread 0 of each block resolves them
// from the device tensors into shared memory (the host's pad_resolve()). Run-time pads that do
// not give the static output shape (the CPU's invalid_input) write zeros. constant_value is
// read on the device (absent: zero bytes).
#include <cstring>

#include "kernels/common/pad_plan.h"
#include "kernels/cuda/movement_cuda.h"
#include "runtime/common/host_device.h"

namespace amp::kernels::cuda {
namespace {

// What the kernel needs: the node's static facts and, with constant pads, the begin pads.
struct PadParams {
  PadStatic p;
  int64_t begin[kPadMaxRank] = {};
};

template <typename E>
__global__ void pad_kernel(const E* src, E* dst, int64_t n, PadParams p, const void* pads,
                           const void* axes, const E* cval_ptr) {
  __shared__ int64_t sh_begin[kPadMaxRank];
  __shared__ int sh_ok;
  if (threadIdx.x == 0) {
    if (pads != nullptr) {
      int64_t end[kPadMaxRank];
      sh_ok = pad_resolve(p.p, pads, axes, sh_begin, end) < 0;
    } else {
      for (int a = 0; a < p.p.rank; ++a) sh_begin[a] = p.begin[a];
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
    for (int a = p.p.rank - 1; a >= 0; --a) {
      const int64_t q = rem / p.p.out_dims[a];
      const int64_t o = rem - q * p.p.out_dims[a];
      rem = q;
      const int64_t s = pad_source(p.p.mode, o, sh_begin[a], p.p.in_dims[a]);
      constant = constant || s < 0;
      off += s * in_stride;
      in_stride *= p.p.in_dims[a];
    }
    dst[i] = constant ? cval : src[off];
  }
}

class PadKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(const PadSetup setup, check_pad_io(cfg));
    AMP_RETURN_IF_ERROR(check_max_rank(cfg.inputs[0], "Pad input"));
    p_ = PadParams{};
    p_.p = setup.p;
    elem_ = setup.elem_size;
    numel_ = setup.numel;
    has_value_ = setup.has_value;
    resolved_ = setup.pads_constant;
    if (resolved_) {
      int64_t end[kPadMaxRank];
      AMP_RETURN_IF_ERROR(resolve_constant_pads(cfg, setup.p, p_.begin, end));
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    if (numel_ == 0) return Status::ok();
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    const void* pads = resolved_ ? nullptr : a.inputs[1];
    const void* axes = !resolved_ && p_.p.has_axes ? a.inputs[3] : nullptr;
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
  add_any_dtype_kernel<PadKernel>(r, graph::OpType::kPad, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
