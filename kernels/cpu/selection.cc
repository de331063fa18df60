// NonZero, Compress and NonMaxSuppression on the CPU (kernels/common/selection_plan.h): each
// counts what it selects, writes output 0 densely for that count and reports it through
// KernelArgs::dynamic_size. Serial loops: their outputs are small next to the models' other
// tensors (index lists, detector boxes).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/element_access.h"
#include "kernels/common/kernel_families.h"
#include "kernels/common/selection_plan.h"
#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

class NonZeroKernel : public SetupKernel<NonZeroPlan, check_non_zero_io> {
 public:
  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(check_size_channel(a, "NonZero"));
    const NonZeroPlan& p = setup_;
    int64_t count = 0;
    for (int64_t e = 0; e < p.numel; ++e) count += load_as_double(a.inputs[0], p.dtype, e) != 0.0;
    if (count > p.capacity) return internal_error("NonZero: more elements than planned");
    int64_t* y = a.output<int64_t>(0);
    int64_t k = 0;
    for (int64_t e = 0; e < p.numel; ++e) {
      if (load_as_double(a.inputs[0], p.dtype, e) == 0.0) continue;
      int64_t rest = e;
      for (int d = p.rank - 1; d >= 0; --d) {
        y[d * count + k] = rest % p.dims[d];
        rest /= p.dims[d];
      }
      ++k;
    }
    *a.dynamic_size = count;
    return Status::ok();
  }
};

class CompressKernel : public SetupKernel<CompressPlan, check_compress_io> {
 public:
  size_t workspace_bytes() const override {
    return static_cast<size_t>(setup_.len) * sizeof(int64_t);
  }

  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(check_size_channel(a, "Compress"));
    const CompressPlan& p = setup_;
    const uint8_t* cond = a.input<uint8_t>(1);
    int64_t* picked = static_cast<int64_t*>(a.workspace);
    int64_t count = 0;
    for (int64_t j = 0; j < std::min(p.len, p.cond_len); ++j)
      if (cond[j] != 0) picked[count++] = j;
    if (count > p.capacity) return internal_error("Compress: more slices than planned");
    const size_t block = static_cast<size_t>(p.inner) * p.elem_size;
    const uint8_t* x = a.input<uint8_t>(0);
    uint8_t* y = a.output<uint8_t>(0);
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t k = 0; k < count; ++k)
        std::memcpy(y + static_cast<size_t>(o * count + k) * block,
                    x + static_cast<size_t>(o * p.len + picked[k]) * block, block);
    *a.dynamic_size = count;
    return Status::ok();
  }
};

class NmsKernel : public SetupKernel<NmsPlan, check_nms_io> {
 public:
  // Per class: the candidates in rank order.
  size_t workspace_bytes() const override {
    return static_cast<size_t>(setup_.boxes) * sizeof(int64_t);
  }

  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(check_size_channel(a, "NonMaxSuppression"));
    const NmsPlan& p = setup_;
    const int64_t max_per_class =
        !p.has_max ? 0 : (p.max_runtime ? *a.input<int64_t>(2) : p.max_per_class);
    const float iou =
        static_cast<float>(p.iou_runtime ? load_as_double(a.inputs[3], p.iou_dtype, 0) : p.iou);
    const float score_min = static_cast<float>(
        p.score_runtime ? load_as_double(a.inputs[4], p.score_dtype, 0) : p.score);
    int64_t* order = static_cast<int64_t*>(a.workspace);
    int64_t* y = a.output<int64_t>(0);
    int64_t count = 0;
    auto score_of = [&](int64_t b, int64_t c, int64_t s) {
      return static_cast<float>(
          load_as_double(a.inputs[1], p.dtype, (b * p.classes + c) * p.boxes + s));
    };
    auto box_of = [&](int64_t b, int64_t s) {
      const int64_t base = (b * p.boxes + s) * 4;
      auto v = [&](int k) {
        return static_cast<float>(load_as_double(a.inputs[0], p.dtype, base + k));
      };
      return nms_box(v(0), v(1), v(2), v(3), p.center_point_box);
    };
    for (int64_t b = 0; b < p.batches; ++b) {
      for (int64_t c = 0; c < p.classes; ++c) {
        int64_t n = 0;
        for (int64_t s = 0; s < p.boxes; ++s)
          if (!p.has_score || score_of(b, c, s) > score_min) order[n++] = s;
        std::sort(order, order + n, [&](int64_t i, int64_t j) {
          return nms_before(score_of(b, c, i), i, score_of(b, c, j), j);
        });
        const int64_t first = count;
        for (int64_t k = 0; k < n && count - first < max_per_class; ++k) {
          const NmsBox cand = box_of(b, order[k]);
          bool keep = true;
          for (int64_t q = first; q < count && keep; ++q)
            keep = !nms_suppresses(cand, box_of(b, y[q * 3 + 2]), iou);
          if (!keep) continue;
          if (count >= p.capacity)
            return internal_error("NonMaxSuppression: more boxes than planned");
          y[count * 3] = b;
          y[count * 3 + 1] = c;
          y[count * 3 + 2] = order[k];
          ++count;
        }
      }
    }
    *a.dynamic_size = count;
    return Status::ok();
  }
};

}  // namespace

void register_selection_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<NonZeroKernel>(r, graph::OpType::kNonZero, Backend::kCpu);
  add_any_dtype_kernel<CompressKernel>(r, graph::OpType::kCompress, Backend::kCpu);
  r.add_all(graph::OpType::kNonMaxSuppression, Backend::kCpu, float_dtypes(),
            make_factory<NmsKernel>());
}

}  // namespace amp::kernels::cpu
