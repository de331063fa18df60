// Output accuracy against a reference: what amprun prints for --compare and
// --compare-precision, and what its JSON "accuracy" array holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amp/tensor.h"

namespace amprun {

struct Accuracy {
  std::string output;
  double max_abs_err = 0;
  double max_rel_err = 0;    // |a - e| / max(|e|, 1e-6)
  double cosine = 1;         // cosine similarity of the flattened tensors
  double argmax_agree = -1;  // fraction of rows (last axis) whose argmax matches; -1 if n/a
  bool pass = true;  // every element within atol * max(1, max|e|) + rtol * |e| (exact for integers)
  std::string problem;  // shape/dtype mismatch, NaN, ...
  // Elements NaN in both, or the same Inf in both: they agree but measure nothing, so the
  // report says how many (an all-NaN output "passes" with cosine 1 otherwise).
  int64_t nonfinite_both = 0;
  int64_t elements = 0;
};

Accuracy compare_outputs(const std::string& name, const amp::Tensor& expected,
                         const amp::Tensor& actual, double rtol, double atol);

}  // namespace amprun
