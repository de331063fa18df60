// Shared pieces of the CPU elementwise family (kernels/cpu/elementwise_*.cc): the
// broadcast plan and the loops over it, dtype dispatch, and prepare()-time checks. The
// arithmetic itself lives in common/elementwise_functors.h (shared with CUDA).
//
// Broadcasting: prepare() builds a BroadcastPlan, which drops output axes of size 1 and
// merges adjacent axes along which every input is contiguous, so "same shape" becomes one
// axis, "tensor + scalar" one axis with a 0 stride, and "NCHW + C11" three axes (N, C,
// HW). run() splits the output over threads (parallel_for) and walks each chunk in
// contiguous output rows; each row picks a loop specialised for strides (1, 1), (1, 0),
// (0, 1) that GCC vectorizes, with a general strided loop as the fallback.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/elementwise_functors.h"
#include "kernels/common/kernel_params.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels::cpu {

// Per-file registrations, called by register_cpu_elementwise_kernels().
void register_elementwise_unary(KernelRegistry& registry);    // elementwise_unary.cc
void register_elementwise_clip(KernelRegistry& registry);     // elementwise_clip.cc
void register_elementwise_binary(KernelRegistry& registry);   // elementwise_binary.cc
void register_elementwise_compare(KernelRegistry& registry);  // elementwise_compare.cc
void register_elementwise_pow(KernelRegistry& registry);      // elementwise_pow.cc
void register_elementwise_where(KernelRegistry& registry);    // elementwise_where.cc
void register_elementwise_cast(KernelRegistry& registry);     // elementwise_cast.cc

// ---- Dtype dispatch ---------------------------------------------------------------------

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls fn(TypeTag<T>{}) with the storage type of `t` (bool -> ew::Bool) and returns its
// Status. Callers instantiate only what they support with `if constexpr`.
template <typename Fn>
Status visit_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::kF32:
      return fn(TypeTag<float>{});
    case DType::kF16:
      return fn(TypeTag<Half>{});
    case DType::kBF16:
      return fn(TypeTag<BFloat16>{});
    case DType::kF64:
      return fn(TypeTag<double>{});
    case DType::kI64:
      return fn(TypeTag<int64_t>{});
    case DType::kI32:
      return fn(TypeTag<int32_t>{});
    case DType::kI16:
      return fn(TypeTag<int16_t>{});
    case DType::kI8:
      return fn(TypeTag<int8_t>{});
    case DType::kU8:
      return fn(TypeTag<uint8_t>{});
    case DType::kBool:
      return fn(TypeTag<ew::Bool>{});
    case DType::kUndefined:
      break;
  }
  return internal_error("elementwise kernel: undefined dtype");
}

// The error a kernel returns from run() for a dtype prepare() should have rejected.
inline Status unexpected_dtype(DType t) {
  return internal_error("elementwise kernel: dtype " + std::string(dtype_name(t)) +
                        " passed prepare() but has no loop");
}

// The registry factory of kernel class K.
template <typename K>
std::function<std::unique_ptr<Kernel>()> make_factory() {
  return [] { return std::make_unique<K>(); };
}

// ---- prepare() helpers ------------------------------------------------------------------

// ---- Broadcasting -----------------------------------------------------------------------

inline constexpr int kMaxBroadcastRank = 16;  // after merging axes
inline constexpr int kMaxBroadcastInputs = 3;

struct BroadcastPlan {
  int rank = 1;  // >= 1
  int num_inputs = 0;
  int64_t numel = 0;
  std::array<int64_t, kMaxBroadcastRank> dims{};
  // Element strides of each input along the merged output axes (0 = broadcast).
  std::array<std::array<int64_t, kMaxBroadcastRank>, kMaxBroadcastInputs> strides{};

  int64_t inner_stride(int input) const { return strides[input][rank - 1]; }
};

// numpy multidirectional broadcast of `shapes`; invalid_model when they do not broadcast.
Result<std::vector<int64_t>> broadcast_dims(const std::vector<std::vector<int64_t>>& shapes);

// The plan for reading inputs of dims `inputs` broadcast to `out`. Checks that `out` is
// the broadcast of the inputs (shape inference and kernel must agree) and that the merged
// rank fits kMaxBroadcastRank.
Result<BroadcastPlan> make_broadcast_plan(const std::vector<std::vector<int64_t>>& inputs,
                                          const std::vector<int64_t>& out);
// The same without requiring `out` to be exactly the inputs' broadcast: each input only has
// to broadcast to it (a step of variadic Max/Min, whose other inputs widen the output).
Result<BroadcastPlan> make_broadcast_plan_to(const std::vector<std::vector<int64_t>>& inputs,
                                             const std::vector<int64_t>& out);

// Calls fn(out_offset, count, in_offsets) for each contiguous run of output elements in
// [begin, end); input k's element j of the run is at in_offsets[k] + j * inner_stride(k).
template <typename Fn>
void for_each_row(const BroadcastPlan& p, int64_t begin, int64_t end, Fn&& fn) {
  if (begin >= end) return;
  const int last = p.rank - 1;
  std::array<int64_t, kMaxBroadcastRank> idx{};
  std::array<int64_t, kMaxBroadcastInputs> off{};
  int64_t rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % p.dims[d];
    rem /= p.dims[d];
  }
  for (int k = 0; k < p.num_inputs; ++k)
    for (int d = 0; d <= last; ++d) off[k] += idx[d] * p.strides[k][d];
  int64_t pos = begin;
  for (;;) {
    const int64_t n = std::min(end - pos, p.dims[last] - idx[last]);
    fn(pos, n, off.data());
    pos += n;
    if (pos >= end) return;
    // The row ran to the end of the last axis: rewind it and carry into the outer axes.
    for (int k = 0; k < p.num_inputs; ++k) off[k] -= idx[last] * p.strides[k][last];
    idx[last] = 0;
    for (int d = last - 1; d >= 0; --d) {
      for (int k = 0; k < p.num_inputs; ++k) off[k] += p.strides[k][d];
      if (++idx[d] < p.dims[d]) break;
      for (int k = 0; k < p.num_inputs; ++k) off[k] -= p.dims[d] * p.strides[k][d];
      idx[d] = 0;
    }
  }
}

// out[i] = f(a[i * sa], b[i * sb]) for i < n, with the common stride pairs specialised.
// f maps raw storage values to a raw output value. Safe when out aliases a or b with the
// same stride (each element is read before it is written).
template <typename A, typename B, typename O, typename F>
inline void binary_row(const A* a, int64_t sa, const B* b, int64_t sb, O* out, int64_t n,
                       const F& f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const B bv = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const A av = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = f(av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = f(a[i * sa], b[i * sb]);
  }
}

// out = f(a, b) over a two-input plan, split across `threads`.
template <typename A, typename B, typename O, typename F>
void binary_loop(const BroadcastPlan& p, const A* a, const B* b, O* out, int threads, const F& f) {
  const int64_t sa = p.inner_stride(0), sb = p.inner_stride(1);
  parallel_for(p.numel, threads, [&](int64_t begin, int64_t end) {
    for_each_row(p, begin, end, [&](int64_t o, int64_t n, const int64_t* off) {
      binary_row(a + off[0], sa, b + off[1], sb, out + o, n, f);
    });
  });
}

// out[i] = f(in[i]) over n contiguous elements, split across `threads`; in may equal out.
template <typename I, typename O, typename F>
void unary_loop(const I* in, O* out, int64_t n, int threads, const F& f) {
  parallel_for(n, threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
  });
}

}  // namespace amp::kernels::cpu
