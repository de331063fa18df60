// The indexed copies on the GPU, mirroring kernels/cpu/indexing.cc with the same plans
// (kernels/common/index_plan.h). One thread per element for the gathers, OneHot and
// ReverseSequence; an index out of range writes zeros (no Status can leave a kernel without a
// sync; the CPU reports it). Scatters copy the data first, then:
//   - ScatterND: one thread per slice position walks the tuples in order, so duplicate
//     tuples reduce in index order (slices of different tuples coincide or are disjoint);
//   - ScatterElements with a reduction: one thread applies the updates in order (exact and
//     deterministic; not tuned), without one: one thread per update.
#include <string>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/element_access.h"
#include "kernels/common/index_plan.h"
#include "kernels/common/kernel_families.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

#define AMP_GRID_STRIDE(i, n)                                                            \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

template <typename E>
__global__ void gather_elements_kernel(const E* __restrict__ x, const void* __restrict__ idx,
                                       E* __restrict__ y, ElementsPlan p) {
  AMP_GRID_STRIDE(t, p.n) {
    int64_t v = load_index(idx, p.idx_dtype, t);
    if (v < -p.axis_len || v >= p.axis_len) {
      y[t] = E(0);
      continue;
    }
    if (v < 0) v += p.axis_len;
    y[t] = x[elements_offset(p, t, v)];
  }
}

template <typename T>
__global__ void scatter_elements_kernel(const void* __restrict__ idx, const T* __restrict__ upd,
                                        T* __restrict__ y, ElementsPlan p, bool serial) {
  const int64_t first = serial ? 0 : blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int64_t step = serial ? 1 : static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = first; t < p.n; t += step) {
    int64_t v = load_index(idx, p.idx_dtype, t);
    if (v < -p.axis_len || v >= p.axis_len) continue;
    if (v < 0) v += p.axis_len;
    T& dst = y[elements_offset(p, t, v)];
    dst = scatter_combine(p.reduction, dst, upd[t]);
  }
}

template <typename E>
__global__ void gather_nd_kernel(const E* __restrict__ x, const int64_t* __restrict__ idx,
                                 E* __restrict__ y, NdPlan p, int64_t n) {
  AMP_GRID_STRIDE(e, n) {
    const int64_t tuple = e / p.slice, s = e % p.slice;
    int bad = 0;
    const int64_t off = nd_offset(p, tuple / p.tuples, idx + tuple * p.k, &bad);
    y[e] = off < 0 ? E(0) : x[off + s];
  }
}

template <typename T>
__global__ void scatter_nd_kernel(const int64_t* __restrict__ idx, const T* __restrict__ upd,
                                  T* __restrict__ y, NdPlan p) {
  AMP_GRID_STRIDE(s, p.slice) {
    for (int64_t j = 0; j < p.tuples; ++j) {
      int bad = 0;
      const int64_t off = nd_offset(p, 0, idx + j * p.k, &bad);
      if (off < 0) continue;
      y[off + s] = scatter_combine(p.reduction, y[off + s], upd[j * p.slice + s]);
    }
  }
}

template <typename E>
__global__ void one_hot_kernel(const void* __restrict__ idx, const E* __restrict__ values,
                               E* __restrict__ y, OneHotPlan p, int64_t n) {
  AMP_GRID_STRIDE(e, n) {
    const int64_t i = e % p.inner, d = (e / p.inner) % p.depth, o = e / (p.inner * p.depth);
    const int64_t c = one_hot_class(load_as_double(idx, p.idx_dtype, o * p.inner + i), p.depth);
    y[e] = values[c == d ? 1 : 0];
  }
}

template <typename E>
__global__ void reverse_sequence_kernel(const E* __restrict__ x, const int64_t* __restrict__ lens,
                                        E* __restrict__ y, ReversePlan p, int64_t n) {
  AMP_GRID_STRIDE(e, n) {
    const int64_t in = e % p.inner, row = e / p.inner;
    const int64_t b = p.batch_major ? row / p.time : row % p.batch;
    const int64_t t = p.batch_major ? row % p.time : row / p.batch;
    const int64_t len = clamp_index(lens[b], 0, p.time);
    const int64_t src = t < len ? len - 1 - t : t;
    y[e] = x[reverse_offset(p, b, src) + in];
  }
}

