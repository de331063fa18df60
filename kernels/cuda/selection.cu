// NonZero, Compress and NonMaxSuppression on the GPU, mirroring kernels/cpu/selection.cc.
// The count decides the output's layout, so each kernel counts first: NonZero and Compress
// run in one block (chunk counts, a shared-memory scan, then the writes), NonMaxSuppression
// runs one thread per (batch, class) with the greedy selection, then one thread packs the
// classes' picks in order. The count is copied to the host and the stream synchronized: the
// one place these ops must wait (the runtime plans the rest of the model for that count).
// Not tuned: single-block selections suit index lists and detector outputs, not huge masks.
#include <string>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/element_access.h"
#include "kernels/common/kernel_families.h"
#include "kernels/common/selection_plan.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_launch.h"

namespace amp::kernels::cuda {
namespace {

constexpr int kScanThreads = 256;

// Exclusive scan of one value per thread over the block; returns the thread's offset and
// sets *total (every thread).
__device__ int64_t block_exclusive_scan(int64_t v, int64_t* total) {
  __shared__ int64_t s[kScanThreads];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int d = 1; d < kScanThreads; d *= 2) {
    const int64_t add = threadIdx.x >= static_cast<unsigned>(d) ? s[threadIdx.x - d] : 0;
    __syncthreads();
    s[threadIdx.x] += add;
    __syncthreads();
  }
  *total = s[kScanThreads - 1];
  const int64_t out = s[threadIdx.x] - v;
  __syncthreads();
  return out;
}

__global__ void non_zero_kernel(const void* __restrict__ x, int64_t* __restrict__ y,
                                int64_t* __restrict__ count_out, NonZeroPlan p) {
  const int64_t chunk = (p.numel + kScanThreads - 1) / kScanThreads;
  const int64_t begin = threadIdx.x * chunk;
  const int64_t end = begin + chunk < p.numel ? begin + chunk : p.numel;
  int64_t mine = 0;
  for (int64_t e = begin; e < end; ++e) mine += load_as_double(x, p.dtype, e) != 0.0;
  int64_t count = 0;
  int64_t k = block_exclusive_scan(mine, &count);
  if (count > p.capacity) count = p.capacity;  // cannot happen: the bound is numel
  for (int64_t e = begin; e < end && k < count; ++e) {
    if (load_as_double(x, p.dtype, e) == 0.0) continue;
    int64_t rest = e;
    for (int d = p.rank - 1; d >= 0; --d) {
      y[d * count + k] = rest % p.dims[d];
      rest /= p.dims[d];
    }
    ++k;
  }
  if (threadIdx.x == 0) *count_out = count;
}

__global__ void compress_kernel(const uint8_t* __restrict__ x, const uint8_t* __restrict__ cond,
                                uint8_t* __restrict__ y, int64_t* __restrict__ picked,
                                int64_t* __restrict__ count_out, CompressPlan p) {
  const int64_t n = p.len < p.cond_len ? p.len : p.cond_len;
  const int64_t chunk = (n + kScanThreads - 1) / kScanThreads;
  const int64_t begin = threadIdx.x * chunk;
  const int64_t end = begin + chunk < n ? begin + chunk : n;
  int64_t mine = 0;
  for (int64_t j = begin; j < end; ++j) mine += cond[j] != 0;
  int64_t count = 0;
  int64_t k = block_exclusive_scan(mine, &count);
  for (int64_t j = begin; j < end; ++j)
    if (cond[j] != 0) picked[k++] = j;
  __syncthreads();
  const int64_t block = p.inner * static_cast<int64_t>(p.elem_size);
  const int64_t total = p.outer * count * block;
  for (int64_t b = threadIdx.x; b < total; b += blockDim.x) {
    const int64_t byte = b % block, row = b / block;
    const int64_t o = row / count, kk = row % count;
    y[b] = x[(o * p.len + picked[kk]) * block + byte];
  }
  if (threadIdx.x == 0) *count_out = count;
}

__device__ float nms_load(const void* p, DType t, int64_t i) {
  return static_cast<float>(load_as_double(p, t, i));
}

// One thread per (batch, class): greedy selection into picks[(b * C + c) * boxes ...], its
// count into counts[b * C + c]; taken[] marks candidates already picked or suppressed.
__global__ void nms_class_kernel(const void* __restrict__ boxes, const void* __restrict__ scores,
                                 const int64_t* max_ptr, const void* iou_ptr, const void* score_ptr,
                                 int64_t* __restrict__ picks, int64_t* __restrict__ counts,
                                 uint8_t* __restrict__ taken, NmsPlan p) {
  const int64_t item = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (item >= p.batches * p.classes) return;
  const int64_t b = item / p.classes;
  const int64_t max_per_class = !p.has_max ? 0 : (p.max_runtime ? *max_ptr : p.max_per_class);
  const float iou = p.iou_runtime ? nms_load(iou_ptr, p.iou_dtype, 0) : static_cast<float>(p.iou);
  const float score_min =
      p.score_runtime ? nms_load(score_ptr, p.score_dtype, 0) : static_cast<float>(p.score);
  int64_t* mine = picks + item * p.boxes;
  uint8_t* done = taken + item * p.boxes;
  const int64_t sbase = item * p.boxes;
  for (int64_t s = 0; s < p.boxes; ++s)
    done[s] = p.has_score && !(nms_load(scores, p.dtype, sbase + s) > score_min);
  auto box_of = [&](int64_t s) {
    const int64_t base = (b * p.boxes + s) * 4;
    return nms_box(nms_load(boxes, p.dtype, base), nms_load(boxes, p.dtype, base + 1),
                   nms_load(boxes, p.dtype, base + 2), nms_load(boxes, p.dtype, base + 3),
                   p.center_point_box);
  };
  int64_t n = 0;
  while (n < max_per_class) {
    int64_t best = -1;
    float best_s = 0.0f;
    for (int64_t s = 0; s < p.boxes; ++s) {
      if (done[s]) continue;
      const float v = nms_load(scores, p.dtype, sbase + s);
      if (best < 0 || nms_before(v, s, best_s, best)) {
        best = s;
        best_s = v;
      }
    }
    if (best < 0) break;
    done[best] = 1;
    const NmsBox cand = box_of(best);
    bool keep = true;
    for (int64_t q = 0; q < n && keep; ++q) keep = !nms_suppresses(cand, box_of(mine[q]), iou);
    if (keep) mine[n++] = best;
  }
  counts[item] = n;
}

__global__ void nms_pack_kernel(const int64_t* __restrict__ picks,
                                const int64_t* __restrict__ counts, int64_t* __restrict__ y,
                                int64_t* __restrict__ count_out, NmsPlan p) {
  int64_t out = 0;
  for (int64_t item = 0; item < p.batches * p.classes; ++item) {
    for (int64_t k = 0; k < counts[item] && out < p.capacity; ++k, ++out) {
      y[out * 3] = item / p.classes;
      y[out * 3 + 1] = item % p.classes;
      y[out * 3 + 2] = picks[item * p.boxes + k];
    }
  }
  *count_out = out;
}

// Copies the device count to the host and waits for it.
Status read_count(const int64_t* device_count, int64_t* host, cudaStream_t st) {
  AMP_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(host, device_count, sizeof(int64_t), cudaMemcpyDeviceToHost, st));
  AMP_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(st));
  return Status::ok();
}

