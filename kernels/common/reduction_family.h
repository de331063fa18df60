// Registers a backend's reduction-family kernels with the dtypes written here once: the axis
// reductions for every row of reduction_family.def,
//
//   template <typename T, typename Reducer> class ReduceKernel : public Kernel { ... };
//   add_reduction_family<ReduceKernel>(registry, Backend::kCpu);
//
// so a Reduce* op's reducer and dtypes are written once, in the table.
#pragma once

#include <memory>

#include "kernels/common/reduction_functors.h"
#include "kernels/common/reduction_types.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

template <template <typename, typename> class K, typename Reducer, typename... Ts>
void add_reduce_kernels(KernelRegistry& registry, graph::OpType op, Backend backend,
                        reduction::TypeList<Ts...>) {
  (registry.add({op, backend, reduction::dtype_of<Ts>(),
                 [] { return std::make_unique<K<Ts, Reducer>>(); }, -1}),
   ...);
}

// Registers class template K<T> for `op` on `backend`, one kernel per storage type of the
// list (the reduction family's other ops: ArgMax, GlobalAveragePool, the normalizations),
// so their dtypes are the lists of reduction_types.h on every backend. in_place_input: see
// KernelDef (a backend's kernel may or may not allow it).
template <template <typename> class K, typename... Ts>
void add_typed_kernels(KernelRegistry& registry, graph::OpType op, Backend backend,
                       reduction::TypeList<Ts...>, int in_place_input = -1) {
  (registry.add({op, backend, reduction::dtype_of<Ts>(), [] { return std::make_unique<K<Ts>>(); },
                 in_place_input}),
   ...);
}

// Softmax and LogSoftmax from one class template K<T, kLog> over the float types.
template <template <typename, bool> class K, bool kLog>
struct SoftmaxVariant {
  template <typename T>
  using type = K<T, kLog>;
};
template <template <typename, bool> class K>
void add_softmax_family(KernelRegistry& registry, Backend backend, int in_place_input = -1) {
  add_typed_kernels<SoftmaxVariant<K, false>::template type>(
      registry, graph::OpType::kSoftmax, backend, reduction::FloatTypes{}, in_place_input);
  add_typed_kernels<SoftmaxVariant<K, true>::template type>(
      registry, graph::OpType::kLogSoftmax, backend, reduction::FloatTypes{}, in_place_input);
}

template <template <typename, typename> class K>
void add_reduction_family(KernelRegistry& registry, Backend backend) {
#define AMP_REDUCE(op, reducer, types) \
  add_reduce_kernels<K, reducer>(registry, graph::OpType::k##op, backend, reduction::types{});
#include "kernels/common/reduction_family.def"
#undef AMP_REDUCE
}

}  // namespace amp::kernels
