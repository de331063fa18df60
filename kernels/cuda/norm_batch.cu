// BatchNormalization, inference form, on the GPU (kernels/cpu/norm_batch.cc): X [N, C, ...]
// and per-channel scale, B, input_mean, input_var (each [C], any float dtype), epsilon.
// y = (x - mean) / sqrt(var + eps) * scale + B, folded per channel into y = x * a[c] + b[c]
// with the shared batchnorm_scale / batchnorm_shift.
//
// The fold runs on the device at the start of every run (one tiny kernel over C channels,
// into the workspace): prepare() may not upload anything, and the runtime usually folds a
// BatchNormalization into the preceding Conv anyway (graph/passes/fuse_batchnorm.cc).
// The apply kernel walks one (n, c) plane per block when planes are large, else the whole
// tensor flattened. Training mode and spatial=0 are unsupported, as on the CPU.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/norm_io.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

struct BnParams {
  const void* p[4];  // scale, B, mean, var
  DType t[4];
};

template <typename C>
__global__ void batchnorm_fold_kernel(BnParams prm, int64_t channels, C eps, C* __restrict__ ab) {
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < channels;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const C scale = load_param<C>(prm.t[0], prm.p[0], c);
    const C bias = load_param<C>(prm.t[1], prm.p[1], c);
    const C mean = load_param<C>(prm.t[2], prm.p[2], c);
    const C var = load_param<C>(prm.t[3], prm.p[3], c);
    const C a = batchnorm_scale(scale, var, eps);
    ab[c] = a;
    ab[channels + c] = batchnorm_shift(bias, mean, a);
  }
}

// One block per (n, c) plane (grid-stride over planes), threads along the plane.
template <typename T>
__global__ void batchnorm_planes_kernel(const T* __restrict__ x, T* __restrict__ y,
                                        const compute_t<T>* __restrict__ ab, int64_t planes,
                                        int64_t channels, int64_t spatial) {
  for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
    const int64_t c = p % channels;
    const compute_t<T> a = ab[c], b = ab[channels + c];
    const T* xp = x + p * spatial;
    T* yp = y + p * spatial;
    for (int64_t i = threadIdx.x; i < spatial; i += blockDim.x)
      yp[i] = from_compute<T>(batchnorm_value(to_compute(xp[i]), a, b));
  }
}

// Small planes (e.g. [N, C] after a global pool): the tensor flattened.
template <typename T>
__global__ void batchnorm_flat_kernel(const T* __restrict__ x, T* __restrict__ y,
                                      const compute_t<T>* __restrict__ ab, int64_t n,
                                      int64_t channels, int64_t spatial) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = (i / spatial) % channels;
    y[i] = from_compute<T>(batchnorm_value(to_compute(x[i]), ab[c], ab[channels + c]));
  }
}

template <typename T>
class BatchNormKernel : public CheckedKernel<T, ChannelNormShape, check_batch_norm_io> {
  using C = compute_t<T>;

 public:
  size_t workspace_bytes() const override {
    return static_cast<size_t>(2 * this->shape_.channels) * sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    const int64_t n = this->shape_.planes * this->shape_.spatial;
    if (n == 0) return Status::ok();
    cudaStream_t st = stream_of(a);
    C* ab = static_cast<C*>(a.workspace);
    BnParams prm;
    for (int i = 0; i < 4; ++i) {
      prm.p[i] = a.inputs[i + 1];
      prm.t[i] = this->shape_.param_dtype[i];
    }
    batchnorm_fold_kernel<C><<<blocks_for(this->shape_.channels, kThreads), kThreads, 0, st>>>(
        prm, this->shape_.channels, static_cast<C>(this->shape_.epsilon), ab);
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    if (this->shape_.spatial >= kThreads) {
      batchnorm_planes_kernel<T><<<blocks_for(this->shape_.planes, 1), kThreads, 0, st>>>(
          a.input<T>(0), a.output<T>(0), ab, this->shape_.planes, this->shape_.channels,
          this->shape_.spatial);
    } else {
      batchnorm_flat_kernel<T><<<blocks_for(n, kThreads), kThreads, 0, st>>>(
          a.input<T>(0), a.output<T>(0), ab, n, this->shape_.channels, this->shape_.spatial);
    }
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return Status::ok();
  }
};

}  // namespace

void register_batch_norm_kernels(KernelRegistry& r) {
  add_typed_kernels<BatchNormKernel>(r, graph::OpType::kBatchNormalization, Backend::kCuda,
                                     reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
