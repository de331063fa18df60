// Shared pieces of the CUDA movement family (kernels/cuda/movement_*.cc/.cu), which mirrors
// kernels/cpu/movement_*.cc: same ops, attributes, canonical input layouts and dtypes.
//
// Movement ops never look at element values, only at their bytes, so every kernel works on
// an element size (1, 2, 4 or 8 bytes) and is registered for every dtype. Most ops reduce
// to one generic strided copy (CopyPlan): Transpose, DepthToSpace, Expand, Slice with
// constant parameters, and each part of Concat/Split. Its launcher widens elements (up to
// 16 bytes) when the innermost axis is contiguous on both sides and the pointers allow, so
// copies of whole rows move 128 bits per thread.
//
// Parameters that shape the copy (Slice starts, Pad pads, Resize scales) are inputs. When
// they are constants, prepare() resolves them on the host into plans passed by value. When
// they are computed at run time, they live on the device: the kernel resolves them itself
// (each block once, into shared memory) with the same host/device function, so run() needs
// no synchronization and no host round trip. A kernel cannot return a Status, so run-time
// parameters that contradict the static output shape do not fail as on the CPU: the output
// is written as zeros (Slice) or computed with indices clamped into the input (Pad,
// Resize); no access ever leaves the buffers.
//
// Plans hold at most kMaxRank (8) dims: inputs of higher rank are unsupported here.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "amp/dtype.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels::cuda {

inline constexpr int kMaxRank = kMaxDims;

// A copy between two N-d layouts of the same dims: element (i_0..i_{r-1}) goes from
// src[src_base + sum i_a * calc.strides[0][a]] to dst[dst_base + sum i_a * calc.strides[1][a]]
// (element units; source strides may be 0 for broadcast or negative for reversed slices).
struct CopyPlan {
  int64_t numel = 0;
  int64_t src_base = 0;
  int64_t dst_base = 0;
  OffsetCalc<2> calc;  // strides[0]: source, strides[1]: destination
};

// Builds a plan over dims[0..rank) (rank <= kMaxRank), dropping size-1 dims and merging axes
// contiguous on both sides so the innermost run is as long as possible. dst_strides ==
// nullptr means a dense row-major destination.
CopyPlan make_copy_plan(int rank, const int64_t* dims, const int64_t* src_strides, int64_t src_base,
                        const int64_t* dst_strides = nullptr, int64_t dst_base = 0);

// Runs a plan on `stream` (widening elements where possible). No-op when numel == 0.
Status launch_copy_plan(const CopyPlan& plan, const void* src, void* dst, size_t elem_size,
                        cudaStream_t stream);

// A device-to-device copy of `bytes`; none when dst == src (aliased views) or bytes == 0.
Status copy_bytes(void* dst, const void* src, size_t bytes, cudaStream_t stream);

// Fills `count` elements of `elem_size` (1, 2, 4, 8) bytes with the low bytes of `value`.
Status launch_fill(void* dst, uint64_t value, int64_t count, size_t elem_size, cudaStream_t stream);

// Writes host bytes fixed at prepare() to the device: small payloads travel by value in the
// kernel's parameters (no pageable-memory copy, capture-safe), larger ones by
// cudaMemcpyAsync from `host`, which must stay alive and unchanged (a kernel member).
Status write_host_bytes(void* dst, const std::vector<uint8_t>& host, cudaStream_t stream);

// Gather along one axis: out[o, j, i] = data[o, idx[j], i] for o < outer, j < n_idx,
// i < inner; indices (i32 or i64, on the device) may be negative (counted from the end);
// an index outside [-dim, dim) yields zeros (no error can be returned from the kernel).
Status launch_gather(const void* data, const void* indices, DType index_dtype, void* out,
                     int64_t outer, int64_t dim, int64_t n_idx, int64_t inner, size_t elem_size,
                     cudaStream_t stream);

// Tile: output element (o_0..o_{r-1}) reads input element (o_a mod in_dims_a).
Status launch_tile(const void* src, void* dst, int rank, const int64_t* in_dims,
                   const int64_t* out_dims, size_t elem_size, cudaStream_t stream);

// Range: out[i] = start + i * delta, start and delta read from device scalars. Floats compute
// in fp32 (f64 in f64) and round once on store; integers in wrapping int64.
Status launch_range(DType dtype, const void* start, const void* delta, void* out, int64_t n,
                    cudaStream_t stream);

// ---- prepare() helper ------------------------------------------------------------------------

// Checks a tensor's rank against kMaxRank (the plans' cap), naming it in the error.
Status check_max_rank(const TensorDesc& t, const char* what);

}  // namespace amp::kernels::cuda
