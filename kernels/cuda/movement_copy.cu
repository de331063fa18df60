// The generic device kernels of the CUDA movement family (declared in movement_cuda.h):
// strided copy plans, fills, host-fixed bytes, Gather, Tile and Range. Each works on raw
// element bytes; copies widen their element to up to 16 bytes when the innermost axis is a
// contiguous run on both sides and the pointers are aligned, so a row copy moves 128 bits
// per thread.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/cuda/movement_cuda.h"

namespace amp::kernels::cuda {
namespace {

Status bad_element(size_t elem) {
  return internal_error("CUDA movement kernel: element size " + std::to_string(elem));
}

// Returns fn(E{}) with E the unsigned type of `elem` bytes (16: uint4).
template <typename Fn>
Status with_element(size_t elem, Fn&& fn) {
  if (elem == 16) return fn(uint4{});
  return visit_element_size(elem, fn);
}

// ---- Copy plans -----------------------------------------------------------------------------

// src and dst already point at the plans' bases.
template <typename E>
__global__ void copy_plan_kernel(const E* __restrict__ src, E* __restrict__ dst, int64_t n,
                                 OffsetCalc<2> calc) {
  if (calc.rank == 1) {
    const int64_t ss = calc.strides[0][0], ds = calc.strides[1][0];
    for (int64_t i = thread_index(); i < n; i += grid_stride()) dst[i * ds] = src[i * ss];
    return;
  }
  int64_t off[2];
  if (n <= int64_t{UINT32_MAX}) {
    for (int64_t i = thread_index(); i < n; i += grid_stride()) {
      calc.get(static_cast<uint32_t>(i), off);
      dst[off[1]] = src[off[0]];
    }
  } else {
    for (int64_t i = thread_index(); i < n; i += grid_stride()) {
      calc.get(i, off);
      dst[off[1]] = src[off[0]];
    }
  }
}

// Doubles the element size of `p` once if its innermost axis is contiguous on both sides,
// of even length, every other stride and both bases even, and the pointers aligned to the
// wider element.
bool widen_once(CopyPlan& p, size_t& elem, const void* src, const void* dst) {
  auto& c = p.calc;
  const int last = c.rank - 1;
  if (elem >= 16 || c.strides[0][last] != 1 || c.strides[1][last] != 1 || c.dims[last] % 2 != 0)
    return false;
  if (p.src_base % 2 != 0 || p.dst_base % 2 != 0) return false;
  for (int a = 0; a < last; ++a)
    if (c.strides[0][a] % 2 != 0 || c.strides[1][a] % 2 != 0) return false;
  if (!is_aligned(src, elem * 2) || !is_aligned(dst, elem * 2)) return false;
  c.dims[last] /= 2;
  for (int a = 0; a < last; ++a) {
    c.strides[0][a] /= 2;
    c.strides[1][a] /= 2;
  }
  p.src_base /= 2;
  p.dst_base /= 2;
  p.numel /= 2;
  elem *= 2;
  return true;
}

// ---- Tiled transpose ------------------------------------------------------------------------
//
// A plan whose last axis B is contiguous in the destination but strided in the source, and
// whose next-to-last axis A is contiguous in the source (a batched 2-D transpose: NCHW <->
// NHWC, [R, C] -> [C, R]), reads the source along A and writes the destination along B,
// so one of the two would be uncoalesced in the generic kernel. Here a 32x32 tile goes
// through shared memory: loaded with consecutive threads on A, stored with consecutive
// threads on B. Blocks of 32x8 threads loop over tiles (grid-stride), so any size launches.

constexpr int kTile = 32;
constexpr int kTileRows = 8;

struct TiledParams {
  int64_t rows = 0;     // extent of A (source stride 1)
  int64_t cols = 0;     // extent of B (destination stride 1)
  int64_t src_b = 0;    // source stride of B
  int64_t dst_a = 0;    // destination stride of A
  int64_t tiles_a = 0;  // ceil(rows / kTile)
  int64_t tiles_b = 0;  // ceil(cols / kTile)
  int64_t tiles = 0;    // batch * tiles_a * tiles_b
  OffsetCalc<2> batch;  // the other axes: source / destination offsets of a batch index
};

template <typename E>
__global__ void transpose_tiled_kernel(const E* __restrict__ src, E* __restrict__ dst,
                                       TiledParams p) {
  __shared__ E tile[kTile][kTile + 1];  // +1: column reads hit distinct banks
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  // The loop bound depends only on blockIdx, so every thread of a block reaches each
  // __syncthreads() the same number of times.
  for (int64_t t = blockIdx.x; t < p.tiles; t += gridDim.x) {
    const int64_t tb = t % p.tiles_b;
    const int64_t rest = t / p.tiles_b;
    const int64_t ta = rest % p.tiles_a;
    int64_t off[2];
    p.batch.get(rest / p.tiles_a, off);
    const E* s = src + off[0];
    E* d = dst + off[1];
    const int64_t a0 = ta * kTile, b0 = tb * kTile;
    for (int j = ty; j < kTile; j += kTileRows) {  // tile[j][x] = element (a0 + x, b0 + j)
      const int64_t a = a0 + tx, b = b0 + j;
      if (a < p.rows && b < p.cols) tile[j][tx] = s[a + b * p.src_b];
    }
    __syncthreads();
    for (int j = ty; j < kTile; j += kTileRows) {  // element (a0 + j, b0 + x) = tile[x][j]
      const int64_t a = a0 + j, b = b0 + tx;
      if (a < p.rows && b < p.cols) d[a * p.dst_a + b] = tile[tx][j];
    }
    __syncthreads();  // the next tile overwrites `tile`
  }
}

// Fills `t` when plan `p` is a batched transpose the tiled kernel handles well (both
// extents at least half a tile; smaller ones coalesce well enough in the generic kernel).
bool tiled_transpose(const CopyPlan& p, TiledParams* t) {
  const auto& c = p.calc;
  if (c.rank < 2) return false;
  const int b = c.rank - 1, a = c.rank - 2;
  if (c.strides[1][b] != 1 || c.strides[0][a] != 1 || c.strides[0][b] == 1) return false;
  if (c.dims[a] < kTile / 2 || c.dims[b] < kTile / 2) return false;
  t->rows = c.dims[a];
  t->cols = c.dims[b];
  t->src_b = c.strides[0][b];
  t->dst_a = c.strides[1][a];
  t->tiles_a = (t->rows + kTile - 1) / kTile;
  t->tiles_b = (t->cols + kTile - 1) / kTile;
  int64_t batch = 1;
  t->batch.rank = 1;
  t->batch.dims[0] = 1;
  if (c.rank > 2) {
    t->batch.rank = c.rank - 2;
    for (int d = 0; d < c.rank - 2; ++d) {
      t->batch.dims[d] = c.dims[d];
      t->batch.strides[0][d] = c.strides[0][d];
      t->batch.strides[1][d] = c.strides[1][d];
      batch *= c.dims[d];
    }
  }
  t->tiles = batch * t->tiles_a * t->tiles_b;
  return true;
}

// ---- Fill and host bytes --------------------------------------------------------------------

template <typename E>
__global__ void fill_kernel(E* dst, E value, int64_t n) {
  for (int64_t i = thread_index(); i < n; i += grid_stride()) dst[i] = value;
}

constexpr size_t kInlineBytes = 1024;  // well inside the 4 KB kernel-parameter limit
struct InlineBytes {
  uint8_t b[kInlineBytes];
};

__global__ void write_inline_kernel(uint8_t* dst, InlineBytes bytes, int64_t n) {
  for (int64_t i = thread_index(); i < n; i += grid_stride()) dst[i] = bytes.b[i];
}

// ---- Gather ---------------------------------------------------------------------------------

template <typename E, typename I, typename IdxT>
__device__ __forceinline__ void gather_body(const E* data, const I* idx, E* out, IdxT total,
                                            IdxT dim, IdxT n_idx, IdxT inner) {
  for (int64_t k = thread_index(); k < static_cast<int64_t>(total); k += grid_stride()) {
    const IdxT kk = static_cast<IdxT>(k);
    const IdxT t = kk / inner;
    const IdxT i = kk - t * inner;
    const IdxT o = t / n_idx;
    const IdxT j = t - o * n_idx;
    int64_t v = static_cast<int64_t>(idx[j]);
    if (v < 0) v += static_cast<int64_t>(dim);
    if (v >= 0 && v < static_cast<int64_t>(dim))
      out[k] = data[(static_cast<int64_t>(o) * static_cast<int64_t>(dim) + v) *
                        static_cast<int64_t>(inner) +
                    static_cast<int64_t>(i)];
    else
      out[k] = E{};  // out of range: zeros (documented in movement_cuda.h)
  }
}

template <typename E, typename I>
__global__ void gather_kernel(const E* data, const I* idx, E* out, int64_t total, int64_t dim,
                              int64_t n_idx, int64_t inner) {
  if (total <= int64_t{UINT32_MAX} && dim <= int64_t{UINT32_MAX})
    gather_body<E, I, uint32_t>(data, idx, out, static_cast<uint32_t>(total),
                                static_cast<uint32_t>(dim), static_cast<uint32_t>(n_idx),
                                static_cast<uint32_t>(inner));
  else
    gather_body<E, I, int64_t>(data, idx, out, total, dim, n_idx, inner);
}

// ---- Tile -----------------------------------------------------------------------------------

struct TileParams {
  int rank = 0;
  int64_t out_dims[kMaxRank] = {};
  int64_t in_dims[kMaxRank] = {};
  int64_t in_strides[kMaxRank] = {};
};

template <typename E>
__global__ void tile_kernel(const E* src, E* dst, int64_t n, TileParams p) {
  for (int64_t i = thread_index(); i < n; i += grid_stride()) {
    int64_t rem = i, off = 0;
    for (int a = p.rank - 1; a >= 0; --a) {
      const int64_t q = rem / p.out_dims[a];
      const int64_t o = rem - q * p.out_dims[a];
      rem = q;
      off += (o % p.in_dims[a]) * p.in_strides[a];
    }
    dst[i] = src[off];
  }
}

// ---- Range ----------------------------------------------------------------------------------

// The explicitly rounded multiply and add keep nvcc from contracting them into an FMA, so
// the result is bit-identical to the CPU's s + i * d.
template <typename T>
__global__ void range_kernel(const T* start, const T* delta, T* out, int64_t n) {
  for (int64_t i = thread_index(); i < n; i += grid_stride()) {
    if constexpr (std::is_same_v<T, double>) {
      out[i] = __dadd_rn(*start, __dmul_rn(static_cast<double>(i), *delta));
    } else if constexpr (std::is_integral_v<T>) {
      const uint64_t s = static_cast<uint64_t>(static_cast<int64_t>(*start));
      const uint64_t d = static_cast<uint64_t>(static_cast<int64_t>(*delta));
      out[i] = static_cast<T>(static_cast<int64_t>(s + static_cast<uint64_t>(i) * d));
    } else {
      const float s = dev_load(*start), d = dev_load(*delta);
      out[i] = dev_store<T>(__fadd_rn(s, __fmul_rn(static_cast<float>(i), d)));
    }
  }
}

template <typename T>
Status launch_range_t(const void* start, const void* delta, void* out, int64_t n,
                      cudaStream_t stream) {
  range_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(
      static_cast<const T*>(start), static_cast<const T*>(delta), static_cast<T*>(out), n);
  return launch_status("range_kernel");
}

}  // namespace

Status launch_copy_plan(const CopyPlan& plan, const void* src, void* dst, size_t elem,
                        cudaStream_t stream) {
  if (plan.numel == 0) return Status::ok();
  CopyPlan p = plan;
  while (widen_once(p, elem, src, dst)) {
  }
  TiledParams tiled;
  const bool use_tiled = elem <= 8 && tiled_transpose(p, &tiled);
  return with_element(elem, [&](auto tag) -> Status {
    using E = decltype(tag);
    const E* s = static_cast<const E*>(src) + p.src_base;
    E* d = static_cast<E*>(dst) + p.dst_base;
    if (use_tiled) {
      const unsigned blocks =
          static_cast<unsigned>(tiled.tiles < kMaxBlocks ? tiled.tiles : kMaxBlocks);
      transpose_tiled_kernel<E><<<blocks, dim3(kTile, kTileRows), 0, stream>>>(s, d, tiled);
      return launch_status("transpose_tiled_kernel");
    }
    copy_plan_kernel<E><<<grid_for(p.numel), kThreads, 0, stream>>>(s, d, p.numel, p.calc);
    return launch_status("copy_plan_kernel");
  });
}

Status copy_bytes(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  if (dst == src || bytes == 0) return Status::ok();
  AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  return Status::ok();
}

Status launch_fill(void* dst, uint64_t value, int64_t count, size_t elem, cudaStream_t stream) {
  if (count <= 0) return Status::ok();
  return with_element(elem, [&](auto tag) -> Status {
    using E = decltype(tag);
    if constexpr (std::is_integral_v<E>) {
      E v;
      std::memcpy(&v, &value, sizeof(E));  // the low bytes (little-endian)
      fill_kernel<E><<<grid_for(count), kThreads, 0, stream>>>(static_cast<E*>(dst), v, count);
      return launch_status("fill_kernel");
    } else {
      return bad_element(elem);
    }
  });
}

Status write_host_bytes(void* dst, const std::vector<uint8_t>& host, cudaStream_t stream) {
  // The bytes travel as kernel parameters, kInlineBytes per launch: a copy from pageable
  // host memory cannot be recorded into a CUDA graph, a kernel launch can. Past 64 launches
  // (64 KiB; Shape, Size and small Constants are far below) a plain copy is cheaper, and a
  // plan holding one runs eagerly (capture fails cleanly and the executor falls back).
  if (host.empty()) return Status::ok();
  constexpr size_t kMaxInlineLaunches = 64;
  if (host.size() <= kInlineBytes * kMaxInlineLaunches) {
    auto* out = static_cast<uint8_t*>(dst);
    for (size_t at = 0; at < host.size(); at += kInlineBytes) {
      InlineBytes b;
      const size_t n = std::min(kInlineBytes, host.size() - at);
      std::memcpy(b.b, host.data() + at, n);
      write_inline_kernel<<<grid_for(static_cast<int64_t>(n)), kThreads, 0, stream>>>(
          out + at, b, static_cast<int64_t>(n));
      AMP_RETURN_IF_ERROR(launch_status("write_inline_kernel"));
    }
    return Status::ok();
  }
  AMP_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(dst, host.data(), host.size(), cudaMemcpyHostToDevice, stream));
  return Status::ok();
}

