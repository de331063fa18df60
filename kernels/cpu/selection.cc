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
#include "kernels/cpu/nms_overlap.h"

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

// NonMaxSuppression: per batch, every box is decoded once; per class, the scores are read
// once, the candidates above the score threshold sorted by rank, and each tested against the
// boxes kept so far, filed by x (nms_overlap.h). The same boxes in the same order as testing
// every kept box one at a time, which took 360 ms on SSDlite's 27,000 candidates.
class NmsKernel : public SetupKernel<NmsPlan, check_nms_io> {
 public:
  // The kept boxes' index, then the candidates' order, the batch's boxes and a class's scores.
  size_t workspace_bytes() const override {
    const size_t n = static_cast<size_t>(setup_.boxes);
    return NmsKeptBoxes::workspace_bytes(setup_.boxes) +
           n * (sizeof(int64_t) + sizeof(NmsBox) + sizeof(float));
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
    NmsKeptBoxes kept(a.workspace, p.boxes);
    char* rest = static_cast<char*>(a.workspace) + NmsKeptBoxes::workspace_bytes(p.boxes);
    int64_t* order = reinterpret_cast<int64_t*>(rest);
    NmsBox* boxes = reinterpret_cast<NmsBox*>(order + p.boxes);
    float* score = reinterpret_cast<float*>(boxes + p.boxes);
    int64_t* y = a.output<int64_t>(0);
    int64_t count = 0;
    for (int64_t b = 0; b < p.batches; ++b) {
      for (int64_t s = 0; s < p.boxes; ++s) {
        const int64_t base = (b * p.boxes + s) * 4;
        auto v = [&](int k) {
          return static_cast<float>(load_as_double(a.inputs[0], p.dtype, base + k));
        };
        boxes[s] = nms_box(v(0), v(1), v(2), v(3), p.center_point_box);
      }
      for (int64_t c = 0; c < p.classes; ++c) {
        int64_t n = 0;
        for (int64_t s = 0; s < p.boxes; ++s) {
          score[s] = static_cast<float>(
              load_as_double(a.inputs[1], p.dtype, (b * p.classes + c) * p.boxes + s));
          if (!p.has_score || score[s] > score_min) order[n++] = s;
        }
        std::sort(order, order + n,
                  [&](int64_t i, int64_t j) { return nms_before(score[i], i, score[j], j); });
        kept.reset(boxes, order, n);
        int64_t kept_count = 0;
        for (int64_t k = 0; k < n && kept_count < max_per_class; ++k) {
          const int64_t s = order[k];
          if (kept.suppresses(boxes[s], iou)) continue;
          if (count >= p.capacity)
            return internal_error("NonMaxSuppression: more boxes than planned");
          if (!kept.add(boxes[s])) return internal_error("NonMaxSuppression: workspace full");
          y[count * 3] = b;
          y[count * 3 + 1] = c;
          y[count * 3 + 2] = s;
          ++count;
          ++kept_count;
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
