#include "graph/ir/shape.h"

namespace amp::graph {

bool Shape::is_static() const {
  for (const Dim& d : dims)
    if (!d.is_static()) return false;
  return true;
}

namespace {

// The one overflow rule for products of dims: a negative (unknown) dim or a product past
// int64 gives nullopt. `value_of` reads a dim's value, so Shape::numel need not build a
// vector of int64s (it is called for every value at every plan build).
template <typename Range, typename ValueOf>
std::optional<int64_t> checked_product(const Range& dims, ValueOf value_of) {
  int64_t n = 1;
  for (const auto& dim : dims) {
    const int64_t d = value_of(dim);
    if (d < 0) return std::nullopt;
    if (d != 0 && n > INT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

}  // namespace

std::optional<int64_t> checked_numel(const std::vector<int64_t>& dims) {
  return checked_product(dims, [](int64_t d) { return d; });
}

std::optional<int64_t> Shape::numel() const {
  return checked_product(dims, [](const Dim& d) { return d.value; });
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
