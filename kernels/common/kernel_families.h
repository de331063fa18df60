// The kernel families, declared once for every backend.
//
// A family is one kernel file per backend (kernels/cpu/softmax.cc, kernels/cuda/softmax.cu)
// with one registration function, register_<family>_kernels(KernelRegistry&), in the
// backend's namespace (kernels::cpu, kernels::cuda). The list below is the only place the
// families are named: each backend's header declares them all with
// AMP_DECLARE_KERNEL_FAMILIES(namespace), and its register_<backend>_kernels() calls them all with
// AMP_REGISTER_KERNEL_FAMILIES(namespace, registry). A backend that lacks a family fails to
// link, instead of silently registering fewer ops than the other.
//
// The families whose kernels are classes of one backend but whose ops and dtypes are the
// same on both (Conv/ConvTranspose, the pools, MatMul/Gemm, Resize) list them here too, as
// FamilyMember tables that add_kernel_family<Kernel>() registers.
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/kernel_registry.h"

// clang-format off
#define AMP_KERNEL_FAMILIES(X)                                                          \
  /* elementwise */ X(elementwise) X(pow)                                              \
  /* movement */    X(copy) X(concat_split) X(slice) X(gather) X(pad) X(resize) X(range) \
                    X(trilu) X(indexing)                                                \
  /* reduction */   X(reduce_axes) X(argmax) X(global_pool) X(softmax)                  \
                    X(layer_norm) X(instance_norm) X(batch_norm) X(norm_stats)          \
                    X(axis_ops) X(lp_pool)                                              \
  /* attention */   X(attention) X(rotary_embedding)                                    \
  /* library */     X(conv) X(pool) X(matmul)                                           \
  /* loops */       X(einsum) X(sampling) X(recurrent) X(selection)
// clang-format on

#define AMP_DECLARE_KERNEL_FAMILY_(family) \
  void register_##family##_kernels(KernelRegistry& registry);
#define AMP_DECLARE_KERNEL_FAMILIES(backend_namespace) \
  namespace backend_namespace {                        \
  AMP_KERNEL_FAMILIES(AMP_DECLARE_KERNEL_FAMILY_)      \
  }

#define AMP_REGISTER_KERNEL_FAMILIES(backend_namespace, registry)      \
  do {                                                                 \
    KernelRegistry& amp_registry_ = (registry);                        \
    AMP_KERNEL_FAMILIES(AMP_CALL_KERNEL_FAMILY_##backend_namespace##_) \
  } while (false)
#define AMP_CALL_KERNEL_FAMILY_cpu_(family) cpu::register_##family##_kernels(amp_registry_);
#define AMP_CALL_KERNEL_FAMILY_cuda_(family) cuda::register_##family##_kernels(amp_registry_);

namespace amp::kernels {

// One op of a family: its dtypes, and the flag its kernel class is built with
// (ConvKernel(transposed), PoolKernel(is_max), MatMulKernel(is_gemm)).
struct FamilyMember {
  graph::OpType op;
  std::vector<DType> dtypes;
  bool variant = false;
};

// The floating types the vendor libraries (oneDNN, cuDNN, cuBLASLt) run.
inline const std::vector<DType>& library_float_dtypes() {
  static const std::vector<DType> kDTypes = {DType::kF32, DType::kF16, DType::kBF16};
  return kDTypes;
}

inline const std::vector<FamilyMember>& conv_family() {
  static const std::vector<FamilyMember> kMembers = {
      {graph::OpType::kConv, library_float_dtypes(), false},
      {graph::OpType::kConvTranspose, library_float_dtypes(), true}};
  return kMembers;
}

// MaxPool also runs on 8-bit integers (quantized detectors); averaging needs floats.
inline const std::vector<FamilyMember>& pool_family() {
  static const std::vector<FamilyMember> kMembers = {
      {graph::OpType::kMaxPool,
       {DType::kF32, DType::kF16, DType::kBF16, DType::kI8, DType::kU8},
       true},
      {graph::OpType::kAveragePool, library_float_dtypes(), false}};
  return kMembers;
}

inline const std::vector<FamilyMember>& matmul_family() {
  static const std::vector<FamilyMember> kMembers = {
      {graph::OpType::kMatMul, library_float_dtypes(), false},
      {graph::OpType::kGemm, library_float_dtypes(), true}};
  return kMembers;
}

// Interpolation needs floats; nearest also runs on integer tensors (prepare() says so).
inline const std::vector<FamilyMember>& resize_family() {
  static const std::vector<FamilyMember> kMembers = {
      {graph::OpType::kResize,
       {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kU8, DType::kI8, DType::kI16,
        DType::kI32, DType::kI64}}};
  return kMembers;
}

// Range: the floats and the signed integers wider than 8 bits.
inline const std::vector<DType>& range_dtypes() {
  static const std::vector<DType> kDTypes = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                             DType::kI64, DType::kI32, DType::kI16};
  return kDTypes;
}

// Registers K for `op` on every dtype: the movement ops copy elements, whatever they hold.
template <typename K>
void add_any_dtype_kernel(KernelRegistry& registry, graph::OpType op, Backend backend) {
  registry.add_all(op, backend, all_dtypes(), [] { return std::make_unique<K>(); });
}

// Registers K for every member on `backend`, built as K(member.variant) when it takes the
// flag and K() otherwise.
template <typename K>
void add_kernel_family(KernelRegistry& registry, Backend backend,
                       const std::vector<FamilyMember>& members) {
  for (const FamilyMember& m : members) {
    registry.add_all(m.op, backend, m.dtypes, [variant = m.variant]() -> std::unique_ptr<Kernel> {
      if constexpr (std::is_constructible_v<K, bool>) {
        return std::make_unique<K>(variant);
      } else {
        (void)variant;
        return std::make_unique<K>();
      }
    });
  }
}

}  // namespace amp::kernels
