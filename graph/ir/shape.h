// Shapes with static and symbolic dims.
//
// A Dim is either static (value >= 0) or symbolic (value == kDynamic) with an optional
// name: "batch", "N". Two symbolic dims with the same non-empty name are the same size;
// an unnamed symbolic dim is unknown. `amp-convert --shape` and run-time binding replace
// symbols with values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace amp::graph {

inline constexpr int64_t kDynamic = -1;

struct Dim {
  int64_t value = kDynamic;
  std::string symbol;  // only meaningful when value == kDynamic

  Dim() = default;
  Dim(int64_t v) : value(v) {}  // NOLINT: implicit so {1, 3, 224, 224} reads naturally
  static Dim symbolic(std::string name) {
    Dim d;
    d.symbol = std::move(name);
    return d;
  }
  bool is_static() const { return value >= 0; }
  bool operator==(const Dim& o) const {
    return value == o.value && (value >= 0 || symbol == o.symbol);
  }
};

struct Shape {
  std::vector<Dim> dims;

  Shape() = default;
  Shape(std::vector<Dim> d) : dims(std::move(d)) {}  // NOLINT
  Shape(std::initializer_list<int64_t> d) {
    for (int64_t v : d) dims.emplace_back(v);
  }
  static Shape from_static(const std::vector<int64_t>& d) {
    Shape s;
    for (int64_t v : d) s.dims.emplace_back(v);
    return s;
  }

  size_t rank() const { return dims.size(); }
  bool is_static() const;
  // Product of the dims; nullopt when any dim is symbolic or the product overflows int64.
  std::optional<int64_t> numel() const;
  // The dims as integers; only valid when is_static().
  std::vector<int64_t> static_dims() const;
  bool operator==(const Shape& o) const { return dims == o.dims; }
  // "[1,3,N,224]" (symbols by name, "?" when unnamed).
  std::string to_string() const;
};

// Element count of static dims with overflow checking; nullopt on a negative dim or
// overflow. Used wherever sizes come from untrusted files.
std::optional<int64_t> checked_numel(const std::vector<int64_t>& dims);

}  // namespace amp::graph
