#include "graph/passes/fuse_decomposed_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "graph/passes/pass_util.h"

namespace amp::graph {
namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;

// A rewrite found by a matcher: `nodes` (the root last) become one `op` node in the root's
// place, with the root's name and output.
struct Fusion {
  std::vector<NodeId> nodes;
  OpType op = OpType::kIdentity;
  int32_t op_version = 0;
  std::vector<ValueId> inputs;
  Attributes attrs;
  bool new_output_shape = false;  // the root's output changes shape: inference sets it again
};

bool commutative(OpType op) {
  return op == OpType::kAdd || op == OpType::kMul;
}

class Matcher {
 public:
  // `names`: the value names of g, for the constants a match adds (O(1) each).
  Matcher(Graph& g, NameTable& names)
      : g_(g),
        names_(names),
        producer_(compute_producers(g)),
        consumers_(compute_consumers(g)),
        is_output_(g.values.size(), 0) {
    for (ValueId v : g.outputs) is_output_[static_cast<size_t>(v)] = 1;
  }

  Graph& graph() const { return g_; }
  NameTable& names() const { return names_; }
  NodeId id(const Node* n) const { return static_cast<NodeId>(n - g_.nodes.data()); }

  // The node that defines `v` when it is an `op` with one output, else nullptr.
  const Node* def(ValueId v, OpType op) const {
    if (v == kNoValue) return nullptr;
    const NodeId p = producer_[static_cast<size_t>(v)];
    if (p < 0) return nullptr;
    const Node& n = g_.nodes[static_cast<size_t>(p)];
    return n.op == op && n.outputs.size() == 1 ? &n : nullptr;
  }

  // The only consumer of `v` when it is an `op` with one output and `v` is no graph output.
  const Node* sole_use(ValueId v, OpType op) const {
    if (v == kNoValue || is_output_[static_cast<size_t>(v)]) return nullptr;
    const auto& c = consumers_[static_cast<size_t>(v)];
    if (c.size() != 1) return nullptr;
    const Node& n = g_.nodes[static_cast<size_t>(c[0])];
    return n.op == op && n.outputs.size() == 1 ? &n : nullptr;
  }

  // Like sole_use, but not counting the Shape and Size nodes that read `v`'s dims only (a
  // dynamic export sizes its reshapes from them; the fusion keeps what they read).
  const Node* sole_data_use(ValueId v, OpType op) const {
    if (v == kNoValue || is_output_[static_cast<size_t>(v)]) return nullptr;
    const Node* found = nullptr;
    for (NodeId c : consumers_[static_cast<size_t>(v)]) {
      const Node& n = g_.nodes[static_cast<size_t>(c)];
      if (reads_dims_only(n)) continue;
      if (found) return nullptr;
      found = &n;
    }
    return found && found->op == op && found->outputs.size() == 1 ? found : nullptr;
  }

  // The nodes that read `v`.
  const std::vector<NodeId>& uses(ValueId v) const { return consumers_[static_cast<size_t>(v)]; }
  bool is_graph_output(ValueId v) const { return is_output_[static_cast<size_t>(v)] != 0; }

  // Whether `v` is a one-element float constant within 1e-4 (relative) of `expected`.
  bool scalar(ValueId v, double expected) const {
    const std::optional<double> got = scalar_value(v);
    return got && std::abs(*got - expected) <= 1e-4 * std::abs(expected);
  }
  std::optional<double> scalar_value(ValueId v) const {
    if (v == kNoValue) return std::nullopt;
    const Value& val = g_.value(v);
    if (!val.is_constant() || val.constant->numel() != 1 || !is_float(val.dtype))
      return std::nullopt;
    return val.constant->to_f64_vector()[0];
  }

  // For a two-input node: the operand beside the scalar `c` (either side when the op
  // commutes, else only `n op c`); kNoValue when there is none.
  ValueId beside_scalar(const Node* n, double c) const {
    if (!n || n->inputs.size() != 2) return kNoValue;
    if (scalar(n->inputs[1], c)) return n->inputs[0];
    if (commutative(n->op) && scalar(n->inputs[0], c)) return n->inputs[1];
    return kNoValue;
  }

  // For `v` = Mul(x, c) or Mul(c, x) with c a one-element float constant: the Mul, x and c.
  struct ScalarProduct {
    const Node* mul;
    ValueId x;
    double c;
  };
  std::optional<ScalarProduct> scalar_product(ValueId v) const {
    const Node* mul = def(v, OpType::kMul);
    if (!mul || mul->inputs.size() != 2) return std::nullopt;
    const int c_side = scalar_value(mul->inputs[1]) ? 1 : 0;
    const std::optional<double> c = scalar_value(mul->inputs[c_side]);
    if (!c) return std::nullopt;
    return ScalarProduct{mul, mul->inputs[1 - c_side], *c};
  }

  // For a two-input node with `a` as an operand: the other operand, else kNoValue.
  static ValueId other_operand(const Node* n, ValueId a) {
    if (!n || n->inputs.size() != 2) return kNoValue;
    if (n->inputs[0] == a) return n->inputs[1];
    if (n->inputs[1] == a) return n->inputs[0];
    return kNoValue;
  }

  // The Transpose defining `v` when its perm is `perm`, else nullptr.
  const Node* transpose(ValueId v, const std::vector<int64_t>& perm) const {
    const Node* t = def(v, OpType::kTranspose);
    if (!t || t->inputs.size() != 1) return nullptr;
    auto p = t->attrs.get_ints("perm");
    return p.is_ok() && *p == perm ? t : nullptr;
  }

  // ReduceMean of `x` over its last axis only, keepdims.
  bool last_axis_mean(const Node* n, ValueId x) const {
    if (!n || n->inputs.size() != 2 || n->inputs[0] != x) return false;
    const auto& shape = g_.value(x).shape;
    auto keep = n->attrs.get_int("keepdims", 1);
    if (!shape || shape->rank() == 0 || !keep.is_ok() || *keep != 1) return false;
    const Value& axes = g_.value(n->inputs[1]);
    if (!axes.is_constant() || axes.constant->numel() != 1) return false;
    const auto axis = static_cast<int64_t>(axes.constant->to_f64_vector()[0]);
    const auto rank = static_cast<int64_t>(shape->rank());
    return axis == -1 || axis == rank - 1;
  }

