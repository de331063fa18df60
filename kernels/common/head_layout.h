// The [B, H, S, D] view of a transformer tensor stored 4-D ([B, H, S, D]) or 3-D
// ([B, S, H * D]): element strides of batch, head and sequence position (the last dim is
// contiguous). Attention and RotaryEmbedding read both layouts through it.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"
#include "runtime/common/host_device.h"

namespace amp::kernels {

struct HeadStrides {
  int64_t b = 0, h = 0, s = 0;
  AMP_HOST_DEVICE int64_t at(int64_t bi, int64_t hi, int64_t si) const {
    return bi * b + hi * h + si * s;
  }
};

// `d` viewed as [B, heads, S, size].
inline HeadStrides head_strides(const TensorDesc& d, int64_t heads, int64_t size) {
  HeadStrides s;
  if (d.rank() == 4) {
    s.s = d.dims[3];
    s.h = d.dims[2] * s.s;
    s.b = d.dims[1] * s.h;
  } else {
    s.h = size;
    s.s = heads * size;
    s.b = d.dims[1] * s.s;
  }
  return s;
}

// The sequence length of a [B, H, S, D] or [B, S, hidden] tensor.
inline int64_t head_seq_len(const TensorDesc& d) {
  return d.rank() == 4 ? d.dims[2] : d.dims[1];
}

}  // namespace amp::kernels
