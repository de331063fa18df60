// Options::check_numerics: after each low-precision step, look for Inf/NaN in its outputs.
//
// A step is reported only when its outputs hold a non-finite value while all of its float
// inputs were finite: that node made the overflow (an fp16 Conv/MatMul/Exp past 65504, a
// bf16 sum losing everything), so pinning it to fp32 in a policy file is the fix. NaN or
// Inf that the caller fed in propagates through later nodes without being reported, as
// the math says it should. The check reads host copies of the step's tensors; backends
// gather those (the CUDA executor copies them back), so it is a debugging mode, not a
// production one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::runtime {

struct HostTensorView {
  DType dtype = DType::kUndefined;
  const void* data = nullptr;  // host memory; null for absent optionals
  size_t numel = 0;
};

// Index of the first non-finite element of a float tensor, or -1 (non-float: always -1).
int64_t first_non_finite(const HostTensorView& t);

// True when every float tensor in `inputs` is free of Inf/NaN. Backends call this on a
// step's inputs *before* running it: kernels may run in place (Add, Exp, Clip write over
// input 0) or alias a view, so after the step the input buffer may hold the output.
bool all_finite(const std::vector<HostTensorView>& inputs);

// After the step ran: OK, or kNumericOverflow naming the node, the output, its dtype and
// the first bad value. `inputs_were_finite` comes from all_finite before the step; when
// false, a non-finite output is propagation and is not reported.
Status check_step_numerics(const graph::Graph& g, const graph::Node& node, bool inputs_were_finite,
                           const std::vector<HostTensorView>& outputs);

}  // namespace amp::runtime