  // Every value the fusion's nodes produce, except the root's output, is used by the
  // fusion's nodes (or read for its dims by a Shape or Size outside) only and is no graph
  // output; no node is in an earlier fusion.
  bool self_contained(const Fusion& f, const std::vector<char>& claimed) const {
    std::vector<char> in(g_.nodes.size(), 0);
    for (NodeId n : f.nodes) {
      if (claimed[static_cast<size_t>(n)] || in[static_cast<size_t>(n)]) return false;
      in[static_cast<size_t>(n)] = 1;
    }
    for (size_t i = 0; i + 1 < f.nodes.size(); ++i)
      for (ValueId v : g_.nodes[static_cast<size_t>(f.nodes[i])].outputs) {
        if (v == kNoValue) continue;
        if (is_output_[static_cast<size_t>(v)]) return false;
        for (NodeId c : consumers_[static_cast<size_t>(v)])
          if (!in[static_cast<size_t>(c)] && !reads_dims_only(g_.nodes[static_cast<size_t>(c)]))
            return false;
      }
    return true;
  }

  // Shape and Size read a value's dims, never its elements.
  static bool reads_dims_only(const Node& n) {
    return n.op == OpType::kShape || n.op == OpType::kSize;
  }

  // Unmarks in `remove` each matched node whose output a Shape or Size outside the match
  // reads, with the matched nodes it reads (reverse topological order): a dynamic export
  // sizes its reshapes from the very values a fusion removes. They compute nothing anyone
  // reads once binding folds those Shapes to constants; the plan's dead-code elimination
  // then drops them.
  void keep_what_shapes_read(std::vector<char>& remove) const {
    std::vector<char> keep(g_.nodes.size(), 0);
    auto keep_producer = [&](ValueId v) {
      const NodeId p = v == kNoValue ? -1 : producer_[static_cast<size_t>(v)];
      if (p >= 0 && remove[static_cast<size_t>(p)]) keep[static_cast<size_t>(p)] = 1;
    };
    for (const Node& n : g_.nodes)
      if (reads_dims_only(n))
        for (ValueId v : n.inputs) keep_producer(v);
    for (size_t i = g_.nodes.size(); i-- > 0;) {
      if (!keep[i]) continue;
      remove[i] = 0;
      for (ValueId v : g_.nodes[i].inputs) keep_producer(v);
    }
  }

