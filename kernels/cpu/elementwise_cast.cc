// Cast between every supported dtype (f32, f16, bf16, f64, i64, i32, i16, i8, u8, bool)
// with the semantics of ew::cast_value: float -> float rounds once to nearest even (f64 ->
// f16/bf16 without double rounding), float -> int truncates toward zero and saturates
// (NaN -> 0), int -> int wraps, x -> bool is x != 0. Attribute 'saturate' only concerns
// fp8 targets, which AMPRT does not support, so it is ignored.
//
// Looked up by the source dtype (registered for all of them); the target is the output's
// dtype, which must match attribute 'to' when present.
#include <cstring>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"
#include "runtime/common/half.h"

namespace amp::kernels::cpu {
namespace {

using BulkConvert = void (*)(const void* src, void* dst, size_t n);

// The vectorized converters of common/half.h for the float <-> low-float pairs, else null.
BulkConvert bulk_convert(DType src, DType dst) {
  if (src == DType::kF32 && dst == DType::kF16)
    return [](const void* s, void* d, size_t n) {
      convert_f32_to_f16(static_cast<const float*>(s), static_cast<uint16_t*>(d), n);
    };
  if (src == DType::kF16 && dst == DType::kF32)
    return [](const void* s, void* d, size_t n) {
      convert_f16_to_f32(static_cast<const uint16_t*>(s), static_cast<float*>(d), n);
    };
  if (src == DType::kF32 && dst == DType::kBF16)
    return [](const void* s, void* d, size_t n) {
      convert_f32_to_bf16(static_cast<const float*>(s), static_cast<uint16_t*>(d), n);
    };
  if (src == DType::kBF16 && dst == DType::kF32)
    return [](const void* s, void* d, size_t n) {
      convert_bf16_to_f32(static_cast<const uint16_t*>(s), static_cast<float*>(d), n);
    };
  return nullptr;
}

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
    if (cfg.outputs[0].dims != cfg.inputs[0].dims)
      return invalid_model("output shape differs from the input's");
    n_ = cfg.outputs[0].numel();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    if (src_ == dst_ && src_ != DType::kBool) {  // bool -> bool still normalizes to 0/1
      if (a.inputs[0] != a.outputs[0])
        std::memcpy(a.outputs[0], a.inputs[0], static_cast<size_t>(n_) * dtype_size(src_));
      return Status::ok();
    }
    if (const BulkConvert fast = bulk_convert(src_, dst_)) {
      // The casts AMP inserts (f32 <-> f16/bf16): vectorized F16C / AVX-512 conversions.
      parallel_for(n_, a.num_threads, [&](int64_t begin, int64_t end) {
        fast(static_cast<const uint8_t*>(a.inputs[0]) + begin * dtype_size(src_),
             static_cast<uint8_t*>(a.outputs[0]) + begin * dtype_size(dst_),
             static_cast<size_t>(end - begin));
      });
      return Status::ok();
    }
    return visit_dtype(src_, [&](auto src_tag) -> Status {
      using S = typename decltype(src_tag)::type;
      return visit_dtype(dst_, [&](auto dst_tag) -> Status {
        using D = typename decltype(dst_tag)::type;
        unary_loop(a.input<S>(0), a.output<D>(0), n_, a.num_threads,
                   [](S s) { return ew::cast_value<D>(s); });
        return Status::ok();
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
  r.add_all(graph::OpType::kCast, Backend::kCpu, all_dtypes(), make_factory<CastKernel>());
}

}  // namespace amp::kernels::cpu
