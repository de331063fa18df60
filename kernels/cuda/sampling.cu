// GridSample and RoiAlign on the GPU, mirroring kernels/cpu/sampling.cc through the shared
// sampling rules (kernels/common/sampling_plan.h): one thread per output element, which works
// out its own taps (GridSample) or loops over its bin's samples (RoiAlign). A box whose batch
// index is outside [0, N) gets zeros here; the CPU reports it. Not tuned: neighbouring
// channels recompute the same taps.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/sampling_plan.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

// y [N, C, O...]: element ((n * C + c) * out_plane + o).
template <typename T>
__global__ void grid_sample_kernel(const T* __restrict__ x, const void* __restrict__ grid,
                                   T* __restrict__ y, GridSamplePlan p, int64_t total) {
  using C = compute_t<T>;
  for (int64_t i = thread_index(); i < total; i += grid_stride()) {
    const int64_t o = i % p.out_plane, plane = i / p.out_plane;
    const int64_t n = plane / p.channels;
    GridAxisTaps<C> t[3];
    grid_sample_taps(p, grid, n * p.out_plane + o, t);
    const T* xp = x + plane * p.in_plane;
    y[i] = from_compute<T>(grid_sample_value(p, t, [&](int64_t k) { return to_compute(xp[k]); }));
  }
}

// y [R, C, out_h, out_w]: element (((r * C + c) * out_h + ph) * out_w + pw).
template <typename T>
__global__ void roi_align_kernel(const T* __restrict__ x, const void* __restrict__ rois,
                                 const int64_t* __restrict__ batch_index, T* __restrict__ y,
                                 RoiAlignPlan p, int64_t total) {
  using C = compute_t<T>;
  for (int64_t i = thread_index(); i < total; i += grid_stride()) {
    const int64_t pw = i % p.out_w, ph = (i / p.out_w) % p.out_h;
    const int64_t plane = i / (p.out_w * p.out_h);
    const int64_t r = plane / p.channels, c = plane % p.channels;
    const int64_t b = batch_index[r];
    if (b < 0 || b >= p.batch) {
      y[i] = from_compute<T>(C(0));
      continue;
    }
    const RoiBox<C> box = roi_box<C>(p, rois, r);
    const T* xp = x + (b * p.channels + c) * p.height * p.width;
    y[i] = from_compute<T>(
        roi_bin_value(p, box, ph, pw, [&](int64_t k) { return to_compute(xp[k]); }));
  }
}

template <typename T>
class GridSampleKernel : public CheckedKernel<T, GridSamplePlan, check_grid_sample_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const GridSamplePlan& p = this->shape_;
    const int64_t total = p.batch * p.channels * p.out_plane;
    if (total == 0) return Status::ok();
    grid_sample_kernel<T><<<grid_for(total), kThreads, 0, stream_of(a)>>>(
        a.input<T>(0), a.inputs[1], a.output<T>(0), p, total);
    return launch_status("grid_sample_kernel");
  }
};

template <typename T>
class RoiAlignKernel : public CheckedKernel<T, RoiAlignPlan, check_roi_align_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const RoiAlignPlan& p = this->shape_;
    const int64_t total = p.rois * p.channels * p.out_h * p.out_w;
    if (total == 0) return Status::ok();
    roi_align_kernel<T><<<grid_for(total), kThreads, 0, stream_of(a)>>>(
        a.input<T>(0), a.inputs[1], a.input<int64_t>(2), a.output<T>(0), p, total);
    return launch_status("roi_align_kernel");
  }
};

}  // namespace

void register_sampling_kernels(KernelRegistry& r) {
  add_typed_kernels<GridSampleKernel>(r, graph::OpType::kGridSample, Backend::kCuda,
                                      reduction::FloatTypes{});
  add_typed_kernels<RoiAlignKernel>(r, graph::OpType::kRoiAlign, Backend::kCuda,
                                    reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