 private:
  Graph& g_;
  NameTable& names_;
  std::vector<NodeId> producer_;
  std::vector<std::vector<NodeId>> consumers_;
  std::vector<char> is_output_;
};

// ---- LayerNormalization -------------------------------------------------------------------

// A constant gamma / beta usable as LayerNormalization's Scale / B for x: x's dtype, `d`
// elements, all dims 1 but the last. Returned as a [d] value (a new one when reshaped).
std::optional<ValueId> norm_param(const Matcher& m, ValueId p, DType dtype, int64_t d) {
  if (p == kNoValue || m.graph().value(p).dtype != dtype) return std::nullopt;
  return constant_as_vector(m.graph(), m.names(), p, d);
}

std::optional<Fusion> match_layer_norm(const Matcher& m, const Node& div) {
  if (div.op != OpType::kDiv || div.inputs.size() != 2) return std::nullopt;
  const ValueId d = div.inputs[0];
  const Node* sub = m.def(d, OpType::kSub);
  if (!sub || sub->inputs.size() != 2) return std::nullopt;
  const ValueId x = sub->inputs[0];
  const Node* mean = m.def(sub->inputs[1], OpType::kReduceMean);
  if (!m.last_axis_mean(mean, x)) return std::nullopt;
  const Node* sqrt = m.def(div.inputs[1], OpType::kSqrt);
  const Node* add_eps = sqrt ? m.def(sqrt->inputs[0], OpType::kAdd) : nullptr;
  if (!add_eps || add_eps->inputs.size() != 2) return std::nullopt;
  int eps_side = -1;
  for (int s = 0; s < 2; ++s)
    if (m.scalar_value(add_eps->inputs[static_cast<size_t>(s)])) eps_side = s;
  if (eps_side < 0) return std::nullopt;
  const double eps = *m.scalar_value(add_eps->inputs[static_cast<size_t>(eps_side)]);
  const Node* var = m.def(add_eps->inputs[static_cast<size_t>(1 - eps_side)], OpType::kReduceMean);
  if (!var || !m.last_axis_mean(var, var->inputs[0])) return std::nullopt;
  const Node* sq = m.def(var->inputs[0], OpType::kPow);
  if (sq && !(sq->inputs[0] == d && m.scalar(sq->inputs[1], 2.0))) return std::nullopt;
  if (!sq) {
    sq = m.def(var->inputs[0], OpType::kMul);
    if (!sq || sq->inputs[0] != d || sq->inputs[1] != d) return std::nullopt;
  }
  // Copied: norm_param may add values, which moves m.graph().values.
  const DType dtype = m.graph().value(x).dtype;
  const Dim last = m.graph().value(x).shape->dims.back();
  if (!is_float(dtype) || !last.is_static() || eps < 0) return std::nullopt;
  const int64_t width = last.value;

  Fusion f;
  f.op = OpType::kLayerNormalization;
  f.op_version = 17;
  f.nodes = {m.id(mean), m.id(sub), m.id(sq), m.id(var), m.id(add_eps), m.id(sqrt), m.id(&div)};
  ValueId y = div.outputs[0];
  std::optional<ValueId> gamma, beta;
  if (const Node* mul = m.sole_use(y, OpType::kMul)) {
    gamma = norm_param(m, Matcher::other_operand(mul, y), dtype, width);
    if (gamma) {
      f.nodes.push_back(m.id(mul));
      y = mul->outputs[0];
    }
  }
  if (const Node* add = gamma ? m.sole_use(y, OpType::kAdd) : nullptr) {
    beta = norm_param(m, Matcher::other_operand(add, y), dtype, width);
    if (beta) f.nodes.push_back(m.id(add));
  }
  if (!gamma) {
    if (dtype != DType::kF32) return std::nullopt;
    gamma = add_constant(
        m.graph(), m.names(), div.name + ".ones",
        TensorData::from_vector<float>(DType::kF32, {width},
                                       std::vector<float>(static_cast<size_t>(width), 1.0f)));
  }
  f.inputs = {x, *gamma};
  if (beta) f.inputs.push_back(*beta);
  f.attrs.set("axis", int64_t{-1});
  f.attrs.set("epsilon", static_cast<float>(eps));
  return f;
}

// ---- Gelu -----------------------------------------------------------------------------------

// From `one_plus` = 1 + g(x), the product with x / 2: (x * 0.5) * one_plus, or
// (x * one_plus) * 0.5. Appends its nodes (the root last) to `f`.
bool match_half_x_product(const Matcher& m, ValueId one_plus, ValueId x, Fusion& f) {
  const Node* mul = m.sole_use(one_plus, OpType::kMul);
  const ValueId other = Matcher::other_operand(mul, one_plus);
  if (other == kNoValue) return false;
  if (other == x) {
    const Node* half = m.sole_use(mul->outputs[0], OpType::kMul);
    if (m.beside_scalar(half, 0.5) != mul->outputs[0]) return false;
    f.nodes.insert(f.nodes.end(), {m.id(mul), m.id(half)});
    return true;
  }
  const Node* half_x = m.def(other, OpType::kMul);
  if (m.beside_scalar(half_x, 0.5) != x) return false;
  f.nodes.insert(f.nodes.end(), {m.id(half_x), m.id(mul)});
  return true;
}

// The Add of 1 to `v`, its only use.
const Node* plus_one(const Matcher& m, ValueId v) {
  const Node* add = m.sole_use(v, OpType::kAdd);
  return m.beside_scalar(add, 1.0) == v ? add : nullptr;
}

std::optional<Fusion> match_gelu_erf(const Matcher& m, const Node& erf) {
  if (erf.op != OpType::kErf || erf.inputs.size() != 1) return std::nullopt;
  const Node* scale = m.def(erf.inputs[0], OpType::kDiv);
  ValueId x = scale && scale->inputs.size() == 2 && m.scalar(scale->inputs[1], kSqrt2)
                  ? scale->inputs[0]
                  : kNoValue;
  if (x == kNoValue) {
    scale = m.def(erf.inputs[0], OpType::kMul);
    x = m.beside_scalar(scale, 1.0 / kSqrt2);
  }
  const Node* add = x == kNoValue ? nullptr : plus_one(m, erf.outputs[0]);
  if (!add) return std::nullopt;
  Fusion f;
  f.op = OpType::kGelu;
  f.op_version = 20;
  f.nodes = {m.id(scale), m.id(&erf), m.id(add)};
  if (!match_half_x_product(m, add->outputs[0], x, f)) return std::nullopt;
  f.inputs = {x};
  return f;
}

// x^3 as Pow(x, 3), x * (x * x) or (x * x) * x; appends its nodes to `nodes`.
bool match_cube(const Matcher& m, ValueId v, ValueId x, std::vector<NodeId>& nodes) {
  if (const Node* pow = m.def(v, OpType::kPow)) {
    if (pow->inputs[0] != x || !m.scalar(pow->inputs[1], 3.0)) return false;
    nodes.push_back(m.id(pow));
    return true;
  }
  const Node* outer = m.def(v, OpType::kMul);
  const Node* square = outer ? m.def(Matcher::other_operand(outer, x), OpType::kMul) : nullptr;
  if (!square || square->inputs[0] != x || square->inputs[1] != x) return false;
  nodes.insert(nodes.end(), {m.id(square), m.id(outer)});
  return true;
}

std::optional<Fusion> match_gelu_tanh(const Matcher& m, const Node& tanh) {
  if (tanh.op != OpType::kTanh || tanh.inputs.size() != 1) return std::nullopt;
  const Node* scale = m.def(tanh.inputs[0], OpType::kMul);
  const Node* inner = m.def(m.beside_scalar(scale, kSqrt2OverPi), OpType::kAdd);
  if (!inner || inner->inputs.size() != 2) return std::nullopt;
  // inner = x + 0.044715 * x^3, either order.
  for (int side = 0; side < 2; ++side) {
    const ValueId x = inner->inputs[static_cast<size_t>(side)];
    const Node* cubic = m.def(inner->inputs[static_cast<size_t>(1 - side)], OpType::kMul);
    const ValueId cube = m.beside_scalar(cubic, kGeluCubic);
    Fusion f;
    if (cube == kNoValue || !match_cube(m, cube, x, f.nodes)) continue;
    const Node* add = plus_one(m, tanh.outputs[0]);
    if (!add) return std::nullopt;
    f.nodes.insert(f.nodes.end(), {m.id(cubic), m.id(inner), m.id(scale), m.id(&tanh), m.id(add)});
    if (!match_half_x_product(m, add->outputs[0], x, f)) return std::nullopt;
    f.op = OpType::kGelu;
    f.op_version = 20;
    f.inputs = {x};
    f.attrs.set("approximate", std::string("tanh"));
    return f;
  }
  return std::nullopt;
}

// ---- HardSwish ------------------------------------------------------------------------------

// The division of `v` by 6 (or product with 1/6), its only use.
const Node* over_six(const Matcher& m, ValueId v) {
  if (const Node* div = m.sole_use(v, OpType::kDiv))
    return div->inputs[0] == v && m.scalar(div->inputs[1], 6.0) ? div : nullptr;
  const Node* mul = m.sole_use(v, OpType::kMul);
  return m.beside_scalar(mul, 1.0 / 6.0) == v ? mul : nullptr;
}

std::optional<Fusion> match_hard_swish(const Matcher& m, const Node& anchor) {
  Fusion f;
  f.op = OpType::kHardSwish;
  f.op_version = 14;
  ValueId x = kNoValue;
  if (anchor.op == OpType::kClip) {
    // x * Clip(x + 3, 0, 6) / 6; scalar(v, 0) asks for an exact zero, as exporters write it.
    if (anchor.inputs.size() != 3 || !m.scalar(anchor.inputs[1], 0.0) ||
        !m.scalar(anchor.inputs[2], 6.0))
      return std::nullopt;
    const Node* add = m.def(anchor.inputs[0], OpType::kAdd);
    x = m.beside_scalar(add, 3.0);
    if (x == kNoValue) return std::nullopt;
    f.nodes = {m.id(add), m.id(&anchor)};
  } else if (anchor.op == OpType::kHardSigmoid) {
    // x * HardSigmoid(x; 1/6, 1/2)
    auto alpha = anchor.attrs.get_float("alpha", 0.2f);
    auto beta = anchor.attrs.get_float("beta", 0.5f);
    if (!alpha.is_ok() || !beta.is_ok() || std::abs(*alpha - 1.0 / 6.0) > 1e-5 ||
        std::abs(*beta - 0.5) > 1e-6)
      return std::nullopt;
    x = anchor.inputs[0];
    f.nodes = {m.id(&anchor)};
  } else {
    return std::nullopt;
  }
  const Node* mul = m.sole_use(anchor.outputs[0], OpType::kMul);
  if (Matcher::other_operand(mul, anchor.outputs[0]) != x) return std::nullopt;
  f.nodes.push_back(m.id(mul));
  if (anchor.op == OpType::kClip) {
    const Node* six = over_six(m, mul->outputs[0]);
    if (!six) return std::nullopt;
    f.nodes.push_back(m.id(six));
  }
  f.inputs = {x};
  return f;
}

// ---- Attention ------------------------------------------------------------------------------

// Two dims known equal: the same size, or the same named symbol (two unnamed unknown dims
// are not known equal).
bool same_dim(const Dim& a, const Dim& b) {
  return a.is_static() ? a == b : !a.symbol.empty() && a == b;
}

// The heads split of a 3-D x: Reshape(x [B, S, H*D]) -> [B, S, H, D] with H and D static.
struct HeadSplit {
  const Node* reshape = nullptr;
  ValueId x = kNoValue;
  int64_t heads = 0, size = 0;
};

std::optional<HeadSplit> head_split(const Matcher& m, ValueId v) {
  const Node* r = m.def(v, OpType::kReshape);
  if (!r || r->inputs.empty()) return std::nullopt;
  const Value& x = m.graph().value(r->inputs[0]);
  const Value& y = m.graph().value(v);
  if (!x.shape || !y.shape || x.shape->rank() != 3 || y.shape->rank() != 4) return std::nullopt;
  const auto& xd = x.shape->dims;
  const auto& yd = y.shape->dims;
  if (!same_dim(xd[0], yd[0]) || !same_dim(xd[1], yd[1]) || !yd[2].is_static() ||
      !yd[3].is_static() || !xd[2].is_static() || yd[2].value * yd[3].value != xd[2].value)
    return std::nullopt;
  return HeadSplit{r, r->inputs[0], yd[2].value, yd[3].value};
}

// Q [B, H, Sq, D] = Transpose(split(q), 0 2 1 3); likewise V.
std::optional<HeadSplit> heads_of(const Matcher& m, ValueId v, std::vector<NodeId>& nodes) {
  const Node* t = m.transpose(v, {0, 2, 1, 3});
  if (!t) return std::nullopt;
  std::optional<HeadSplit> s = head_split(m, t->inputs[0]);
  if (s) nodes.insert(nodes.end(), {m.id(s->reshape), m.id(t)});
  return s;
}

// The keys behind a K^T [B, H, D, Skv]: `k4` the key heads [B, H, Skv, D] it transposes
// (kNoValue where K^T comes straight from the 3-D keys), `nodes` the transposing nodes, and
// `split0231` for Transpose(split(k), 0 2 3 1). The spellings:
//   - Transpose(split(k), 0 2 3 1);
//   - Transpose(K, 0 1 3 2): PyTorch's permute(0, 2, 1, 3).transpose(-1, -2);
//   - torch.export's scaled_dot_product_attention: K merged to [B H, Skv, D], Transpose
//     0 2 1, split to [B, H, D, Skv]. Each Reshape only merges or splits the leading dims:
//     the trailing two are checked, and a Reshape keeps the element count.
struct KeysT {
  ValueId k4 = kNoValue;
  std::vector<NodeId> nodes;
  std::optional<HeadSplit> split0231;
};

// Grouped-query heads repeated for the product, as Hugging Face's repeat_kv writes it
// (Llama, Mistral, Qwen): x [B, Hkv, T, D] -> Unsqueeze(axis 2) -> Expand to
// [B, Hkv, n, T, D]. For the Expand's output `v5`: x, with the two nodes added to `nodes`.
// Attention takes the kv heads unrepeated (kv_num_heads = Hkv).
std::optional<ValueId> unrepeated(const Matcher& m, ValueId v5, std::vector<NodeId>& nodes) {
  const Graph& g = m.graph();
  const Node* expand = m.def(v5, OpType::kExpand);
  if (!expand || expand->inputs.empty()) return std::nullopt;
  const Node* unsq = m.def(expand->inputs[0], OpType::kUnsqueeze);
  if (!unsq || unsq->inputs.empty()) return std::nullopt;
  std::vector<int64_t> axes;
  if (unsq->inputs.size() > 1) {
    const Value& a = g.value(unsq->inputs[1]);
    if (!a.is_constant()) return std::nullopt;
    for (double d : a.constant->to_f64_vector()) axes.push_back(static_cast<int64_t>(d));
  } else if (auto a = unsq->attrs.get_ints("axes"); a.is_ok()) {
    axes = *a;
  }
  const Value& x = g.value(unsq->inputs[0]);
  const Value& y = g.value(v5);
  if (axes != std::vector<int64_t>{2} || !x.shape || !y.shape || x.shape->rank() != 4 ||
      y.shape->rank() != 5 || !y.shape->dims[2].is_static())
    return std::nullopt;
  const auto& xd = x.shape->dims;
  const auto& yd = y.shape->dims;
  if (!same_dim(xd[0], yd[0]) || !same_dim(xd[1], yd[1]) || !same_dim(xd[2], yd[3]) ||
      !same_dim(xd[3], yd[4]))
    return std::nullopt;
  nodes.insert(nodes.end(), {m.id(unsq), m.id(expand)});
  return unsq->inputs[0];
}

// V (or K) [B, Hkv n, T, D] as Reshape(repeat of x [B, Hkv, T, D]): x, the nodes added.
std::optional<ValueId> unrepeated_heads(const Matcher& m, ValueId v, std::vector<NodeId>& nodes) {
  const Graph& g = m.graph();
  const Node* r = m.def(v, OpType::kReshape);
  if (!r || r->inputs.empty()) return std::nullopt;
  const Value& y = g.value(v);
  const Value& v5 = g.value(r->inputs[0]);
  if (!y.shape || !v5.shape || y.shape->rank() != 4 || v5.shape->rank() != 5) return std::nullopt;
  const auto& yd = y.shape->dims;
  const auto& d5 = v5.shape->dims;
  if (!same_dim(yd[0], d5[0]) || !yd[1].is_static() || !d5[1].is_static() || !d5[2].is_static() ||
      yd[1].value != d5[1].value * d5[2].value || !same_dim(yd[2], d5[3]) ||
      !same_dim(yd[3], d5[4]))
    return std::nullopt;
  std::vector<NodeId> found = {m.id(r)};
  std::optional<ValueId> x = unrepeated(m, r->inputs[0], found);
  if (x) nodes.insert(nodes.end(), found.begin(), found.end());
  return x;
}

// K's heads `k4`, or the kv heads before it when it is repeat_kv's Reshape of their repeat
// (unrepeated_heads). The repeat stays outside the match: dead code once the match is
// applied, or read by a Shape until binding folds it.
ValueId kv_heads_unrepeated(const Matcher& m, ValueId k4) {
  std::vector<NodeId> repeat;
  return unrepeated_heads(m, k4, repeat).value_or(k4);
}

std::optional<KeysT> keys_of_transposed(const Matcher& m, ValueId v) {
  const Graph& g = m.graph();
  KeysT r;
  if (const Node* t = m.transpose(v, {0, 2, 3, 1})) {
    r.split0231 = head_split(m, t->inputs[0]);
    if (!r.split0231) return std::nullopt;
    r.nodes = {m.id(r.split0231->reshape), m.id(t)};
    return r;
  }
  if (const Node* t = m.transpose(v, {0, 1, 3, 2})) {
    // TorchScript's Llama: K^T as this Transpose of repeat_kv's heads.
    r.k4 = kv_heads_unrepeated(m, t->inputs[0]);
    r.nodes = {m.id(t)};
    return r;
  }
  const Node* split = m.def(v, OpType::kReshape);
  if (!split || split->inputs.empty()) return std::nullopt;
  const Node* t = m.transpose(split->inputs[0], {0, 2, 1});
  if (!t) return std::nullopt;
  const Node* merge = m.def(t->inputs[0], OpType::kReshape);
  if (!merge || merge->inputs.empty()) return std::nullopt;
  const Value& heads = g.value(merge->inputs[0]);
  const Value& merged = g.value(merge->outputs[0]);
  const Value& kt = g.value(v);
  if (!heads.shape || !merged.shape || !kt.shape || merged.shape->rank() != 3 ||
      kt.shape->rank() != 4)
    return std::nullopt;
  const auto& md = merged.shape->dims;
  const auto& kd = kt.shape->dims;
  if (heads.shape->rank() == 5) {
    // Llama's repeated kv heads [B, Hkv, n, Skv, D], merged with the repeat (repeat_kv).
    const auto& hd = heads.shape->dims;
    if (!same_dim(md[1], hd[3]) || !same_dim(md[2], hd[4]) || !same_dim(kd[0], hd[0]) ||
        !kd[1].is_static() || !hd[1].is_static() || !hd[2].is_static() ||
        kd[1].value != hd[1].value * hd[2].value || !same_dim(kd[2], hd[4]) ||
        !same_dim(kd[3], hd[3]))
      return std::nullopt;
    r.nodes = {m.id(merge), m.id(t), m.id(split)};
    std::optional<ValueId> k4 = unrepeated(m, merge->inputs[0], r.nodes);
    if (!k4) return std::nullopt;
    r.k4 = *k4;
    return r;
  }
  if (heads.shape->rank() != 4) return std::nullopt;
  const auto& hd = heads.shape->dims;  // [B, H, Skv, D]
  if (!same_dim(md[1], hd[2]) || !same_dim(md[2], hd[3]) || !same_dim(kd[0], hd[0]) ||
      !same_dim(kd[1], hd[1]) || !same_dim(kd[2], hd[3]) || !same_dim(kd[3], hd[2]))
    return std::nullopt;
  // Heads that repeat_kv made by a Reshape of its 5-D repeat (torch.export keeps that
  // Reshape where the sequence is dynamic; the Shape that sizes the K^T reshapes reads it).
  r.k4 = kv_heads_unrepeated(m, merge->inputs[0]);
  r.nodes = {m.id(merge), m.id(t), m.id(split)};
  return r;
}

// A [B, H, S, D] value with H and D static: Attention's 4-D form of Q, K or V.
bool heads_4d(const Graph& g, ValueId v) {
  const Value& x = g.value(v);
  return x.shape && x.shape->rank() == 4 && x.shape->dims[1].is_static() &&
         x.shape->dims[3].is_static();
}

// A Where mask's fill: at or below it a masked score's exp(fill - max) is 0 in fp32 for
// any unmasked score above fill + 104 (GPT-2's exports use -1e4 or the dtype's lowest).
constexpr double kMaskedFill = -1e4;

// Whether `small` broadcasts into `big` without growing it (right-aligned, each dim 1 or
// equal), as Attention's mask must into [B, H, Sq, T].
bool broadcasts_into(const Shape& small, const Shape& big) {
  if (small.rank() > big.rank()) return false;
  const size_t off = big.rank() - small.rank();
  for (size_t i = 0; i < small.rank(); ++i)
    if (!(small.dims[i] == Dim(1)) && !same_dim(small.dims[i], big.dims[off + i])) return false;
  return true;
}

// Whether every row (last axis) of a bool mask holds a True: with none, Where would give a
// row of equal weights where Attention gives zeros.
bool every_row_attends(const TensorData& mask) {
  const int64_t len = mask.dims().empty() ? 1 : mask.dims().back();
  if (len == 0) return false;
  const uint8_t* b = mask.bytes();
  for (int64_t r = 0; r < mask.numel() / len; ++r)
    if (std::none_of(b + r * len, b + (r + 1) * len, [](uint8_t v) { return v != 0; }))
      return false;
  return true;
}

// Whether a bool mask is the causal one of a square score matrix: [..., S, S] with every
// leading dim 1 and element (i, j) true exactly where j <= i. Attention's is_causal says
// the same without a mask, and its kernels skip the keys past each row.
bool causal_mask(const TensorData& mask) {
  const std::vector<int64_t>& d = mask.dims();
  if (d.size() < 2 || d[d.size() - 1] != d[d.size() - 2]) return false;
  for (size_t a = 0; a + 2 < d.size(); ++a)
    if (d[a] != 1) return false;
  const int64_t n = d.back();
  const uint8_t* b = mask.bytes();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if ((b[i * n + j] != 0) != (j <= i)) return false;
  return true;
}

// Scaled dot-product attention as exporters write it (BERT-style, anchored at Softmax):
//   Q = Transpose(Reshape(q, [B,S,H,D]), 0213)   K^T = Transpose(Reshape(k), 0231)
//   V = Transpose(Reshape(v), 0213)
//   y = Reshape(Transpose(MatMul(Softmax(MatMul(Q, K^T) [/ c | * c] [+ mask]), V), 0213),
//               [B, S, H*Dv])
// becomes y = Attention(q, k, v[, mask]; q_num_heads = kv_num_heads = H, scale = 1/c or c
// or 1). The mask must be as long as the keys in its last dim (Attention masks the keys
// beyond a shorter mask, where Add would broadcast it). In place of the Add, a
// Where(mask, scores, fill) with a constant bool mask (GPT-2's causal mask as exported)
// becomes the bool mask, or is_causal = 1 when the mask is exactly the causal one.
// Where Q, K or V is no head split of a 3-D tensor (Llama's rotary embedding applied to the
// heads, its grouped keys repeated by Expand), or the output is not merged back, the
// product itself becomes Attention's 4-D form: Attention(Q, K, V[, mask]) over the
// [B, H, S, D] tensors in place of MatMul(P, V), the nodes around it left as they are.
std::optional<Fusion> match_attention(const Matcher& m, const Node& softmax) {
  const Graph& g = m.graph();
  const Value& probs = g.value(softmax.outputs[0]);
  if (softmax.inputs.size() != 1 || !probs.shape || probs.shape->rank() != 4) return std::nullopt;
  auto axis = softmax.attrs.get_int("axis", softmax.op_version >= 13 ? -1 : 1);
  if (!axis.is_ok() || (*axis != -1 && *axis != 3)) return std::nullopt;

  Fusion f;
  // Backwards from `s`: [Div | Mul by a scalar] <- MatMul([Q * c], [K^T * c]). `nodes`:
  // the scaling and product; K^T's own in `keys`; the head splits of q and of K's heads
  // (3-D form only) in q_split / k_split.
  struct Scores {
    double scale = 1.0;
    std::vector<NodeId> nodes, q_split, k_split;
    ValueId q4 = kNoValue;
    std::optional<HeadSplit> q, k;
    KeysT keys;
  };
  auto scores_from = [&m, &g](ValueId s) -> std::optional<Scores> {
    Scores r;
    std::optional<NodeId> scaling;
    if (const Node* div = m.def(s, OpType::kDiv); div && div->inputs.size() == 2) {
      const std::optional<double> c = m.scalar_value(div->inputs[1]);
      if (!c || *c == 0.0) return std::nullopt;
      r.scale = 1.0 / *c;
      scaling = m.id(div);
      s = div->inputs[0];
    } else if (const Node* mul = m.def(s, OpType::kMul); mul && mul->inputs.size() == 2) {
      const std::optional<Matcher::ScalarProduct> by = m.scalar_product(s);
      if (!by) return std::nullopt;
      r.scale = by->c;
      scaling = m.id(mul);
      s = by->x;
    }
    const Node* qk = m.def(s, OpType::kMatMul);
    if (!qk || qk->inputs.size() != 2) return std::nullopt;
    // torch.export's scaled_dot_product_attention scales Q and K^T each by sqrt(scale).
    auto unscaled = [&m, &r](ValueId x) {
      const std::optional<Matcher::ScalarProduct> by = m.scalar_product(x);
      if (!by) return x;
      r.scale *= by->c;
      r.nodes.push_back(m.id(by->mul));
      return by->x;
    };
    r.q4 = unscaled(qk->inputs[0]);
    std::optional<KeysT> keys = keys_of_transposed(m, unscaled(qk->inputs[1]));
    if (!keys || !heads_4d(g, r.q4)) return std::nullopt;
    r.keys = std::move(*keys);
    r.q = heads_of(m, r.q4, r.q_split);
    r.k = r.keys.split0231 ? r.keys.split0231 : heads_of(m, r.keys.k4, r.k_split);
    if (r.keys.k4 == kNoValue && !r.q) return std::nullopt;  // K^T from 3-D keys: 3-D form
    r.nodes.push_back(m.id(qk));
    if (scaling) r.nodes.push_back(*scaling);
    return r;
  };
  std::optional<Scores> sc;
  ValueId mask = kNoValue;
  bool causal = false;
  if (const Node* where = m.def(softmax.inputs[0], OpType::kWhere);
      where && where->inputs.size() == 3) {
    // Where(mask, scores, fill): a constant bool mask (True: attend) of the keys' length
    // with a key in every row, and a fill so negative that exp(fill - max) is 0: the masked
    // keys get no weight either way.
    const Value& cv = g.value(where->inputs[0]);
    const Value& sv = g.value(where->outputs[0]);
    const std::optional<double> fill = m.scalar_value(where->inputs[2]);
    if (!cv.is_constant() || cv.dtype != DType::kBool || !cv.shape || !sv.shape ||
        cv.shape->rank() == 0 || cv.shape->rank() > 4 || !broadcasts_into(*cv.shape, *sv.shape) ||
        !fill || *fill > kMaskedFill || !every_row_attends(*cv.constant))
      return std::nullopt;
    sc = scores_from(where->inputs[1]);
    if (!sc) return std::nullopt;
    causal = causal_mask(*cv.constant);
    if (!causal) mask = where->inputs[0];
    sc->nodes.push_back(m.id(where));
  } else if (const Node* add = m.def(softmax.inputs[0], OpType::kAdd);
             add && add->inputs.size() == 2) {
    // Either operand may be the scores (HF's mask is itself a Mul); the mask is the other
    // and must already be as long as the keys.
    for (int side = 0; side < 2 && !sc; ++side) {
      sc = scores_from(add->inputs[side]);
      mask = add->inputs[1 - side];
    }
    if (!sc) return std::nullopt;
    const Value& mv = g.value(mask);
    const Value& sv = g.value(add->outputs[0]);
    if (!mv.shape || !sv.shape || sv.shape->rank() != 4 || mv.shape->rank() == 0 ||
        mv.shape->rank() > 4 || mv.dtype != sv.dtype ||
        !same_dim(mv.shape->dims.back(), sv.shape->dims.back()))
      return std::nullopt;
    sc->nodes.push_back(m.id(add));
  } else {
    sc = scores_from(softmax.inputs[0]);
    if (!sc) return std::nullopt;
  }
  std::vector<NodeId> core = sc->keys.nodes;
  core.insert(core.end(), sc->nodes.begin(), sc->nodes.end());
  core.push_back(m.id(&softmax));

  // Forwards: [Where(IsNaN(P), 0, P)] -> MatMul(P, V) -> Transpose 0213 -> Reshape
  // [B, S, H*Dv]. torch.export's scaled_dot_product_attention zeroes the NaN rows a fully
  // masked row's softmax gives, which is what Attention gives such a row (0). It zeroes a
  // row made NaN by a NaN in q or k too, where Attention's output is NaN.
  ValueId p = softmax.outputs[0];
  if (const std::vector<NodeId>& uses = m.uses(p); uses.size() == 2 && !m.is_graph_output(p)) {
    const Node* isnan = nullptr;
    const Node* where = nullptr;
    for (NodeId u : uses) {
      const Node& n = g.nodes[static_cast<size_t>(u)];
      if (n.op == OpType::kIsNaN && n.inputs.size() == 1) isnan = &n;
      if (n.op == OpType::kWhere && n.inputs.size() == 3) where = &n;
    }
    if (!isnan || !where || where->inputs[0] != isnan->outputs[0] || where->inputs[2] != p ||
        !m.scalar(where->inputs[1], 0.0) || m.uses(isnan->outputs[0]).size() != 1)
      return std::nullopt;
    core.insert(core.end(), {m.id(isnan), m.id(where)});
    p = where->outputs[0];
  }
  const Node* pv = m.sole_use(p, OpType::kMatMul);
  if (!pv || pv->inputs.size() != 2 || pv->inputs[0] != p) return std::nullopt;
  ValueId v4 = pv->inputs[1];
  if (!heads_4d(g, v4)) return std::nullopt;
  std::vector<NodeId> v_repeat;  // V's repeat_kv, taken off in the 4-D form
  const std::optional<ValueId> v_unrepeated = unrepeated_heads(m, v4, v_repeat);
  std::vector<NodeId> v_split;
  const std::optional<HeadSplit> v = heads_of(m, v4, v_split);

  // The 3-D form: q, k and v split into heads, the output merged back to [B, S, H*Dv].
  std::vector<NodeId> tail;
  const Node* out = nullptr;  // the merging Reshape, when it is the fused node
  bool merged = false;
  if (sc->q && sc->k && v && v->heads == sc->k->heads && sc->q->heads == sc->k->heads &&
      sc->q->size == sc->k->size) {
    ValueId heads_out = pv->outputs[0];
    // Whisper's export reshapes the heads' output to the shape it has.
    if (const Node* same = m.sole_data_use(heads_out, OpType::kReshape)) {
      const Value& in = g.value(heads_out);
      const Value& o = g.value(same->outputs[0]);
      // Equal shapes of static or named dims (a symbol names one size wherever it is).
      const bool named =
          in.shape && std::all_of(in.shape->dims.begin(), in.shape->dims.end(),
                                  [](const Dim& d) { return d.is_static() || !d.symbol.empty(); });
      if (named && o.shape && *in.shape == *o.shape) {
        tail.push_back(m.id(same));
        heads_out = same->outputs[0];
      }
    }
    const Node* merge = m.sole_data_use(heads_out, OpType::kTranspose);
    if (merge && merge->inputs.size() == 1 && m.transpose(merge->outputs[0], {0, 2, 1, 3})) {
      tail.push_back(m.id(merge));
      out = m.sole_data_use(merge->outputs[0], OpType::kReshape);
      merged = out != nullptr;
    }
  }
  const Value& q4 = g.value(sc->q4);
  if (merged) {
    const Value& y = g.value(out->outputs[0]);
    const Value& qx = g.value(sc->q->x);
    if (y.shape && y.shape->rank() == 3 && same_dim(y.shape->dims[0], qx.shape->dims[0]) &&
        same_dim(y.shape->dims[1], qx.shape->dims[1]) &&
        y.shape->dims[2] == Dim(v->heads * v->size)) {
      tail.push_back(m.id(out));
    } else {
      // The heads merged into another shape ([B S, H*Dv] for GPT-2's Gemm, as torch.export
      // folds two Reshapes into one): Attention takes the Transpose's place with its own
      // [B, S, H*Dv] output, which the Reshape then reads (the same elements in order).
      f.new_output_shape = true;
    }
    const Value& kx = g.value(sc->k->x);
    const Value& vx = g.value(v->x);
    // One batch, keys and values of one length, one dtype: what Attention's inference asks.
    if (!same_dim(kx.shape->dims[0], qx.shape->dims[0]) ||
        !same_dim(vx.shape->dims[0], qx.shape->dims[0]) ||
        !same_dim(kx.shape->dims[1], vx.shape->dims[1]) || kx.dtype != qx.dtype ||
        vx.dtype != qx.dtype || !is_float(qx.dtype))
      return std::nullopt;
    f.nodes = sc->q_split;
    f.nodes.insert(f.nodes.end(), sc->k_split.begin(), sc->k_split.end());
    f.nodes.insert(f.nodes.end(), v_split.begin(), v_split.end());
    f.nodes.insert(f.nodes.end(), core.begin(), core.end());
    f.nodes.push_back(m.id(pv));
    f.nodes.insert(f.nodes.end(), tail.begin(), tail.end());
    f.inputs = {sc->q->x, sc->k->x, v->x};
    f.attrs.set("q_num_heads", sc->q->heads);
    f.attrs.set("kv_num_heads", sc->k->heads);
  } else {
    // The 4-D form over Q [B, Hq, S, D], K [B, Hkv, T, D], V [B, Hkv, T, Dv] in place of
    // MatMul(P, V); Hq a multiple of Hkv, as Attention's inference checks.
    if (sc->keys.k4 == kNoValue || !heads_4d(g, sc->keys.k4)) return std::nullopt;
    const Value& k4 = g.value(sc->keys.k4);
    // V unrepeated where K is (its heads then match K's), else as it is.
    if (v_unrepeated && g.value(*v_unrepeated).shape->dims[1] == k4.shape->dims[1]) {
      v4 = *v_unrepeated;
      core.insert(core.end(), v_repeat.begin(), v_repeat.end());
    }
    const Value& v4v = g.value(v4);
    const auto& qd = q4.shape->dims;
    const auto& kd = k4.shape->dims;
    const auto& vd = v4v.shape->dims;
    if (!same_dim(kd[0], qd[0]) || !same_dim(vd[0], qd[0]) || !same_dim(kd[1], vd[1]) ||
        !same_dim(kd[2], vd[2]) || !(kd[3] == qd[3]) || kd[1].value <= 0 ||
        qd[1].value % kd[1].value != 0 || k4.dtype != q4.dtype || v4v.dtype != q4.dtype ||
        !is_float(q4.dtype))
      return std::nullopt;
    f.nodes = core;
    f.nodes.push_back(m.id(pv));
    f.inputs = {sc->q4, sc->keys.k4, v4};
  }
  f.op = OpType::kAttention;
  f.op_version = 23;
  if (mask != kNoValue) f.inputs.push_back(mask);
  f.attrs.set("scale", static_cast<float>(sc->scale));
  if (causal) f.attrs.set("is_causal", int64_t{1});
  return f;
}

// An Attention node the exporter wrote (torch.onnx at opset 23) in its 4-D form over kv
// heads that repeat_kv repeated: the same node over the unrepeated heads. Only output 0
// may be used (present_key / present_value would be the repeated heads).
std::optional<Fusion> match_repeated_kv_attention(const Matcher& m, const Node& n) {
  const Graph& g = m.graph();
  if (n.inputs.size() < 3 || n.inputs.size() > 4) return std::nullopt;
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (n.outputs[k] != kNoValue &&
        (!m.uses(n.outputs[k]).empty() || m.is_graph_output(n.outputs[k])))
      return std::nullopt;
  const Value& q = g.value(n.inputs[0]);
  if (!heads_4d(g, n.inputs[0]) || !heads_4d(g, n.inputs[1]) || !heads_4d(g, n.inputs[2]))
    return std::nullopt;
  std::vector<NodeId> k_repeat, v_repeat;
  const std::optional<ValueId> k = unrepeated_heads(m, n.inputs[1], k_repeat);
  const std::optional<ValueId> v = unrepeated_heads(m, n.inputs[2], v_repeat);
  if (!k || !v) return std::nullopt;
  const auto& kd = g.value(*k).shape->dims;
  const auto& vd = g.value(*v).shape->dims;
  const auto& qd = q.shape->dims;
  if (!(kd[1] == vd[1]) || !kd[1].is_static() || kd[1].value <= 0 || qd[1].value % kd[1].value != 0)
    return std::nullopt;
  Fusion f;
  f.nodes = k_repeat;
  f.nodes.insert(f.nodes.end(), v_repeat.begin(), v_repeat.end());
  f.nodes.push_back(m.id(&n));
  f.op = OpType::kAttention;
  f.op_version = n.op_version;
  f.inputs = n.inputs;
  f.inputs[1] = *k;
  f.inputs[2] = *v;
  f.attrs = n.attrs;
  if (f.attrs.has("kv_num_heads")) f.attrs.set("kv_num_heads", kd[1].value);
  return f;
}

std::optional<Fusion> match_any(const Matcher& m, const Node& n) {
  switch (n.op) {
    case OpType::kDiv:
      return match_layer_norm(m, n);
    case OpType::kErf:
      return match_gelu_erf(m, n);
    case OpType::kTanh:
      return match_gelu_tanh(m, n);
    case OpType::kClip:
    case OpType::kHardSigmoid:
      return match_hard_swish(m, n);
    case OpType::kSoftmax:
      return match_attention(m, n);
    case OpType::kAttention:
      return match_repeated_kv_attention(m, n);
    default:
      return std::nullopt;
  }
}

}  // namespace

