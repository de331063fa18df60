// SymInt: an integer that shape inference knows as a constant or as a polynomial in named
// symbolic dims ("past + 1", "8*seq", "batch*seq"), or does not know.
//
// Why: exporters compute the shapes of dynamic models at run time (torch.export writes
// Reshape(x, Concat(Shape(x)[0:2], [8, 64])), a KV cache is Concat(past, new) along a
// symbolic axis). With only named and unnamed dims, every such shape became unknown, and
// the patterns the load-time fusions match (attention's head split, GQA's repeated kv heads)
// were lost on exactly the models users export with dynamic axes. Dims derived by
// arithmetic get a canonical name from their polynomial, so two paths to "past + 1" name
// the same dim and compare equal like any other symbol.
//
// Representation: the constant term, and a map from the other monomials (sorted symbol
// names, possibly repeated) to nonzero coefficients. A Dim's symbol is parsed back into
// its polynomial: terms separated by " + " / " - ", factors by "*", a leading integer the
// coefficient; any other name is one atom (the importer's names, "batch", "seq_len"). A
// name that happens to contain those separators is read as the expression it spells,
// which can only make shape inference relate dims that the plan's static shapes, checked
// at binding, then decide. Arithmetic that overflows int64 gives unknown.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/shape.h"

namespace amp::graph {

class SymInt {
 public:
  SymInt() = default;  // unknown
  static SymInt constant(int64_t v);
  // A static dim is its constant, a named dim its polynomial, an unnamed dim unknown.
  static SymInt of(const Dim& d);

  bool known() const { return known_; }
  // The value when it is a known constant.
  std::optional<int64_t> constant_value() const;
  // As a dim: a constant >= 0 is static, a polynomial is named by to_string(), anything
  // else (unknown, a negative constant) is an unnamed dim.
  Dim to_dim() const;
  // Canonical: the same polynomial always prints the same ("?" when unknown).
  std::string to_string() const;

  friend SymInt operator+(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a, const SymInt& b);
  friend SymInt operator*(const SymInt& a, const SymInt& b);
  // a / b where the division is exact term by term (b a constant or one monomial), or both
  // are constants (floor division, as ONNX's integer Div truncates: only for a, b >= 0).
  friend SymInt exact_div(const SymInt& a, const SymInt& b);
  // Known to be >= 0 whatever its symbols are (each a dim, >= 0): every coefficient > 0.
  bool nonnegative() const;
  bool operator==(const SymInt& o) const {
    return known_ && o.known_ && constant_ == o.constant_ && terms_ == o.terms_;
  }

 private:
  using Monomial = std::vector<std::string>;  // sorted
  static SymInt atom(const std::string& name);
  // Adds c * m; false when a coefficient overflows.
  bool add_term(const Monomial& m, int64_t c);
  // fn(monomial, coefficient) for each nonzero term, the constant's (empty monomial) first.
  template <typename Fn>
  void for_each_term(Fn&& fn) const;
  size_t term_count() const;
  bool known_ = false;
  // The constant term apart: a plan binds every dim, and then every SymInt is a constant,
  // which so needs no allocation.
  int64_t constant_ = 0;
  std::map<Monomial, int64_t> terms_;  // the other terms; no zero coefficients
};

// The product of dims as a SymInt (unknown if any dim is unnamed symbolic).
SymInt dims_product_sym(const std::vector<Dim>& dims);

}  // namespace amp::graph
