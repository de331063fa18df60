#include "graph/passes/amp/casting_checker.h"

#include <cmath>

#include "runtime/common/half.h"

namespace amp::graph {
namespace {

bool has_float_io(const Graph& g, const Node& n) {
  for (ValueId v : n.inputs)
    if (v != kNoValue && is_float(g.value(v).dtype)) return true;
  for (ValueId v : n.outputs)
    if (v != kNoValue && is_float(g.value(v).dtype)) return true;
  return false;
}

// A constant input k that exists and does not fit the low type.
bool constant_input_overflows(const Graph& g, const Node& n, size_t k, DType low,
                              ConstantFitCache* cache) {
  if (k >= n.inputs.size() || n.inputs[k] == kNoValue) return false;
  const Value& v = g.value(n.inputs[k]);
  if (!v.is_constant() || !is_float(v.dtype)) return false;
  return cache ? !cache->fits(n.inputs[k]) : !constant_fits(*v.constant, low);
}

}  // namespace

double low_type_max(DType t) {
  return t == DType::kBF16 ? static_cast<double>(kBFloat16Max) : static_cast<double>(kHalfMax);
}

bool constant_fits(const TensorData& t, DType low) {
  const double max = low_type_max(low);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double x = t.f64_at(i);
    if (std::isfinite(x) && std::fabs(x) > max) return false;
  }
  return true;
}

bool ConstantFitCache::fits(ValueId v) {
  int8_t& s = state_[static_cast<size_t>(v)];
  if (s < 0) s = constant_fits(*g_.value(v).constant, low_) ? 1 : 0;
  return s == 1;
}

ColorDecision check_node(const Graph& g, const Node& n, DType low, ConstantFitCache* cache) {
  ColorDecision d;
  if (!has_float_io(g, n)) {
    d.float_node = false;
    d.reason = "no float data";
    return d;
  }
  for (const auto* list : {&n.inputs, &n.outputs})
    for (ValueId v : *list)
      if (v != kNoValue && g.value(v).dtype == DType::kF64) {
        d.float_node = false;
        d.reason = "f64 data (AMP converts f32 only)";
        return d;
      }
  d.color = default_amp_color(n.op);
  d.reason = std::string("default ") + std::string(amp_color_name(d.color));
  switch (n.op) {
    case OpType::kClip:
      if (constant_input_overflows(g, n, 1, low, cache) ||
          constant_input_overflows(g, n, 2, low, cache)) {
        d.color = AmpColor::kNever;
        d.reason = "Clip bounds outside the " + std::string(dtype_name(low)) + " range";
      }
      break;
    case OpType::kWhere:
      if (constant_input_overflows(g, n, 1, low, cache) ||
          constant_input_overflows(g, n, 2, low, cache)) {
        d.color = AmpColor::kNever;
        d.reason = "Where fill value outside the " + std::string(dtype_name(low)) + " range";
      }
      break;
    case OpType::kPad:
      if (constant_input_overflows(g, n, 2, low, cache)) {
        d.color = AmpColor::kNever;
        d.reason = "Pad value outside the " + std::string(dtype_name(low)) + " range";
      }
      break;
    case OpType::kAveragePool: {
      // The window's element count (from the record shape inference validated),
      // saturating: only "over 65536" matters, and a hostile kernel_shape must not
      // overflow int64 (found by fuzzing).
      constexpr int64_t kMaxLowWindow = 65536;
      const PoolAttrs* pool = std::get_if<PoolAttrs>(&n.resolved);
      int64_t window = 1;
      if (pool != nullptr)
        for (int64_t k : pool->window.kernel) {
          window *= std::min<int64_t>(std::max<int64_t>(k, 1), kMaxLowWindow + 1);
          if (window > kMaxLowWindow) break;
        }
      if (window > kMaxLowWindow) {
        d.color = AmpColor::kNever;
        d.reason = "AveragePool window of over " + std::to_string(kMaxLowWindow) + " elements";
      }
      break;
    }
    default:
      break;
  }
  return d;
}

}  // namespace amp::graph
