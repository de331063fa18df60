// Ops whose output size depends on input values (trait kDataDependent: NonZero, Compress,
// NonMaxSuppression). Shape inference leaves that one dim of output 0 unknown; once the
// inputs' dims are bound, data_dependent_dim() says which dim it is and the largest size it
// can take, so the runtime can plan the output at that bound (as TensorRT's output allocator
// does), run the kernel, read the real size the kernel reports (KernelArgs::dynamic_size)
// and plan the rest of the model for it (runtime/execution_plan.h, continuations).
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

struct DataDependentDim {
  size_t axis = 0;    // the dim of output 0 the kernel decides
  int64_t bound = 0;  // its largest size for the node's (static) input dims
};

// For a kDataDependent node whose inputs have static dims.
Result<DataDependentDim> data_dependent_dim(const Graph& g, const Node& n);

}  // namespace amp::graph