Result<bool> FuseDecomposedOps::run(Graph& g) {
  std::vector<Fusion> fusions;
  std::vector<char> claimed(g.nodes.size(), 0);
  std::vector<char> remove(g.nodes.size(), 0);
  const size_t values_before = g.values.size();
  {
    NameTable names = NameTable::values_of(g);
    Matcher m(g, names);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (claimed[i]) continue;
      // By reference: a matcher adds constants to g.values, never nodes, so g.nodes[i] stays.
      std::optional<Fusion> f = match_any(m, g.nodes[i]);
      if (!f || !m.self_contained(*f, claimed)) continue;
      for (NodeId n : f->nodes) claimed[static_cast<size_t>(n)] = 1;
      fusions.push_back(std::move(*f));
    }
    for (const Fusion& f : fusions)
      for (size_t i = 0; i + 1 < f.nodes.size(); ++i) remove[static_cast<size_t>(f.nodes[i])] = 1;
    m.keep_what_shapes_read(remove);
  }
  if (fusions.empty()) {
    g.values.resize(values_before);  // drops constants a failed match added (all unused)
    return false;
  }
  for (const Fusion& f : fusions) {
    Node& root = g.nodes[static_cast<size_t>(f.nodes.back())];
    root.op = f.op;
    root.op_version = f.op_version;
    root.inputs = f.inputs;
    root.attrs = f.attrs;
    root.resolved = {};
    if (f.new_output_shape)
      for (ValueId o : root.outputs) g.value(o).shape.reset();
  }
  remove_marked_nodes(g, remove);
  return true;
}

}  // namespace amp::graph
