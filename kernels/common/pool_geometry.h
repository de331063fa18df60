// A pooling window as the pooling loops of both backends read it (the CPU loop in
// kernels/cpu/dnnl_pool.cc, the CUDA kernel in kernels/cuda/pool_kernels.cu): the
// resolved window of the node's record right-aligned into 3 spatial axes (leading axes
// of size 1 for 1-D / 2-D). Plain data, so device code takes it by value.
#pragma once

#include <cstdint>

namespace amp::graph {
struct PoolAttrs;
}

namespace amp::kernels {

struct PoolGeometry {
  int64_t planes = 0;  // N * C
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1};
  int64_t d[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0};
  int spatial = 0;                 // real spatial axes (1..3)
  bool col_major_indices = false;  // storage_order = 1
};

// From a record whose window is resolved (kernels/common/window_op_io.h checks that).
PoolGeometry pool_geometry(const graph::PoolAttrs& a, int64_t planes);

}  // namespace amp::kernels
