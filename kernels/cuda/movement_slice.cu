// CUDA Slice(data, starts, ends, axes?, steps?), mirroring kernels/cpu/movement_slice_gather.cc.
//
// Slice is a strided view of the input (negative steps give negative strides). With
// constant parameters prepare() resolves the view on the host and run() is one strided copy
// (movement_copy.cu). With parameters computed at run time they are on the device, so the
// kernel resolves them itself: thread 0 of each block runs the host's slice_resolve()
// (kernels/common/slice_plan.h) into shared memory, then every thread gathers. A run-time slice
// that does not give the static output shape (the CPU's invalid_input) writes zeros: no read leaves
// the input.
#include <cstring>

#include "kernels/common/slice_plan.h"
#include "kernels/cuda/movement_cuda.h"
#include "runtime/common/host_device.h"

namespace amp::kernels::cuda {
namespace {

template <typename E>
__global__ void slice_runtime_kernel(const E* src, E* dst, int64_t n, SliceStatic s,
                                     const void* starts, const void* ends, const void* axes,
                                     const void* steps) {
  __shared__ int64_t sh_base;
  __shared__ int64_t sh_strides[kSliceMaxRank];
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
    AMP_ASSIGN_OR_RETURN(const SliceSetup setup, check_slice_io(cfg));
    AMP_RETURN_IF_ERROR(check_max_rank(cfg.inputs[0], "Slice input"));
    s_ = setup.s;
    elem_ = setup.elem_size;
    numel_ = setup.numel;
    resolved_ = setup.all_constant;
    if (resolved_) {
      AMP_ASSIGN_OR_RETURN(const SliceView v, resolve_constant_slice(cfg, s_));
      plan_ = make_copy_plan(s_.rank, s_.out_dims, v.strides, v.base);
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
  SliceStatic s_;
  size_t elem_ = 0;
  int64_t numel_ = 0;
  bool resolved_ = false;
  CopyPlan plan_;
};

}  // namespace

void register_slice_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<SliceKernel>(r, graph::OpType::kSlice, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
