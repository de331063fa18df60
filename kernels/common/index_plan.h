// The indexed copies both backends run alike (GatherElements, ScatterElements, GatherND,
// ScatterND, OneHot, ReverseSequence): prepare()'s checks against the node's record, and
// plain-data plans whose address arithmetic is AMP_HOST_DEVICE, so the CPU loops and the
// CUDA kernels compute the same offsets.
//
// Indices are checked where they are read: the CPU returns invalid_input naming the index;
// a CUDA kernel cannot return a Status without synchronizing, so there an out-of-range index
// writes zeros (gathers) or is skipped (scatters), as the CUDA Gather does.
//
// Scatters apply their updates in index order, duplicates included, so the result is the
// sequential one ONNX's reference computes (reduction none: the last update wins).
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/kernel.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kIndexMaxRank = 8;

// GatherElements / ScatterElements: walking the indices' elements (dense, row-major over
// idx_dims), element t addresses data at sum_k coord_k * data_strides[k], the axis's
// coordinate replaced by the index.
struct ElementsPlan {
  int rank = 0;
  int axis = 0;
  int64_t n = 0;  // the indices' element count
  int64_t axis_len = 0;
  int64_t data_numel = 0;
  int64_t idx_dims[kIndexMaxRank] = {};
  int64_t data_strides[kIndexMaxRank] = {};
  DType dtype = DType::kUndefined;
  DType idx_dtype = DType::kI64;
  size_t elem_size = 0;
  int reduction = graph::IndexAttrs::kNone;
};
Result<ElementsPlan> check_gather_elements_io(const KernelConfig& cfg);
Result<ElementsPlan> check_scatter_elements_io(const KernelConfig& cfg);

// The data offset of indices element t whose (normalized) index is `index`.
AMP_HOST_DEVICE int64_t elements_offset(const ElementsPlan& p, int64_t t, int64_t index) {
  int64_t off = 0;
  for (int k = p.rank - 1; k >= 0; --k) {
    const int64_t c = t % p.idx_dims[k];
    t /= p.idx_dims[k];
    off += (k == p.axis ? index : c) * p.data_strides[k];
  }
  return off;
}

// A scatter's new element from the old one and the update (reduction none: the update).
template <typename T>
AMP_HOST_DEVICE T scatter_combine(int reduction, T old, T upd) {
  if constexpr (std::is_same_v<T, ew::Bool>) {
    return upd;  // shape inference rejects reductions on bool
  } else {
    using C = ew::compute_t<T>;
    const C a = ew::load(old), b = ew::load(upd);
    switch (reduction) {
      case graph::IndexAttrs::kAdd:
        return ew::store<T>(static_cast<C>(a + b));
      case graph::IndexAttrs::kMul:
        return ew::store<T>(static_cast<C>(a * b));
      case graph::IndexAttrs::kMax:
        return b > a ? upd : old;
      case graph::IndexAttrs::kMin:
        return b < a ? upd : old;
      default:
        return upd;
    }
  }
}

// GatherND / ScatterND: data as [batches, dims[0..k), slice], indices as [batches, tuples, k].
// Tuple j of batch b addresses the slice at b * batch_stride + sum_i idx_i * strides[i].
struct NdPlan {
  int k = 0;
  int64_t batches = 1, tuples = 0, slice = 1, batch_stride = 0;
  int64_t data_numel = 0;
  int64_t dims[kIndexMaxRank] = {};
  int64_t strides[kIndexMaxRank] = {};  // in elements
  DType dtype = DType::kUndefined;
  size_t elem_size = 0;
  int reduction = graph::IndexAttrs::kNone;
};
Result<NdPlan> check_gather_nd_io(const KernelConfig& cfg);
Result<NdPlan> check_scatter_nd_io(const KernelConfig& cfg);

// The data element offset of tuple `tuple` (its k indices at idx), or -1 when an index is
// out of range; *bad_axis then gets that index's position in the tuple.
AMP_HOST_DEVICE int64_t nd_offset(const NdPlan& p, int64_t batch, const int64_t* idx,
                                  int* bad_axis) {
  int64_t off = batch * p.batch_stride;
  for (int i = 0; i < p.k; ++i) {
    int64_t v = idx[i];
    if (v < -p.dims[i] || v >= p.dims[i]) {
      *bad_axis = i;
      return -1;
    }
    if (v < 0) v += p.dims[i];
    off += v * p.strides[i];
  }
  return off;
}

// OneHot: output [outer, depth, inner]; element (o, d, i) is `on` where the index at
// (o, i) (negative counts from the end) equals d, else `off`.
struct OneHotPlan {
  int64_t outer = 1, depth = 0, inner = 1;
  DType idx_dtype = DType::kI64;
  size_t elem_size = 0;  // of the values
};
Result<OneHotPlan> check_one_hot_io(const KernelConfig& cfg);

// The class a OneHot index selects: trunc(v), negative counted from the end; -1 for none.
AMP_HOST_DEVICE int64_t one_hot_class(double v, int64_t depth) {
  if (!(v > -static_cast<double>(depth) - 1.0 && v < static_cast<double>(depth))) return -1;
  int64_t c = static_cast<int64_t>(v);
  if (c < 0) c += depth;
  return c >= 0 && c < depth ? c : -1;
}

// ReverseSequence: [batch, time, inner] or [time, batch, inner] (batch_major); sequence b's
// first lens[b] steps reversed.
struct ReversePlan {
  int64_t batch = 0, time = 0, inner = 1;
  bool batch_major = false;
  size_t elem_size = 0;
};
Result<ReversePlan> check_reverse_sequence_io(const KernelConfig& cfg);

// The element offset of (b, t, 0).
AMP_HOST_DEVICE int64_t reverse_offset(const ReversePlan& p, int64_t b, int64_t t) {
  return (p.batch_major ? b * p.time + t : t * p.batch + b) * p.inner;
}

}  // namespace amp::kernels
