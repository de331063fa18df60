// The kernel of a plan step whose every output holds zero elements: a model run at batch 0
// or over an empty sequence, or a node that an input's zero dim empties. There is nothing
// to compute, so the plan gives such a step this kernel instead of the op's: it prepares
// nothing and writes nothing, on every backend. The op's kernels then never see an empty
// output, whose count some would divide by (the CPU Attention's tasks did) and whose zero
// dims cuDNN's descriptors refuse. Steps whose output sizes are known only at run time
// (NonZero, ...) keep their kernel: they report the size, empty or not
// (runtime/plan_split.h).
#pragma once

#include <string>

#include "kernels/kernel.h"

namespace amp::runtime {

class EmptyOutputsKernel final : public kernels::Kernel {
 public:
  Status prepare(const kernels::KernelConfig&) override { return Status::ok(); }
  Status run(const kernels::KernelArgs&) const override { return Status::ok(); }
  std::string implementation() const override { return "nothing to compute: empty outputs"; }
};

}  // namespace amp::runtime
