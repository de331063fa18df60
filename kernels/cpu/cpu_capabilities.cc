// What this CPU's oneDNN runs fast (declared in cpu_kernels.h): the engine asks it whether
// fp16 / bf16 would be any faster than fp32 here (runtime/backend/backend.h).
#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dnnl_common.h"
#include "kernels/cpu/half_gemv.h"

namespace amp::kernels {

std::string cpu_dnnl_isa_name() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    default:
      return "older than avx2";
  }
}

std::string cpu_low_precision_slower(DType low) {
  // With native bf16 the answer depends on the node: the engine times it (precision_timing).
  if (low == DType::kBF16 && cpu_computes_bf16()) return "";
  const std::string name = cpu_dnnl_isa_name();
  if (low == DType::kF16)
    return std::string("this CPU (oneDNN ISA ") + name +
           ") computes fp16 convolutions and products through fp32";
  return std::string("this CPU (oneDNN ISA ") + name +
         ") has no bf16 arithmetic: bf16 convolutions and products run through fp32";
}

int64_t cpu_low_precision_weight_rows(DType low) {
  if (low != DType::kF16 && low != DType::kBF16) return 0;
  return cpu::HalfGemv::suits_this_cpu() ? cpu::HalfGemv::kMaxRows : 0;
}

std::string cpu_untimed_low_precision_slower(DType low) {
  if (low == DType::kBF16 && dnnl::get_effective_cpu_isa() == dnnl::cpu_isa::avx512_core_amx)
    return "";
  if (low == DType::kBF16 && cpu_computes_bf16())
    return "this CPU (oneDNN ISA avx512_core_bf16) has no AMX: most bf16 convolutions and "
           "products run slower than fp32 on it";
  return cpu_low_precision_slower(low);
}

bool cpu_conv_layout_blocked8(const std::vector<int64_t>& dims) {
  return cpu::conv_layout_blocked8(dims);
}

bool cpu_computes_bf16() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

}  // namespace amp::kernels
