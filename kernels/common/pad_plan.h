// Pad(data, pads, constant_value?, axes?) for every backend: prepare()'s checks, the source
// index of an output coordinate, and the reading of pads/axes into per-axis begin and end
// pads. pad_source() and pad_resolve() are AMP_HOST_DEVICE: the host resolves constant pads
// once in prepare(); pads computed at run time are resolved where they live (the CPU at run,
// CUDA in its kernel) by the same code.
//
// Negative pads crop. reflect and wrap repeat as numpy.pad does when a pad exceeds the
// axis; an empty axis can only be padded with the constant.
//
//   AMP_ASSIGN_OR_RETURN(setup_, check_pad_io(cfg));
//   if (setup_.pads_constant) AMP_RETURN_IF_ERROR(resolve_constant_pads(cfg, setup_.p, begin,
//   end));
#pragma once

#include <cstdint>
#include <string>

#include "amp/dtype.h"
#include "graph/ops/op_attrs.h"
#include "kernels/common/element_access.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/host_device.h"
#include "runtime/common/status.h"

namespace amp::kernels {

inline constexpr int kPadMaxRank = 16;

// What prepare() learns about a Pad node (trivially copyable: CUDA passes it by value).
struct PadStatic {
  int mode = graph::PadAttrs::kConstant;
  int rank = 0;
  int n_axes = 0;  // entries of axes (the rank when absent); pads has twice as many
  DType pads_dtype = DType::kI64;
  DType axes_dtype = DType::kI64;
  bool has_axes = false;
  int64_t in_dims[kPadMaxRank] = {};
  int64_t out_dims[kPadMaxRank] = {};
};

// Source index of output position o (begin pad b, input size n), or -1 for the constant.
// Always inside [0, n) or -1, whatever b is.
AMP_HOST_DEVICE int64_t pad_source(int mode, int64_t o, int64_t b, int64_t n) {
  const int64_t i = o - b;
  if (i >= 0 && i < n) return i;
  if (n <= 0) return -1;
  switch (mode) {
    case graph::PadAttrs::kEdge:
      return i < 0 ? 0 : n - 1;
    case graph::PadAttrs::kWrap:
      return ((i % n) + n) % n;
    case graph::PadAttrs::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      const int64_t m = ((i % period) + period) % period;
      return m < n ? m : period - m;
    }
    default:
      return -1;
  }
}

// Reads pads (and axes) into begin[] and end[] (p.rank entries each); returns -1 when they
// give the output shape, else the offending axis, or rank + i for a bad axes entry i.
AMP_HOST_DEVICE int pad_resolve(const PadStatic& p, const void* pads, const void* axes,
                                int64_t* begin, int64_t* end) {
  bool seen[kPadMaxRank];
  for (int a = 0; a < p.rank; ++a) {
    begin[a] = 0;
    end[a] = 0;
    seen[a] = false;
  }
  for (int i = 0; i < p.n_axes; ++i) {
    const int64_t ax = p.has_axes ? load_index(axes, p.axes_dtype, i) : i;
    const int64_t a = ax < -p.rank || ax >= p.rank ? -1 : (ax < 0 ? ax + p.rank : ax);
    if (a < 0 || seen[a]) return p.rank + i;
    seen[a] = true;
    begin[a] = load_index(pads, p.pads_dtype, i);
    end[a] = load_index(pads, p.pads_dtype, i + p.n_axes);
  }
  for (int a = 0; a < p.rank; ++a) {
    if (p.in_dims[a] + begin[a] + end[a] != p.out_dims[a]) return a;
    if (p.in_dims[a] == 0 && p.out_dims[a] > 0 && p.mode != graph::PadAttrs::kConstant) return a;
  }
  return -1;
}

// The checks of prepare(): data and output of one rank (at most kPadMaxRank) and dtype, pads
// (i32/i64, two per padded axis), axes (i32/i64), constant_value (a scalar of the data's
// dtype), the mode from the node's record.
struct PadSetup {
  PadStatic p;
  bool pads_constant = false;  // pads and axes are constants: resolve once, in prepare()
  bool has_value = false;      // constant_value is given (else the fill is zero bytes)
  size_t elem_size = 0;
  int64_t numel = 0;  // of the output
};
Result<PadSetup> check_pad_io(const KernelConfig& cfg);

// Resolves constant pads (pads_constant) into begin/end; invalid_model when they do not give
// the output shape.
Status resolve_constant_pads(const KernelConfig& cfg, const PadStatic& p, int64_t* begin,
                             int64_t* end);

// The message of pad_resolve()'s result `bad` (begin/end as it left them).
std::string describe_pad_error(const PadStatic& p, int bad, const int64_t* begin,
                               const int64_t* end);

}  // namespace amp::kernels
