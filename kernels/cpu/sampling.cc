// GridSample and RoiAlign on the CPU: plain loops over the shared sampling rules
// (kernels/common/sampling_plan.h), in fp32 (f64 for f64). GridSample works out the taps of
// each output location once and applies them to every channel; RoiAlign computes each
// (box, channel) plane's bins. Both run in parallel over those units.
#include <string>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/common/sampling_plan.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class GridSampleKernel : public CheckedKernel<T, GridSamplePlan, check_grid_sample_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const GridSamplePlan& p = this->shape_;
    using C = compute_t<T>;
    const T* x = a.input<T>(0);
    const void* grid = a.inputs[1];
    T* y = a.output<T>(0);
    const int taps = p.mode == graph::GridSampleAttrs::kNearest ? 1 : 1 << p.spatial;
    parallel_for(
        p.batch * p.out_plane, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t loc = begin; loc < end; ++loc) {
            const int64_t n = loc / p.out_plane, o = loc % p.out_plane;
            GridAxisTaps<C> t[3];
            grid_sample_taps(p, grid, loc, t);
            for (int64_t c = 0; c < p.channels; ++c) {
              const int64_t plane = n * p.channels + c;
              const T* xp = x + plane * p.in_plane;
              y[plane * p.out_plane + o] = from_compute<T>(
                  grid_sample_value(p, t, [&](int64_t i) { return to_compute(xp[i]); }));
            }
          }
        },
        grain_for(p.channels * taps));
    return Status::ok();
  }
};

template <typename T>
class RoiAlignKernel : public CheckedKernel<T, RoiAlignPlan, check_roi_align_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const RoiAlignPlan& p = this->shape_;
    using C = compute_t<T>;
    const T* x = a.input<T>(0);
    const void* rois = a.inputs[1];
    const int64_t* batch_index = a.input<int64_t>(2);
    T* y = a.output<T>(0);
    for (int64_t r = 0; r < p.rois; ++r)
      if (batch_index[r] < 0 || batch_index[r] >= p.batch)
        return invalid_input("RoiAlign: batch index " + std::to_string(batch_index[r]) +
                             " of box " + std::to_string(r) + " is outside [0, " +
                             std::to_string(p.batch) + ")");
    const int64_t bins = p.out_h * p.out_w;
    parallel_for(
        p.rois * p.channels, a.num_threads,
        [&](int64_t begin, int64_t end) {
          for (int64_t plane = begin; plane < end; ++plane) {
            const int64_t r = plane / p.channels, c = plane % p.channels;
            const RoiBox<C> box = roi_box<C>(p, rois, r);
            const T* xp = x + (batch_index[r] * p.channels + c) * p.height * p.width;
            T* yp = y + plane * bins;
            for (int64_t ph = 0; ph < p.out_h; ++ph)
              for (int64_t pw = 0; pw < p.out_w; ++pw)
                yp[ph * p.out_w + pw] = from_compute<T>(
                    roi_bin_value(p, box, ph, pw, [&](int64_t i) { return to_compute(xp[i]); }));
          }
        },
        grain_for(bins * 16));
    return Status::ok();
  }
};

}  // namespace

void register_sampling_kernels(KernelRegistry& r) {
  add_typed_kernels<GridSampleKernel>(r, graph::OpType::kGridSample, Backend::kCpu,
                                      reduction::FloatTypes{});
  add_typed_kernels<RoiAlignKernel>(r, graph::OpType::kRoiAlign, Backend::kCpu,
                                    reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
