#include "graph/ops/sym_values.h"

#include <algorithm>

namespace amp::graph {
namespace {

using Syms = std::vector<SymInt>;

// The static element count of a value of rank <= 1, if small enough to carry.
std::optional<int64_t> small_length(const Value& v) {
  if (!v.shape || v.shape->rank() > 1) return std::nullopt;
  if (v.shape->rank() == 0) return 1;
  const Dim& d = v.shape->dims[0];
  if (!d.is_static() || d.value > kMaxSymElements) return std::nullopt;
  return d.value;
}

std::optional<std::vector<int64_t>> const_ints_of(const Value* v) {
  if (!v || !v->is_constant() ||
      !(is_integer(v->constant->dtype()) || v->constant->dtype() == DType::kBool) ||
      v->constant->numel() > kMaxSymElements)
    return std::nullopt;
  Result<std::vector<int64_t>> r = v->constant->to_i64_vector();
  if (!r.is_ok()) return std::nullopt;
  return *r;
}

std::optional<Syms> syms_of(const Value* v) {
  return v ? sym_ints(*v) : std::nullopt;
}

// Elementwise over two vectors, a one-element side broadcast against the other.
template <typename F>
std::optional<Syms> elementwise(const Syms& a, const Syms& b, F&& f) {
  if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return std::nullopt;
  const size_t n = a.empty() || b.empty() ? 0 : std::max(a.size(), b.size());
  Syms out(n);
  for (size_t i = 0; i < n; ++i) out[i] = f(a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]);
  return out;
}

SymInt max_or_min(const SymInt& a, const SymInt& b, bool max) {
  if (a == b) return a;
  std::optional<int64_t> x = a.constant_value(), y = b.constant_value();
  if (!x || !y) return {};
  return SymInt::constant(max ? std::max(*x, *y) : std::min(*x, *y));
}

// Slice of a 1-D vector: ONNX's clamping of starts/ends, for one axis.
std::optional<Syms> slice(const Syms& data, int64_t start, int64_t end, int64_t step) {
  const auto n = static_cast<int64_t>(data.size());
  if (step == 0) return std::nullopt;
  auto clamp_index = [n, step](int64_t i) {
    if (i < 0) i = i <= -n ? (step > 0 ? 0 : -1) : i + n;
    return step > 0 ? std::clamp<int64_t>(i, 0, n) : std::clamp<int64_t>(i, -1, n - 1);
  };
  start = clamp_index(start);
  end = clamp_index(end);
  Syms out;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step)
    out.push_back(data[static_cast<size_t>(i)]);
  return out;
}

