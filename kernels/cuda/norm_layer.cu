// LayerNormalization (opset 17) and RMSNormalization (opset 23, no mean, no B) on the GPU;
// semantics as kernels/cpu/norm_layer.cc: X viewed
// as [outer, N] with N = prod(dims[axis:]) (axis default -1), each row normalized with its
// own two-pass fp32 statistics (f64 for f64), scaled by Scale (input 1) and shifted by the
// optional B (input 2), both unidirectionally broadcastable to dims[axis:]. Optional
// outputs Mean (1) and InvStdDev (2) of any float dtype; stash_type must be 1.
//
// Scale / B of the full normalized shape (the usual [hidden] case) are read in place, in
// their own dtype. A broadcast parameter (e.g. [1, hidden] against [seq, hidden]) is
// first expanded into the workspace as N compute-type values by a small kernel.
#include <algorithm>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/norm_io.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/norm_rows.h"

namespace amp::kernels::cuda {
namespace {

// How a parameter is read: directly (`direct`, dtype `dtype`), from the expanded workspace
// copy (`expanded`, compute type), or absent (`fill`).
template <typename C>
struct ParamRef {
  const void* direct = nullptr;
  DType dtype = DType::kF32;
  const C* expanded = nullptr;
  C fill = C(0);
  __device__ __forceinline__ C at(int64_t i) const {
    if (expanded) return expanded[i];
    if (direct) return load_param<C>(dtype, direct, i);
    return fill;
  }
};

template <typename C>
struct LayerParams {
  ParamRef<C> scale_ref, bias_ref;
  __device__ __forceinline__ C scale(int64_t, int64_t i) const { return scale_ref.at(i); }
  __device__ __forceinline__ C bias(int64_t, int64_t i) const { return bias_ref.at(i); }
};

// A broadcast parameter's geometry against the normalized dims (0 stride on broadcast dims).
struct BroadcastGeom {
  int rank = 0;
  int64_t dims[kReduceMaxRank] = {};
  int64_t strides[kReduceMaxRank] = {};
};

template <typename C>
__global__ void expand_param_kernel(const void* __restrict__ src, DType dtype, C* __restrict__ dst,
                                    int64_t n, BroadcastGeom g) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[j] = load_param<C>(dtype, src, offset_of(j, g.dims, g.strides, g.rank));
  }
}

template <typename T>
class LayerNormKernel : public CheckedKernel<T, LayerNormShape, check_layer_norm_io> {
  using C = compute_t<T>;

 public:
  Status prepare_params(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(setup_param(cfg, 1, &scale_));
    AMP_RETURN_IF_ERROR(setup_param(cfg, 2, &bias_));
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    // Each expanded parameter gets a 256-byte aligned region of N compute values.
    const size_t region = (static_cast<size_t>(this->shape_.n) * sizeof(C) + 255) / 256 * 256;
    return (scale_.expand ? region : 0) + (bias_.expand ? region : 0);
  }

  Status run(const KernelArgs& a) const override {
    cudaStream_t st = stream_of(a);
    LayerParams<C> prm;
    prm.scale_ref.fill = C(1);
    prm.bias_ref.fill = C(0);
    uint8_t* ws = static_cast<uint8_t*>(a.workspace);
    const size_t region = (static_cast<size_t>(this->shape_.n) * sizeof(C) + 255) / 256 * 256;
    AMP_RETURN_IF_ERROR(bind(scale_, a.inputs[1], &prm.scale_ref, &ws, region, st));
    // a.inputs[2] is indexed only when prepare() saw B present.
    AMP_RETURN_IF_ERROR(
        bind(bias_, bias_.present ? a.inputs[2] : nullptr, &prm.bias_ref, &ws, region, st));
    StatOutputs stats;
    // a.outputs[1..2] are indexed only when prepare() saw those outputs present.
    if (this->shape_.stat_dtype[0] != DType::kUndefined) {
      stats.mean = a.outputs[1];
      stats.mean_dtype = this->shape_.stat_dtype[0];
    }
    if (this->shape_.stat_dtype[1] != DType::kUndefined) {
      stats.inv_std = a.outputs[2];
      stats.inv_dtype = this->shape_.stat_dtype[1];
    }
    return launch_normalize_rows(a.input<T>(0), a.output<T>(0), this->shape_.outer, this->shape_.n,
                                 static_cast<C>(this->shape_.epsilon), prm, stats, st,
                                 this->shape_.rms);
  }

 private:
  struct ParamSetup {
    bool present = false;
    bool expand = false;  // broadcast: expanded into the workspace in run()
    DType dtype = DType::kUndefined;
    BroadcastGeom geom;
  };

  // Validates input `i` as broadcastable to the normalized shape.
  Status setup_param(const KernelConfig& cfg, size_t i, ParamSetup* p) {
    if (cfg.inputs.size() <= i || !cfg.inputs[i].present) return Status::ok();
    const TensorDesc& d = cfg.inputs[i];
    if (!is_float(d.dtype))
      return invalid_model("input " + std::to_string(i) + " must be a float tensor");
    if (d.rank() > this->shape_.norm_dims.size())
      return invalid_model("input " + std::to_string(i) +
                           " has a higher rank than the normalized dims");
    const size_t off = this->shape_.norm_dims.size() - d.rank();
    for (size_t k = 0; k < d.rank(); ++k)
      if (d.dims[k] != 1 && d.dims[k] != this->shape_.norm_dims[off + k])
        return invalid_model("input " + std::to_string(i) +
                             " does not broadcast to the normalized dims");
    p->present = true;
    p->dtype = d.dtype;
    // Same element count as the normalized shape means the same dense layout (only
    // leading 1s can differ): read in place.
    p->expand = d.numel() != this->shape_.n;
    if (p->expand) {
      const int nr = static_cast<int>(this->shape_.norm_dims.size());
      p->geom.rank = nr;
      int64_t stride = 1;
      for (int k = nr - 1; k >= 0; --k) {
        p->geom.dims[k] = this->shape_.norm_dims[static_cast<size_t>(k)];
        const int kd = k - static_cast<int>(off);
        const bool broadcast = kd < 0 || d.dims[static_cast<size_t>(kd)] == 1;
        p->geom.strides[k] = broadcast ? 0 : stride;
        if (kd >= 0) stride *= d.dims[static_cast<size_t>(kd)];
      }
    }
    return Status::ok();
  }

  Status bind(const ParamSetup& p, const void* src, ParamRef<C>* ref, uint8_t** ws, size_t region,
              cudaStream_t st) const {
    if (!p.present) return Status::ok();
    if (!p.expand) {
      ref->direct = src;
      ref->dtype = p.dtype;
      return Status::ok();
    }
    C* dst = reinterpret_cast<C*>(*ws);
    *ws += region;
    expand_param_kernel<C><<<blocks_for(this->shape_.n, kThreads), kThreads, 0, st>>>(
        src, p.dtype, dst, this->shape_.n, p.geom);
    AMP_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    ref->expanded = dst;
    return Status::ok();
  }

  ParamSetup scale_, bias_;
};

}  // namespace

void register_layer_norm_kernels(KernelRegistry& r) {
  add_typed_kernels<LayerNormKernel>(r, graph::OpType::kLayerNormalization, Backend::kCuda,
                                     reduction::FloatTypes{});
  add_typed_kernels<LayerNormKernel>(r, graph::OpType::kRMSNormalization, Backend::kCuda,
                                     reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
