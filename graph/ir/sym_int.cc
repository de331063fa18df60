#include "graph/ir/sym_int.h"

#include <algorithm>
#include <cctype>
#include <climits>

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
  if (v != 0) r.terms_[{}] = v;
  return r;
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
    int64_t& t = r.terms_[m];
    if (__builtin_add_overflow(t, coef, &t)) return {};
    if (t == 0) r.terms_.erase(m);
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
  if (!known_) return std::nullopt;
  if (terms_.empty()) return 0;
  if (terms_.size() == 1 && terms_.begin()->first.empty()) return terms_.begin()->second;
  return std::nullopt;
}

bool SymInt::nonnegative() const {
  if (!known_) return false;
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
  if (terms_.empty()) return "0";
  // Higher degree first, then by name; the constant last.
  std::vector<std::pair<Monomial, int64_t>> order(terms_.begin(), terms_.end());
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
  for (const auto& [m, c] : b.terms_) {
    int64_t& t = r.terms_[m];
    if (__builtin_add_overflow(t, c, &t)) return {};
    if (t == 0) r.terms_.erase(m);
  }
  if (r.terms_.size() > kMaxTerms) return {};
  return r;
}

SymInt operator-(const SymInt& a, const SymInt& b) {
  return a + SymInt::constant(-1) * b;
}

SymInt operator*(const SymInt& a, const SymInt& b) {
  if (!a.known_ || !b.known_) return {};
  SymInt r = SymInt::constant(0);
  for (const auto& [ma, ca] : a.terms_)
    for (const auto& [mb, cb] : b.terms_) {
      SymInt::Monomial m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      if (m.size() > kMaxDegree) return {};
      std::sort(m.begin(), m.end());
      int64_t p;
      if (__builtin_mul_overflow(ca, cb, &p)) return {};
      int64_t& t = r.terms_[m];
      if (__builtin_add_overflow(t, p, &t)) return {};
      if (t == 0) r.terms_.erase(m);
      if (r.terms_.size() > kMaxTerms) return {};
    }
  return r;
}

SymInt exact_div(const SymInt& a, const SymInt& b) {
  if (!a.known_ || !b.known_ || b.terms_.size() != 1) return {};
  const auto& [mb, cb] = *b.terms_.begin();
  if (std::optional<int64_t> ca = a.constant_value(); ca && mb.empty()) {
    if (*ca < 0 || cb <= 0) return {};
    return SymInt::constant(*ca / cb);
  }
  SymInt r = SymInt::constant(0);
  for (const auto& [ma, ca] : a.terms_) {
    if (ca % cb != 0 || (cb == -1 && ca == INT64_MIN)) return {};
    SymInt::Monomial rest = ma;  // ma minus mb as multisets
    for (const std::string& f : mb) {
      auto it = std::find(rest.begin(), rest.end(), f);
      if (it == rest.end()) return {};
      rest.erase(it);
    }
    r.terms_[rest] = ca / cb;
  }
  return r;
}

SymInt dims_product_sym(const std::vector<Dim>& dims) {
  SymInt p = SymInt::constant(1);
  for (const Dim& d : dims) p = p * SymInt::of(d);
  return p;
}

}  // namespace amp::graph
