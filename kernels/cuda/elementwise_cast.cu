// CUDA Cast between every supported dtype (f32, f16, bf16, f64, i64, i32, i16, i8, u8, bool)
// with the semantics of ew::cast_value, exactly as kernels/cpu/elementwise_cast.cc: float ->
// float rounds once to nearest even (f64 -> f16/bf16 without double rounding), float -> int
// truncates toward zero and saturates (NaN -> 0, no undefined behaviour), int -> int wraps,
// x -> bool is x != 0 (float <-> f16/bf16 by the hardware's RNE conversions: the same values,
// see dev_cast in cuda_launch.h). Same-dtype casts are a device-to-device copy (none when aliased),
// except bool -> bool, which normalizes to 0/1. Vectorized like the unary ops.
//
// Looked up by the source dtype (registered for all of them); the target is the output's
// dtype, which must match attribute 'to' when present.
#include <optional>

#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda {
namespace {

template <typename S, typename D>
struct CastF {
  __device__ __forceinline__ D operator()(S s) const { return dev_cast<D>(s); }
};

class CastKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 1));
    src_ = cfg.inputs[0].dtype;
    dst_ = cfg.outputs[0].dtype;
    if (dtype_size(src_) == 0) return invalid_model("input has no dtype");
    if (dtype_size(dst_) == 0) return invalid_model("output has no dtype");
    const graph::Attributes& attrs = node_attrs(cfg);
    if (attrs.has("to")) {
      AMP_ASSIGN_OR_RETURN(int64_t to, attrs.get_int("to", 0));
      const std::optional<DType> want =
          to > 0 && to <= INT32_MAX ? dtype_from_onnx(static_cast<int32_t>(to)) : std::nullopt;
      if (!want) return unsupported("Cast to ONNX dtype " + std::to_string(to));
      AMP_RETURN_IF_ERROR(check_output_dtype(cfg, *want));
    }
    AMP_RETURN_IF_ERROR(check_same_shape(cfg));
    n_ = cfg.outputs[0].numel();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(a.stream);
    if (src_ == dst_ && src_ != DType::kBool) {
      if (a.inputs[0] != a.outputs[0] && n_ > 0)
        AMP_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(a.outputs[0], a.inputs[0],
                                                 static_cast<size_t>(n_) * dtype_size(src_),
                                                 cudaMemcpyDeviceToDevice, stream));
      return Status::ok();
    }
    return visit_dtype(src_, [&](auto src_tag) -> Status {
      using S = typename decltype(src_tag)::type;
      return visit_dtype(dst_, [&](auto dst_tag) -> Status {
        using D = typename decltype(dst_tag)::type;
        return launch_map1(a.input<S>(0), a.output<D>(0), n_, CastF<S, D>{}, stream);
      });
    });
  }

 private:
  DType src_ = DType::kUndefined;
  DType dst_ = DType::kUndefined;
  int64_t n_ = 0;
};

}  // namespace

void register_cast_kernels(KernelRegistry& r) {
  r.add_all(graph::OpType::kCast, Backend::kCuda, all_dtypes(), make_factory<CastKernel>());
}

}  // namespace amp::kernels::cuda
