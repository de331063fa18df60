#include "graph/ir/shape.h"

namespace amp::graph {

bool Shape::is_static() const {
  for (const Dim& d : dims)
    if (!d.is_static()) return false;
  return true;
}

std::optional<int64_t> checked_numel(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > INT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::optional<int64_t> Shape::numel() const {
  // checked_numel's rule, without building the vector of dims (called for every value at
  // every plan build).
  int64_t n = 1;
  for (const Dim& d : dims) {
    if (!d.is_static()) return std::nullopt;
    if (d.value != 0 && n > INT64_MAX / d.value) return std::nullopt;
    n *= d.value;
  }
  return n;
}

std::vector<int64_t> Shape::static_dims() const {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (const Dim& d : dims) out.push_back(d.value);
  return out;
}

std::string Shape::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    if (dims[i].is_static())
      s += std::to_string(dims[i].value);
    else
      s += dims[i].symbol.empty() ? "?" : dims[i].symbol;
  }
  return s + "]";
}

}  // namespace amp::graph
