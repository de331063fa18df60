// Clip(X, min, max)'s bounds for every backend: min and max are optional scalar inputs of
// X's dtype (the importer turns opset < 11 attributes into constant inputs). A constant
// bound is read once, in prepare(); a run-time one is read by the kernel from its input.
//
//   AMP_ASSIGN_OR_RETURN(ClipBounds b, read_clip_bounds(cfg));   // in prepare()
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/kernel.h"
#include "runtime/common/status.h"

namespace amp::kernels {

struct ClipBound {
  bool present = false;
  bool constant = false;
  alignas(8) uint8_t bytes[8] = {};  // a constant's value, in X's dtype
};

struct ClipBounds {
  ClipBound min, max;
  const ClipBound& operator[](int k) const { return k == 0 ? min : max; }
};

// Checks X (float or integer), output 0 (X's dtype and shape) and the bounds (X's dtype, one
// element); invalid_model / unsupported naming what is wrong.
Result<ClipBounds> read_clip_bounds(const KernelConfig& cfg);

// The value of a scalar of type T at p (any alignment).
template <typename T>
T read_scalar(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace amp::kernels