class GatherElementsKernel : public SetupKernel<ElementsPlan, check_gather_elements_io> {
 public:
  Status run(const KernelArgs& a) const override {
    if (setup_.n == 0) return Status::ok();
    return visit_element_size(setup_.elem_size, [&](auto e) -> Status {
      using E = decltype(e);
      gather_elements_kernel<E>
          <<<grid_for(setup_.n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
              a.input<E>(0), a.inputs[1], a.output<E>(0), setup_);
      return launch_status("gather_elements_kernel");
    });
  }
};

class ScatterElementsKernel : public SetupKernel<ElementsPlan, check_scatter_elements_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    AMP_RETURN_IF_ERROR(copy_bytes(a.outputs[0], a.inputs[0],
                                   static_cast<size_t>(setup_.data_numel) * setup_.elem_size, st));
    if (setup_.n == 0) return Status::ok();
    const bool serial = setup_.reduction != graph::IndexAttrs::kNone;
    return visit_dtype(setup_.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      scatter_elements_kernel<T><<<serial ? 1 : grid_for(setup_.n), serial ? 1 : kThreads, 0, st>>>(
          a.inputs[1], a.input<T>(2), a.output<T>(0), setup_, serial);
      return launch_status("scatter_elements_kernel");
    });
  }
};

class GatherNdKernel : public SetupKernel<NdPlan, check_gather_nd_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t n = setup_.batches * setup_.tuples * setup_.slice;
    if (n == 0) return Status::ok();
    return visit_element_size(setup_.elem_size, [&](auto e) -> Status {
      using E = decltype(e);
      gather_nd_kernel<E><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
          a.input<E>(0), a.input<int64_t>(1), a.output<E>(0), setup_, n);
      return launch_status("gather_nd_kernel");
    });
  }
};

class ScatterNdKernel : public SetupKernel<NdPlan, check_scatter_nd_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    AMP_RETURN_IF_ERROR(copy_bytes(a.outputs[0], a.inputs[0],
                                   static_cast<size_t>(setup_.data_numel) * setup_.elem_size, st));
    if (setup_.slice * setup_.tuples == 0) return Status::ok();
    return visit_dtype(setup_.dtype, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      scatter_nd_kernel<T><<<grid_for(setup_.slice), kThreads, 0, st>>>(
          a.input<int64_t>(1), a.input<T>(2), a.output<T>(0), setup_);
      return launch_status("scatter_nd_kernel");
    });
  }
};

class OneHotKernel : public SetupKernel<OneHotPlan, check_one_hot_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t n = setup_.outer * setup_.depth * setup_.inner;
    if (n == 0) return Status::ok();
    return visit_element_size(setup_.elem_size, [&](auto e) -> Status {
      using E = decltype(e);
      one_hot_kernel<E><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
          a.inputs[0], a.input<E>(2), a.output<E>(0), setup_, n);
      return launch_status("one_hot_kernel");
    });
  }
};

class ReverseSequenceKernel : public SetupKernel<ReversePlan, check_reverse_sequence_io> {
 public:
  Status run(const KernelArgs& a) const override {
    const int64_t n = setup_.batch * setup_.time * setup_.inner;
    if (n == 0) return Status::ok();
    return visit_element_size(setup_.elem_size, [&](auto e) -> Status {
      using E = decltype(e);
      reverse_sequence_kernel<E><<<grid_for(n), kThreads, 0, static_cast<cudaStream_t>(a.stream)>>>(
          a.input<E>(0), a.input<int64_t>(1), a.output<E>(0), setup_, n);
      return launch_status("reverse_sequence_kernel");
    });
  }
};

}  // namespace

void register_indexing_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<GatherElementsKernel>(r, graph::OpType::kGatherElements, Backend::kCuda);
  add_any_dtype_kernel<ScatterElementsKernel>(r, graph::OpType::kScatterElements, Backend::kCuda);
  add_any_dtype_kernel<GatherNdKernel>(r, graph::OpType::kGatherND, Backend::kCuda);
  add_any_dtype_kernel<ScatterNdKernel>(r, graph::OpType::kScatterND, Backend::kCuda);
  add_any_dtype_kernel<OneHotKernel>(r, graph::OpType::kOneHot, Backend::kCuda);
  add_any_dtype_kernel<ReverseSequenceKernel>(r, graph::OpType::kReverseSequence, Backend::kCuda);
}

}  // namespace amp::kernels::cuda