class NonZeroKernel : public SetupKernel<NonZeroPlan, check_non_zero_io> {
 public:
  size_t workspace_bytes() const override { return sizeof(int64_t); }
  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(check_size_channel(a, "NonZero"));
    const cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    int64_t* count = static_cast<int64_t*>(a.workspace);
    non_zero_kernel<<<1, kScanThreads, 0, st>>>(a.inputs[0], a.output<int64_t>(0), count, setup_);
    AMP_RETURN_IF_ERROR(launch_status("non_zero_kernel"));
    return read_count(count, a.dynamic_size, st);
  }
};

class CompressKernel : public SetupKernel<CompressPlan, check_compress_io> {
 public:
  size_t workspace_bytes() const override {
    return static_cast<size_t>(setup_.len + 1) * sizeof(int64_t);
  }
  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(check_size_channel(a, "Compress"));
    const cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    int64_t* count = static_cast<int64_t*>(a.workspace);
    compress_kernel<<<1, kScanThreads, 0, st>>>(a.input<uint8_t>(0), a.input<uint8_t>(1),
                                                a.output<uint8_t>(0), count + 1, count, setup_);
    AMP_RETURN_IF_ERROR(launch_status("compress_kernel"));
    return read_count(count, a.dynamic_size, st);
  }
};

class NmsKernel : public SetupKernel<NmsPlan, check_nms_io> {
 public:
  // The count, then per (batch, class) its picks and its taken flags.
  size_t workspace_bytes() const override {
    const int64_t items = setup_.batches * setup_.classes;
    return static_cast<size_t>(1 + items + items * setup_.boxes) * sizeof(int64_t) +
           static_cast<size_t>(items * setup_.boxes);
  }
  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(check_size_channel(a, "NonMaxSuppression"));
    const cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    const NmsPlan& p = setup_;
    const int64_t items = p.batches * p.classes;
    int64_t* count = static_cast<int64_t*>(a.workspace);
    int64_t* counts = count + 1;
    int64_t* picks = counts + items;
    uint8_t* taken = reinterpret_cast<uint8_t*>(picks + items * p.boxes);
    if (items > 0) {
      nms_class_kernel<<<grid_for(items), kThreads, 0, st>>>(
          a.inputs[0], a.inputs[1], p.has_max ? a.input<int64_t>(2) : nullptr,
          p.has_iou ? a.inputs[3] : nullptr, p.has_score ? a.inputs[4] : nullptr, picks, counts,
          taken, p);
      AMP_RETURN_IF_ERROR(launch_status("nms_class_kernel"));
    }
    nms_pack_kernel<<<1, 1, 0, st>>>(picks, counts, a.output<int64_t>(0), count, p);
    AMP_RETURN_IF_ERROR(launch_status("nms_pack_kernel"));
    return read_count(count, a.dynamic_size, st);
  }
};

}  // namespace

void register_selection_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<NonZeroKernel>(r, graph::OpType::kNonZero, Backend::kCuda);
  add_any_dtype_kernel<CompressKernel>(r, graph::OpType::kCompress, Backend::kCuda);
  r.add_all(graph::OpType::kNonMaxSuppression, Backend::kCuda, float_dtypes(),
            make_factory<NmsKernel>());
}

}  // namespace amp::kernels::cuda