Status launch_gather(const void* data, const void* indices, DType index_dtype, void* out,
                     int64_t outer, int64_t dim, int64_t n_idx, int64_t inner, size_t elem,
                     cudaStream_t stream) {
  if (outer * n_idx * inner == 0) return Status::ok();
  // Whole inner blocks move as wider elements when their size and the pointers allow.
  while (elem < 16 && inner % 2 == 0 && is_aligned(data, elem * 2) && is_aligned(out, elem * 2)) {
    inner /= 2;
    elem *= 2;
  }
  const int64_t total = outer * n_idx * inner;
  return with_element(elem, [&](auto tag) -> Status {
    using E = decltype(tag);
    const E* d = static_cast<const E*>(data);
    E* o = static_cast<E*>(out);
    if (index_dtype == DType::kI32)
      gather_kernel<E, int32_t><<<grid_for(total), kThreads, 0, stream>>>(
          d, static_cast<const int32_t*>(indices), o, total, dim, n_idx, inner);
    else
      gather_kernel<E, int64_t><<<grid_for(total), kThreads, 0, stream>>>(
          d, static_cast<const int64_t*>(indices), o, total, dim, n_idx, inner);
    return launch_status("gather_kernel");
  });
}

Status launch_tile(const void* src, void* dst, int rank, const int64_t* in_dims,
                   const int64_t* out_dims, size_t elem, cudaStream_t stream) {
  TileParams p;
  p.rank = rank;
  int64_t n = 1;
  for (int a = 0; a < rank; ++a) {
    p.in_dims[a] = in_dims[a];
    p.out_dims[a] = out_dims[a];
    n *= out_dims[a];
  }
  if (n == 0) return Status::ok();
  if (rank == 0) {  // a scalar: one element
    p.rank = 1;
    p.in_dims[0] = p.out_dims[0] = 1;
  }
  // Rows of the last axis move as wider elements when their length and the pointers allow
  // (every other input stride is a multiple of the last dim, so it halves exactly).
  const int last = p.rank - 1;
  while (elem < 16 && p.in_dims[last] % 2 == 0 && is_aligned(src, elem * 2) &&
         is_aligned(dst, elem * 2)) {
    p.in_dims[last] /= 2;
    p.out_dims[last] /= 2;
    n /= 2;
    elem *= 2;
  }
  contiguous_strides(p.rank, p.in_dims, p.in_strides);
  return with_element(elem, [&](auto tag) -> Status {
    using E = decltype(tag);
    tile_kernel<E><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const E*>(src),
                                                         static_cast<E*>(dst), n, p);
    return launch_status("tile_kernel");
  });
}

Status launch_range(DType dtype, const void* start, const void* delta, void* out, int64_t n,
                    cudaStream_t stream) {
  if (n <= 0) return Status::ok();
  switch (dtype) {
    case DType::kF32:
      return launch_range_t<float>(start, delta, out, n, stream);
    case DType::kF16:
      return launch_range_t<Half>(start, delta, out, n, stream);
    case DType::kBF16:
      return launch_range_t<BFloat16>(start, delta, out, n, stream);
    case DType::kF64:
      return launch_range_t<double>(start, delta, out, n, stream);
    case DType::kI64:
      return launch_range_t<int64_t>(start, delta, out, n, stream);
    case DType::kI32:
      return launch_range_t<int32_t>(start, delta, out, n, stream);
    case DType::kI16:
      return launch_range_t<int16_t>(start, delta, out, n, stream);
    case DType::kUndefined:
    case DType::kU8:
    case DType::kI8:
    case DType::kBool:
      break;
  }
  return unsupported("Range on " + std::string(dtype_name(dtype)));
}

}  // namespace amp::kernels::cuda
