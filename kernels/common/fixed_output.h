// Shape, Size and Constant know their whole output at prepare(): its bytes, computed here
// once for every backend from the input dims and the node's record (ShapeAttrs) or value
// attribute (Constant). Each backend's kernel keeps them and only copies them out in run()
// (a memcpy on the CPU, a host-to-device copy on CUDA). ConstantOfShape's fill element
// comes from its record (FillAttrs) the same way.
//
//   AMP_ASSIGN_OR_RETURN(bytes_, fixed_output_bytes(cfg));
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// The output of a Shape, Size or Constant node, checked against output 0's dtype and dims.
Result<std::vector<uint8_t>> fixed_output_bytes(const KernelConfig& cfg);

struct FillElement {
  uint64_t bits = 0;  // the element's bytes (0 is zero in every dtype)
  size_t elem_size = 0;
  int64_t numel = 0;  // of output 0
};

// ConstantOfShape's element, checked against output 0's dtype.
Result<FillElement> constant_of_shape_fill(const KernelConfig& cfg);

}  // namespace amp::kernels
