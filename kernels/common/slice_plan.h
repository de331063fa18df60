// Slice(data, starts, ends, axes?, steps?) for every backend: prepare()'s checks and the
// resolution of the parameters into a strided view of the input (negative steps give
// negative strides). slice_resolve() is AMP_HOST_DEVICE: the host resolves constant
// parameters once in prepare(); parameters computed at run time are resolved where they
// live (the CPU at run, CUDA in its kernel) by the same code.
//
// ONNX Slice: negative starts/ends count from the end; then clamp to [0, d] for positive
// steps and [-1, d-1] (start [0, d-1]) for negative ones. Every sliced axis must give the
// static output's length and every other axis keep its size.
//
//   AMP_ASSIGN_OR_RETURN(setup_, check_slice_io(cfg));
//   if (setup_.all_constant) { AMP_ASSIGN_OR_RETURN(SliceView v, resolve_constant_slice(cfg,
//   setup_.s)); ... }
#pragma once

#include <cstdint>
#include <string>

#include "amp/dtype.h"
#include "kernels/common/element_access.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kSliceMaxRank = 16;

// What prepare() learns about a Slice node (trivially copyable: CUDA passes it by value).
struct SliceStatic {
  int rank = 0;
  int n = 0;  // number of sliced axes (entries of starts/ends/axes/steps)
  int64_t in_dims[kSliceMaxRank] = {};
  int64_t out_dims[kSliceMaxRank] = {};
  DType dtypes[5] = {};  // of inputs 1..4 (i32 or i64)
  bool has_axes = false;
  bool has_steps = false;
};

// Why a slice does not resolve; kSliceOk when it does.
enum SliceError : int {
  kSliceOk = 0,
  kSliceBadAxis,        // an axes entry out of range or repeated
  kSliceZeroStep,       // a steps entry is 0
  kSliceCountMismatch,  // an axis gives another length than the output's
  kSliceUnslicedAxis,   // an axis not sliced changes size
};

// Writes the view's base offset and per-axis strides over s.out_dims (in elements of the
// contiguous input), or returns the error and, in *bad_axis, the axis (or entry) concerned.
AMP_HOST_DEVICE int slice_resolve(const SliceStatic& s, const void* starts_p, const void* ends_p,
                                  const void* axes_p, const void* steps_p, int64_t* base_out,
                                  int64_t* strides, int* bad_axis) {
  int64_t in_strides[kSliceMaxRank];
  int64_t st = 1;
  for (int a = s.rank - 1; a >= 0; --a) {
    in_strides[a] = st;
    st *= s.in_dims[a];
  }
  bool seen[kSliceMaxRank];
  for (int a = 0; a < s.rank; ++a) {
    seen[a] = false;
    strides[a] = in_strides[a];
  }
  int64_t base = 0;
  for (int i = 0; i < s.n; ++i) {
    const int64_t axis = s.has_axes ? load_index(axes_p, s.dtypes[3], i) : i;
    const int64_t a = axis < -s.rank || axis >= s.rank ? -1 : (axis < 0 ? axis + s.rank : axis);
    *bad_axis = static_cast<int>(a < 0 ? i : a);
    if (a < 0 || seen[a]) return kSliceBadAxis;
    seen[a] = true;
    const int64_t d = s.in_dims[a];
    const int64_t step = s.has_steps ? load_index(steps_p, s.dtypes[4], i) : 1;
    if (step == 0) return kSliceZeroStep;
    int64_t start = load_index(starts_p, s.dtypes[1], i);
    int64_t end = load_index(ends_p, s.dtypes[2], i);
    int64_t count = 0;
    if (start < 0) start = start < -d ? -1 : start + d;  // avoids overflow near INT64_MIN
    if (end < 0) end = end < -d ? -1 : end + d;
    if (step > 0) {
      start = clamp_index(start, 0, d);
      end = clamp_index(end, 0, d);
      if (end > start) count = (end - start - 1) / step + 1;
    } else {
      start = clamp_index(start, 0, d - 1 > 0 ? d - 1 : 0);
      end = clamp_index(end, -1, d - 1);
      if (start > end && d > 0) {
        const uint64_t span = static_cast<uint64_t>(start - end);
        const uint64_t stride = 0 - static_cast<uint64_t>(step);
        count = static_cast<int64_t>((span - 1) / stride + 1);
      }
    }
    if (count != s.out_dims[a]) return kSliceCountMismatch;
    if (count > 0) base += start * in_strides[a];
    strides[a] = in_strides[a] * step;
  }
  for (int a = 0; a < s.rank; ++a) {
    if (!seen[a] && s.out_dims[a] != s.in_dims[a]) {
      *bad_axis = a;
      return kSliceUnslicedAxis;
    }
  }
  *base_out = base;
  return kSliceOk;
}

// The checks of prepare(): data and output of one rank (at most kSliceMaxRank) and dtype,
// starts/ends (and axes/steps when given) 1-D i32/i64 of one length, at most the rank.
struct SliceSetup {
  SliceStatic s;
  bool all_constant = false;  // every parameter is a constant: resolve once, in prepare()
  size_t elem_size = 0;
  int64_t numel = 0;  // of the output
};
Result<SliceSetup> check_slice_io(const KernelConfig& cfg);

// A resolved slice: output element (i_0..i_r) reads input element base + sum i_a strides[a].
struct SliceView {
  int64_t base = 0;
  int64_t strides[kSliceMaxRank] = {};
};

// Resolves the constant parameters of cfg (all_constant); invalid_model when they do not
// give the output shape.
Result<SliceView> resolve_constant_slice(const KernelConfig& cfg, const SliceStatic& s);

// The message of a SliceError for axis (or entry) `axis`.
std::string describe_slice_error(const SliceStatic& s, int err, int axis);

}  // namespace amp::kernels
