// Output accuracy against a reference: what amprun prints for --compare and
// --compare-precision, and what its JSON "accuracy" array holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amp/options.h"
#include "amp/tensor.h"

namespace amprun {

struct Accuracy {
  std::string output;
  double max_abs_err = 0;
  double max_rel_err = 0;    // |a - e| / max(|e|, 1e-6)
  double cosine = 1;         // cosine similarity of the flattened tensors
  double argmax_agree = -1;  // fraction of rows (last axis) whose argmax matches; -1 if n/a
  double scale = 0;          // the expected output's largest finite magnitude
  // Every finite element within atol * scale + rtol * |e| (exact for integers); NaN and Inf
  // where the expected has them.
  bool pass = true;
  std::string problem;  // shape/dtype mismatch, NaN, ...
  // Elements NaN in both, or the same Inf in both: they agree but measure nothing, so the
  // report says how many (an all-NaN output "passes" with cosine 1 otherwise).
  int64_t nonfinite_both = 0;
  int64_t elements = 0;
};

struct Tolerance {
  double rtol = 0;
  double atol = 0;  // in units of the expected output's largest magnitude
};

// amprun's default verdict. fp32 is judged against another runtime's fp32 (a different
// summation order): rtol 1e-3, atol 1e-4 of the output's largest magnitude. A low-precision
// run is judged in units of its type's unit roundoff u (2^-11 for fp16, 2^-8 for bf16; auto
// takes bf16's): atol 8u of the largest magnitude, rtol 16u. Measured on the README's
// transformer and torchvision models and the shared models, a healthy plan's worst element
// is off by at most 2.7u of its output's largest magnitude beyond 8u of its own, in both
// types (GPT-2's and Llama's logits 2.4-2.7u, which the earlier fixed atol of about 2u failed
// at cosine 0.999999), while a node that accumulates or normalizes in low precision puts
// errors of 20u and more on its outputs. --rtol / --atol override.
Tolerance default_tolerance(amp::Precision precision);

Accuracy compare_outputs(const std::string& name, const amp::Tensor& expected,
                         const amp::Tensor& actual, double rtol, double atol);

}  // namespace amprun