std::optional<Syms> derive(const Node& n, const std::vector<const Value*>& in) {
  auto input = [&](size_t k) -> const Value* { return k < in.size() ? in[k] : nullptr; };
  switch (n.op) {
    case OpType::kShape: {
      const auto* attrs = std::get_if<ShapeAttrs>(&n.resolved);
      if (!input(0) || !input(0)->shape || !attrs) return std::nullopt;
      Syms out;
      for (int64_t i = attrs->start; i < attrs->end; ++i)
        out.push_back(SymInt::of(input(0)->shape->dims[static_cast<size_t>(i)]));
      return out;
    }
    case OpType::kSize:
      if (!input(0) || !input(0)->shape) return std::nullopt;
      return Syms{dims_product_sym(input(0)->shape->dims)};
    case OpType::kIdentity:
    case OpType::kCast:
    case OpType::kReshape:
    case OpType::kSqueeze:
    case OpType::kUnsqueeze:
    case OpType::kFlatten:
      return syms_of(input(0));
    case OpType::kConcat: {
      Syms out;
      for (const Value* v : in) {
        std::optional<Syms> s = syms_of(v);
        if (!s || !v->shape || v->shape->rank() != 1) return std::nullopt;
        out.insert(out.end(), s->begin(), s->end());
      }
      return out;
    }
    case OpType::kGather: {
      std::optional<Syms> data = syms_of(input(0));
      std::optional<std::vector<int64_t>> idx = const_ints_of(input(1));
      if (!data || !idx || !input(0)->shape || input(0)->shape->rank() != 1) return std::nullopt;
      Syms out;
      const auto len = static_cast<int64_t>(data->size());
      for (int64_t i : *idx) {
        if (i < -len || i >= len) return std::nullopt;
        out.push_back((*data)[static_cast<size_t>(i < 0 ? i + len : i)]);
      }
      return out;
    }
    case OpType::kSlice: {
      std::optional<Syms> data = syms_of(input(0));
      std::optional<std::vector<int64_t>> starts = const_ints_of(input(1)),
                                          ends = const_ints_of(input(2));
      if (!data || !starts || !ends || starts->size() != 1 || ends->size() != 1)
        return std::nullopt;
      if (input(3)) {
        std::optional<std::vector<int64_t>> axes = const_ints_of(input(3));
        if (!axes || axes->size() != 1 || ((*axes)[0] != 0 && (*axes)[0] != -1))
          return std::nullopt;
      }
      int64_t step = 1;
      if (input(4)) {
        std::optional<std::vector<int64_t>> steps = const_ints_of(input(4));
        if (!steps || steps->size() != 1) return std::nullopt;
        step = (*steps)[0];
      }
      return slice(*data, (*starts)[0], (*ends)[0], step);
    }
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
    case OpType::kMax:
    case OpType::kMin: {
      if (in.size() != 2) return std::nullopt;
      std::optional<Syms> a = syms_of(input(0)), b = syms_of(input(1));
      if (!a || !b) return std::nullopt;
      const OpType op = n.op;
      return elementwise(*a, *b, [op](const SymInt& x, const SymInt& y) -> SymInt {
        switch (op) {
          case OpType::kAdd:
            return x + y;
          case OpType::kSub:
            return x - y;
          case OpType::kMul:
            return x * y;
          case OpType::kDiv:
            return exact_div(x, y);
          default:
            return max_or_min(x, y, op == OpType::kMax);
        }
      });
    }
    case OpType::kEqual: {
      // TorchScript's Expand target: Where(Equal(shape, -1), 1, shape).
      std::optional<Syms> a = syms_of(input(0)), b = syms_of(input(1));
      if (!a || !b) return std::nullopt;
      return elementwise(*a, *b, [](const SymInt& x, const SymInt& y) -> SymInt {
        if (x == y) return SymInt::constant(1);
        std::optional<int64_t> cx = x.constant_value(), cy = y.constant_value();
        if (cx && cy) return SymInt::constant(*cx == *cy ? 1 : 0);
        // A sum of products of dims is >= 0: never equal to a negative constant.
        if ((cx && *cx < 0 && y.nonnegative()) || (cy && *cy < 0 && x.nonnegative()))
          return SymInt::constant(0);
        return {};
      });
    }
    case OpType::kWhere: {
      std::optional<Syms> c = syms_of(input(0)), a = syms_of(input(1)), b = syms_of(input(2));
      if (!c || !a || !b) return std::nullopt;
      std::optional<Syms> ab =
          elementwise(*a, *b, [](const SymInt& x, const SymInt&) { return x; });
      if (!ab) return std::nullopt;
      const size_t n = std::max(c->size(), ab->size());
      if ((c->size() != n && c->size() != 1) || (a->size() != n && a->size() != 1) ||
          (b->size() != n && b->size() != 1) || c->empty() || a->empty() || b->empty())
        return std::nullopt;
      Syms out(n);
      for (size_t i = 0; i < n; ++i) {
        const std::optional<int64_t> pick = (*c)[c->size() == 1 ? 0 : i].constant_value();
        if (pick) out[i] = *pick ? (*a)[a->size() == 1 ? 0 : i] : (*b)[b->size() == 1 ? 0 : i];
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::vector<SymInt>> sym_ints(const Value& v) {
  if (std::optional<std::vector<int64_t>> c = const_ints_of(&v)) {
    if (c->size() > 1 && (!v.shape || v.shape->rank() != 1)) return std::nullopt;
    Syms out;
    for (int64_t x : *c) out.push_back(SymInt::constant(x));
    return out;
  }
  return v.sym_value;
}

void propagate_sym_values(const Node& n, const std::vector<const Value*>& inputs,
                          std::vector<Value*>& outputs) {
  for (Value* v : outputs)
    if (v) v->sym_value.reset();
  if (outputs.size() != 1 || !outputs[0] ||
      !(is_integer(outputs[0]->dtype) || outputs[0]->dtype == DType::kBool))
    return;
  Value& out = *outputs[0];
  const std::optional<int64_t> len = small_length(out);
  if (!len) return;
  std::optional<Syms> s = derive(n, inputs);
  // Only what has the output's element count, and says something a constant would not.
  if (!s || static_cast<int64_t>(s->size()) != *len) return;
  if (std::none_of(s->begin(), s->end(), [](const SymInt& x) { return x.known(); })) return;
  out.sym_value = std::move(*s);
}

}  // namespace amp::graph
