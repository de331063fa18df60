// Registers a backend's axis-reduction kernel for every row of reduction_family.def:
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

template <template <typename, typename> class K>
void add_reduction_family(KernelRegistry& registry, Backend backend) {
#define AMP_REDUCE(op, reducer, types) \
  add_reduce_kernels<K, reducer>(registry, graph::OpType::k##op, backend, reduction::types{});
#include "kernels/common/reduction_family.def"
#undef AMP_REDUCE
}

}  // namespace amp::kernels
