#include "graph/ir/sym_int.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <tuple>

namespace amp::graph {
namespace {

// Bounds on what arithmetic builds, so a hostile chain of Mul cannot grow a polynomial
// without limit: beyond them the result is unknown.
constexpr size_t kMaxTerms = 16;
constexpr size_t kMaxDegree = 8;

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::optional<int64_t> parse_int(const std::string& s) {
  if (!all_digits(s) || s.size() > 18) return std::nullopt;
  return std::stoll(s);
}

// Splits "a + 2*b - 3" into signed terms {+"a", +"2*b", -"3"}.
std::vector<std::pair<int, std::string>> split_terms(const std::string& s) {
  std::vector<std::pair<int, std::string>> out;
  int sign = 1;
  size_t start = 0;
  if (s.rfind("-", 0) == 0 && s.size() > 1 && s[1] != ' ') {
    sign = -1;
    start = 1;
  }
  size_t i = start;
  while (true) {
    const size_t plus = s.find(" + ", i), minus = s.find(" - ", i);
    const size_t next = std::min(plus, minus);
    out.emplace_back(sign, s.substr(start, next == std::string::npos ? next : next - start));
    if (next == std::string::npos) break;
    sign = next == plus ? 1 : -1;
    start = i = next + 3;
  }
  return out;
}

}  // namespace

SymInt SymInt::constant(int64_t v) {
  SymInt r;
  r.known_ = true;
  r.constant_ = v;
  return r;
}

bool SymInt::add_term(const Monomial& m, int64_t c) {
  if (m.empty()) return !__builtin_add_overflow(constant_, c, &constant_);
  int64_t& t = terms_[m];
  if (__builtin_add_overflow(t, c, &t)) return false;
  if (t == 0) terms_.erase(m);
  return true;
}

template <typename Fn>
void SymInt::for_each_term(Fn&& fn) const {
  if (constant_ != 0) fn(Monomial{}, constant_);
  for (const auto& [m, c] : terms_) fn(m, c);
}

size_t SymInt::term_count() const {
  return terms_.size() + (constant_ != 0 ? 1 : 0);
}

SymInt SymInt::of(const Dim& d) {
  if (d.is_static()) return constant(d.value);
  if (d.symbol.empty()) return {};
  SymInt r;
  r.known_ = true;
  for (const auto& [sign, text] : split_terms(d.symbol)) {
    int64_t coef = sign;
    Monomial m;
    size_t start = 0;
    bool ok = !text.empty();
    for (size_t k = 0; ok && start <= text.size(); ++k) {
      size_t star = text.find('*', start);
      if (star == std::string::npos) star = text.size();
      const std::string factor = text.substr(start, star - start);
      if (factor.empty()) ok = false;
      std::optional<int64_t> c = k == 0 ? parse_int(factor) : std::nullopt;
      if (c)
        coef *= *c;
      else if (all_digits(factor))
        ok = false;  // a number after the first factor, or one too large
      else
        m.push_back(factor);
      start = star + 1;
    }
    if (!ok || m.size() > kMaxDegree) return atom(d.symbol);  // not a polynomial we print
    std::sort(m.begin(), m.end());
    if (!r.add_term(m, coef)) return {};
  }
  // A name that spells only numbers ("7") is a name, not that constant.
  if (r.constant_value()) return atom(d.symbol);
  return r;
}

SymInt SymInt::atom(const std::string& name) {
  SymInt r;
  r.known_ = true;
  r.terms_[{name}] = 1;
  return r;
}

std::optional<int64_t> SymInt::constant_value() const {
  if (!known_ || !terms_.empty()) return std::nullopt;
  return constant_;
}

bool SymInt::nonnegative() const {
  if (!known_ || constant_ < 0) return false;
  for (const auto& [m, c] : terms_)
    if (c <= 0) return false;
  return true;
}

Dim SymInt::to_dim() const {
  if (!known_) return Dim();
  if (std::optional<int64_t> c = constant_value()) return *c >= 0 ? Dim(*c) : Dim();
  return Dim::symbolic(to_string());
}

std::string SymInt::to_string() const {
  if (!known_) return "?";
  if (term_count() == 0) return "0";
  // Higher degree first, then by name; the constant last.
  std::vector<std::pair<Monomial, int64_t>> order(terms_.begin(), terms_.end());
  if (constant_ != 0) order.emplace_back(Monomial{}, constant_);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string s;
  for (size_t i = 0; i < order.size(); ++i) {
    const auto& [m, coef] = order[i];
    const uint64_t mag = coef < 0 ? 0 - static_cast<uint64_t>(coef) : static_cast<uint64_t>(coef);
    if (i == 0)
      s += coef < 0 ? "-" : "";
    else
      s += coef < 0 ? " - " : " + ";
    std::string term = (mag != 1 || m.empty()) ? std::to_string(mag) : "";
    for (const std::string& f : m) term += (term.empty() ? "" : "*") + f;
    s += term;
  }
  return s;
}

SymInt operator+(const SymInt& a, const SymInt& b) {
  if (!a.known_ || !b.known_) return {};
  SymInt r = a;
  bool ok = true;
  b.for_each_term([&](const SymInt::Monomial& m, int64_t c) { ok = ok && r.add_term(m, c); });
  if (!ok || r.term_count() > kMaxTerms) return {};
  return r;
}

SymInt operator-(const SymInt& a, const SymInt& b) {
  return a + SymInt::constant(-1) * b;
}

SymInt operator*(const SymInt& a, const SymInt& b) {
  if (!a.known_ || !b.known_) return {};
  SymInt r = SymInt::constant(0);
  // Constants, the common case once dims are bound: no monomials to build.
  if (a.terms_.empty() && b.terms_.empty())
    return __builtin_mul_overflow(a.constant_, b.constant_, &r.constant_) ? SymInt{} : r;
  bool ok = true;
  a.for_each_term([&](const SymInt::Monomial& ma, int64_t ca) {
    b.for_each_term([&](const SymInt::Monomial& mb, int64_t cb) {
      if (!ok) return;
      SymInt::Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      int64_t p;
      ok = m.size() <= kMaxDegree && !__builtin_mul_overflow(ca, cb, &p);
      if (!ok) return;
      std::sort(m.begin(), m.end());
      ok = r.add_term(m, p) && r.term_count() <= kMaxTerms;
    });
  });
  return ok ? r : SymInt{};
}

SymInt exact_div(const SymInt& a, const SymInt& b) {
  if (!a.known_ || !b.known_ || b.term_count() != 1) return {};
  if (b.terms_.empty()) {  // b a constant
    const int64_t cb = b.constant_;
    if (std::optional<int64_t> ca = a.constant_value()) {
      if (*ca < 0 || cb <= 0) return {};
      return SymInt::constant(*ca / cb);
    }
  }
  SymInt::Monomial mb;
  int64_t cb = b.constant_;
  if (!b.terms_.empty()) std::tie(mb, cb) = *b.terms_.begin();
  SymInt r = SymInt::constant(0);
  bool ok = true;
  a.for_each_term([&](const SymInt::Monomial& ma, int64_t ca) {
    if (!ok) return;
    if (ca % cb != 0 || (cb == -1 && ca == INT64_MIN)) {
      ok = false;
      return;
    }
    SymInt::Monomial rest = ma;  // ma minus mb as multisets
    for (const std::string& f : mb) {
      auto it = std::find(rest.begin(), rest.end(), f);
      if (it == rest.end()) {
        ok = false;
        return;
      }
      rest.erase(it);
    }
    ok = r.add_term(rest, ca / cb);
  });
  return ok ? r : SymInt{};
}

SymInt dims_product_sym(const std::vector<Dim>& dims) {
  SymInt p = SymInt::constant(1);
  for (const Dim& d : dims) p = p * SymInt::of(d);
  return p;
}

}  // namespace amp::graph
