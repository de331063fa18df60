// The indexed copies on the CPU (kernels/common/index_plan.h has the plans and the rules):
// GatherElements, ScatterElements, GatherND, ScatterND, OneHot, ReverseSequence. Copies move
// elements by size (one loop serves every dtype); only the scatters' reductions look at
// values. Indices are checked as they are read: an index out of range is invalid_input
// naming it. The scatters run their updates in order on one thread (duplicates must apply
// sequentially); the gathers split over threads.
#include <atomic>
#include <cstring>
#include <string>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/element_access.h"
#include "kernels/common/index_plan.h"
#include "kernels/common/kernel_families.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

Status index_error(const char* op, int64_t v, int64_t size) {
  return invalid_input(std::string(op) + ": index " + std::to_string(v) +
                       " is out of range for an axis of size " + std::to_string(size));
}

class GatherElementsKernel : public SetupKernel<ElementsPlan, check_gather_elements_io> {
 public:
  Status run(const KernelArgs& a) const override {
    return visit_element_size(setup_.elem_size, [&](auto e) -> Status {
      using E = decltype(e);
      const ElementsPlan& p = setup_;
      const E* x = a.input<E>(0);
      E* y = a.output<E>(0);
      std::atomic<int64_t> bad{0};
      std::atomic<bool> failed{false};
      parallel_for(p.n, a.num_threads, [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          int64_t v = load_index(a.inputs[1], p.idx_dtype, t);
          if (v < -p.axis_len || v >= p.axis_len) {
            bad = v;
            failed = true;
            return;
          }
          if (v < 0) v += p.axis_len;
          y[t] = x[elements_offset(p, t, v)];
        }
      });
      return failed ? index_error("GatherElements", bad, p.axis_len) : Status::ok();
    });
  }
};

class ScatterElementsKernel : public SetupKernel<ElementsPlan, check_scatter_elements_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const ElementsPlan& p = setup_;
    parallel_copy(a.outputs[0], a.inputs[0], static_cast<size_t>(p.data_numel) * p.elem_size,
                  a.num_threads);
    return visit_dtype(p.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      const T* upd = a.input<T>(2);
      T* y = a.output<T>(0);
      for (int64_t t = 0; t < p.n; ++t) {
        int64_t v = load_index(a.inputs[1], p.idx_dtype, t);
        if (v < -p.axis_len || v >= p.axis_len)
          return index_error("ScatterElements", v, p.axis_len);
        if (v < 0) v += p.axis_len;
        T& dst = y[elements_offset(p, t, v)];
        dst = scatter_combine(p.reduction, dst, upd[t]);
      }
      return Status::ok();
    });
  }
};

class GatherNdKernel : public SetupKernel<NdPlan, check_gather_nd_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const NdPlan& p = setup_;
    const int64_t* idx = a.input<int64_t>(1);
    const uint8_t* x = a.input<uint8_t>(0);
    uint8_t* y = a.output<uint8_t>(0);
    const size_t slice_bytes = static_cast<size_t>(p.slice) * p.elem_size;
    for (int64_t b = 0; b < p.batches; ++b) {
      for (int64_t j = 0; j < p.tuples; ++j) {
        const int64_t tuple = b * p.tuples + j;
        const int64_t* t = idx + tuple * p.k;
        int bad = 0;
        const int64_t off = nd_offset(p, b, t, &bad);
        if (off < 0) return index_error("GatherND", t[bad], p.dims[bad]);
        std::memcpy(y + static_cast<size_t>(tuple) * slice_bytes,
                    x + static_cast<size_t>(off) * p.elem_size, slice_bytes);
      }
    }
    return Status::ok();
  }
};

class ScatterNdKernel : public SetupKernel<NdPlan, check_scatter_nd_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const NdPlan& p = setup_;
    parallel_copy(a.outputs[0], a.inputs[0], static_cast<size_t>(p.data_numel) * p.elem_size,
                  a.num_threads);
    const int64_t* idx = a.input<int64_t>(1);
    return visit_dtype(p.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      const T* upd = a.input<T>(2);
      T* y = a.output<T>(0);
      for (int64_t j = 0; j < p.tuples; ++j) {
        const int64_t* t = idx + j * p.k;
        int bad = 0;
        const int64_t off = nd_offset(p, 0, t, &bad);
        if (off < 0) return index_error("ScatterND", t[bad], p.dims[bad]);
        for (int64_t s = 0; s < p.slice; ++s)
          y[off + s] = scatter_combine(p.reduction, y[off + s], upd[j * p.slice + s]);
      }
      return Status::ok();
    });
  }
};

class OneHotKernel : public SetupKernel<OneHotPlan, check_one_hot_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const OneHotPlan& p = setup_;
    const uint8_t* values = a.input<uint8_t>(2);
    uint8_t* y = a.output<uint8_t>(0);
    fill_elements(y, values, p.outer * p.depth * p.inner, p.elem_size);
    for (int64_t o = 0; o < p.outer; ++o) {
      for (int64_t i = 0; i < p.inner; ++i) {
        const double v = load_as_double(a.inputs[0], p.idx_dtype, o * p.inner + i);
        const int64_t c = one_hot_class(v, p.depth);
        if (c < 0) continue;  // outside [-depth, depth): the line stays `off`
        std::memcpy(y + static_cast<size_t>((o * p.depth + c) * p.inner + i) * p.elem_size,
                    values + p.elem_size, p.elem_size);
      }
    }
    return Status::ok();
  }
};

class ReverseSequenceKernel : public SetupKernel<ReversePlan, check_reverse_sequence_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const ReversePlan& p = setup_;
    const int64_t* lens = a.input<int64_t>(1);
    const uint8_t* x = a.input<uint8_t>(0);
    uint8_t* y = a.output<uint8_t>(0);
    const size_t row = static_cast<size_t>(p.inner) * p.elem_size;
    for (int64_t b = 0; b < p.batch; ++b) {
      const int64_t len = lens[b];
      if (len < 0 || len > p.time)
        return invalid_input("ReverseSequence: sequence_lens[" + std::to_string(b) + "] is " +
                             std::to_string(len) + ", expected 0.." + std::to_string(p.time));
      for (int64_t t = 0; t < p.time; ++t) {
        const int64_t src = t < len ? len - 1 - t : t;
        std::memcpy(y + static_cast<size_t>(reverse_offset(p, b, t)) * p.elem_size,
                    x + static_cast<size_t>(reverse_offset(p, b, src)) * p.elem_size, row);
      }
    }
    return Status::ok();
  }
};

}  // namespace

void register_indexing_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<GatherElementsKernel>(r, graph::OpType::kGatherElements, Backend::kCpu);
  add_any_dtype_kernel<ScatterElementsKernel>(r, graph::OpType::kScatterElements, Backend::kCpu);
  add_any_dtype_kernel<GatherNdKernel>(r, graph::OpType::kGatherND, Backend::kCpu);
  add_any_dtype_kernel<ScatterNdKernel>(r, graph::OpType::kScatterND, Backend::kCpu);
  add_any_dtype_kernel<OneHotKernel>(r, graph::OpType::kOneHot, Backend::kCpu);
  add_any_dtype_kernel<ReverseSequenceKernel>(r, graph::OpType::kReverseSequence, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
