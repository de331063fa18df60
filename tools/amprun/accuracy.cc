#include "tools/amprun/accuracy.h"

#include <algorithm>
#include <cmath>

namespace amprun {

Tolerance default_tolerance(amp::Precision precision) {
  double u = 0;
  switch (precision) {
    case amp::Precision::kFp32:
      return {1e-3, 1e-4};
    case amp::Precision::kFp16:
      u = 0x1p-11;
      break;
    case amp::Precision::kBf16:
    case amp::Precision::kAuto:  // its bf16 nodes
      u = 0x1p-8;
      break;
  }
  return {16 * u, 8 * u};
}

Accuracy compare_outputs(const std::string& name, const amp::Tensor& e, const amp::Tensor& a,
                         double rtol, double atol) {
  Accuracy r;
  r.output = name;
  if (e.shape() != a.shape()) {
    r.pass = false;
    r.problem = "shape " + a.describe() + ", expected " + e.describe();
    return r;
  }
  const bool exact = !amp::is_float(e.dtype());
  const std::vector<float> ev = e.to_float_vector();
  const std::vector<float> av = a.to_float_vector();
  // atol is in units of the output's scale, its largest finite magnitude: floating-point
  // error is relative, so what a low-precision run may be off by on any element grows with
  // the largest values the output carries, and shrinks with them (logits under 1 from a
  // small model are judged as finely as logits of 10s). A scale of 0 asks for exact zeros.
  double scale = 0.0;
  for (const float x : ev)
    if (std::isfinite(x)) scale = std::max(scale, std::fabs(static_cast<double>(x)));
  r.scale = scale;
  atol *= scale;
  double dot = 0, ne = 0, na = 0;
  r.elements = static_cast<int64_t>(ev.size());
  for (size_t i = 0; i < ev.size(); ++i) {
    const double x = ev[i], y = av[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (!(std::isnan(x) && std::isnan(y))) {
        r.pass = false;
        if (r.problem.empty()) r.problem = "NaN at element " + std::to_string(i);
      } else {
        ++r.nonfinite_both;
      }
      continue;
    }
    if (std::isinf(x) || std::isinf(y)) {
      if (x != y) {
        r.pass = false;
        if (r.problem.empty()) r.problem = "Inf mismatch at element " + std::to_string(i);
      } else {
        ++r.nonfinite_both;
      }
      continue;
    }
    const double diff = std::fabs(x - y);
    r.max_abs_err = std::max(r.max_abs_err, diff);
    r.max_rel_err = std::max(r.max_rel_err, diff / std::max(std::fabs(x), 1e-6));
    if (exact ? diff != 0 : diff > atol + rtol * std::fabs(x)) r.pass = false;
    dot += x * y;
    ne += x * x;
    na += y * y;
  }
  r.cosine = (ne == 0 && na == 0) ? 1.0 : (ne == 0 || na == 0) ? 0.0 : dot / std::sqrt(ne * na);
  // argmax agreement over the last axis (classifier logits / probabilities).
  if (!e.shape().empty() && e.shape().back() > 1 && amp::is_float(e.dtype())) {
    const size_t cols = static_cast<size_t>(e.shape().back());
    const size_t rows = ev.size() / cols;
    size_t agree = 0;
    for (size_t row = 0; row < rows; ++row) {
      auto eb = ev.begin() + static_cast<long>(row * cols);
      auto ab = av.begin() + static_cast<long>(row * cols);
      agree += std::max_element(eb, eb + static_cast<long>(cols)) - eb ==
               std::max_element(ab, ab + static_cast<long>(cols)) - ab;
    }
    r.argmax_agree = rows ? static_cast<double>(agree) / rows : -1;
  }
  return r;
}

}  // namespace amprun
