// Shape & dtype inference for data-movement ops: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Concat, Split, Slice, Gather, Expand, Tile, Pad, DepthToSpace, Identity,
// Resize. The output dtype is always the data input's; the work is in the shapes.
//
// Parameters that shape the output (Reshape's shape, Slice's starts, ...) are inputs;
// when one is computed at run time the rule still gives the rank where it can, with
// unnamed symbolic dims, and nullopt where even the rank is unknown.
#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "graph/ir/limits.h"
#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"
#include "graph/ops/sym_values.h"

namespace amp::graph {
namespace {

// The position of s in options, or -1.
int index_of(const std::string& s, std::initializer_list<const char*> options) {
  int i = 0;
  for (const char* o : options) {
    if (s == o) return i;
    ++i;
  }
  return -1;
}

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

// A product of dims split into its static part and its symbol names, so that two
// products can be compared with symbols cancelling by name (Reshape's element count).
struct Factors {
  int64_t product = 1;
  std::vector<std::string> symbols;
  bool unknown = false;  // an unnamed symbolic dim: the product is unknown
};

Result<Factors> factor(const std::vector<Dim>& dims) {
  Factors f;
  for (const Dim& d : dims) {
    if (d.is_static()) {
      std::optional<int64_t> p = checked_mul(f.product, d.value);
      if (!p) return overflow_error("the element count");
      f.product = *p;
    } else if (d.symbol.empty()) {
      f.unknown = true;
    } else {
      f.symbols.push_back(d.symbol);
    }
  }
  return f;
}

// Removes from `a` each symbol of `b` (multiset difference); false when `b` has a symbol
// that `a` lacks, i.e. the two products cannot be related.
bool cancel_symbols(std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (const std::string& s : b) {
    auto it = std::find(a.begin(), a.end(), s);
    if (it == a.end()) return false;
    a.erase(it);
  }
  return true;
}

// The dim behind Reshape's -1: the input's element count over the other output dims.
// Symbols cancel by name, so [N,S,768] -> [0,0,12,-1] gives 64 with N and S unknown.
Result<Dim> solve_inferred_dim(const Shape& in, const std::vector<Dim>& others) {
  AMP_ASSIGN_OR_RETURN(Factors fi, factor(in.dims));
  AMP_ASSIGN_OR_RETURN(Factors fo, factor(others));
  if (fo.product == 0)
    return invalid_model("shape has -1 together with a dim of size 0, so the -1 is ambiguous");
  if (fi.product == 0) return Dim(0);  // no elements, whatever the symbols are
  if (fi.unknown || fo.unknown) return Dim();
  if (!cancel_symbols(fi.symbols, fo.symbols))  // [b, s + 1, 512] over [b, 8, 64]
    return exact_div(dims_product_sym(in.dims), dims_product_sym(others)).to_dim();
  if (fi.product % fo.product != 0) {
    if (!fi.symbols.empty()) return Dim();  // a symbol may make it divisible
    return invalid_model("cannot reshape " + in.to_string() + ": " + std::to_string(fi.product) +
                         " elements are not a multiple of " + std::to_string(fo.product));
  }
  const int64_t q = fi.product / fo.product;
  if (fi.symbols.empty()) return Dim(q);
  if (fi.symbols.size() == 1 && q == 1) return Dim::symbolic(fi.symbols[0]);
  // What is left is a product of symbols (or a polynomial): its SymInt names it.
  return exact_div(dims_product_sym(in.dims), dims_product_sym(others)).to_dim();
}

// Without -1 the element counts must agree; checked wherever symbols allow it.
Status check_same_count(const Shape& in, const Shape& out) {
  AMP_ASSIGN_OR_RETURN(Factors fi, factor(in.dims));
  AMP_ASSIGN_OR_RETURN(Factors fo, factor(out.dims));
  if (fi.unknown || fo.unknown) return Status::ok();
  if (!cancel_symbols(fi.symbols, fo.symbols) || !fi.symbols.empty()) return Status::ok();
  if (fi.product == fo.product) return Status::ok();
  return invalid_model("cannot reshape " + in.to_string() + " to " + out.to_string() +
                       ": the element counts differ");
}

}  // namespace

Status infer_identity(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kAny));
  set_output(out, 0, in[0]->dtype, in[0]->shape);
  return Status::ok();
}

// Reshape(data, shape): 0 copies the input dim (or is a literal 0 with allowzero=1,
// opset 14+), -1 is inferred from the element count.
// Dropout(data, ratio, training_mode) -> output, mask: the identity at inference, the mask
// bool of the data's shape (the kernel rejects training mode).
Status infer_dropout(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  if (const Value* ratio = optional_input(in, 1)) {
    AMP_RETURN_IF_ERROR(check_dtype(*ratio, 1, DTypeSet::kFloat));
    AMP_RETURN_IF_ERROR(check_scalar(*ratio, 1, /*allow_1=*/true));
  }
  if (const Value* training = optional_input(in, 2)) {
    AMP_RETURN_IF_ERROR(check_dtype(*training, 2, DTypeSet::kBool));
    AMP_RETURN_IF_ERROR(check_scalar(*training, 2, /*allow_1=*/true));
  }
  set_output(out, 0, x.dtype, x.shape);
  set_output(out, 1, DType::kBool, x.shape);
  return Status::ok();
}

// Trilu(input, k): the upper (upper = 1) or lower triangle of the last two dims, shape and
// dtype unchanged; k an optional i64 scalar.
Status infer_trilu(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  if (x.shape && x.shape->rank() < 2) return invalid_model("input 0 must have rank >= 2");
  if (const Value* k = optional_input(in, 1)) {
    AMP_RETURN_IF_ERROR(check_dtype(*k, 1, DTypeSet::kI64));
    AMP_RETURN_IF_ERROR(check_scalar(*k, 1, /*allow_1=*/true));
  }
  AMP_ASSIGN_OR_RETURN(int64_t upper, node.attrs.get_int("upper", 1));
  TriluAttrs rec;
  rec.upper = upper != 0;
  attrs = rec;
  set_output(out, 0, x.dtype, x.shape);
  return Status::ok();
}

Status infer_reshape(const Node& node, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& data = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(data, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(*in[1], 1));
  int64_t allowzero = 0;
  if (node.op_version >= 14) {
    AMP_ASSIGN_OR_RETURN(allowzero, node.attrs.get_int("allowzero", 0));
    if (allowzero != 0 && allowzero != 1)
      return invalid_model("attribute 'allowzero' is " + std::to_string(allowzero) +
                           ", expected 0 or 1");
  }
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> constant, const_ints(*in[1], 1));
  // A computed target (torch.export's Concat of Shape slices) is read symbolically; an
  // element shape inference cannot name is an unnamed dim. A symbolic element is taken as
  // the dim it names, never as 0 (copy) or -1, which a size computed from dims is not.
  std::optional<std::vector<SymInt>> target;
  if (constant) {
    target.emplace();
    for (int64_t v : *constant) target->push_back(SymInt::constant(v));
  } else {
    target = sym_ints(*in[1]);
  }
  if (!target) {
    std::optional<int64_t> len = static_length(*in[1]);
    if (len) AMP_RETURN_IF_ERROR(check_rank_limit(*len));
    set_output(out, 0, data.dtype,
               len ? std::optional<Shape>(unknown_dims(static_cast<size_t>(*len))) : std::nullopt);
    return Status::ok();
  }

  const std::vector<SymInt>& t = *target;
  AMP_RETURN_IF_ERROR(check_rank_limit(static_cast<int64_t>(t.size())));
  int64_t minus_one = -1;  // position of -1, if any
  bool has_zero = false;
  bool all_known = true;
  for (size_t i = 0; i < t.size(); ++i) {
    const std::optional<int64_t> c = t[i].constant_value();
    if (!t[i].known()) all_known = false;
    if (!c) continue;
    if (*c < -1)
      return invalid_model("shape entry " + std::to_string(i) + " is " + std::to_string(*c));
    if (*c == -1) {
      if (minus_one >= 0) return invalid_model("shape has more than one -1");
      minus_one = static_cast<int64_t>(i);
    }
    if (*c == 0) has_zero = true;
  }
  if (allowzero == 1 && has_zero && minus_one >= 0)
    return invalid_model("shape has both 0 and -1 with allowzero=1");

  Shape result = unknown_dims(t.size());
  std::vector<Dim> others;  // every output dim but the -1, for solving it
  for (size_t i = 0; i < t.size(); ++i) {
    if (static_cast<int64_t>(i) == minus_one) continue;
    if (t[i].constant_value() == 0 && allowzero == 0) {
      if (data.shape && i >= data.shape->rank())
        return invalid_model("shape entry " + std::to_string(i) +
                             " is 0 (copy the input dim) but the input has rank " +
                             std::to_string(data.shape->rank()));
      if (data.shape) result.dims[i] = data.shape->dims[i];
    } else {
      result.dims[i] = t[i].to_dim();
    }
    others.push_back(result.dims[i]);
  }
  if (data.shape && all_known) {
    if (minus_one >= 0) {
      AMP_ASSIGN_OR_RETURN(result.dims[static_cast<size_t>(minus_one)],
                           solve_inferred_dim(*data.shape, others));
    } else {
      AMP_RETURN_IF_ERROR(check_same_count(*data.shape, result));
    }
  }
  set_output(out, 0, data.dtype, std::move(result));
  return Status::ok();
}

// Flatten: [d0..d(axis-1)] x [d(axis)..] -> 2-D. Negative axis from opset 11.
Status infer_flatten(const Node& node, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 1));
  if (node.op_version < 11 && axis < 0)
    return invalid_model("negative axis " + std::to_string(axis) + " needs opset 11");
  if (!x.shape) {
    set_output(out, 0, x.dtype, unknown_dims(2));
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  if (axis < -r || axis > r)
    return invalid_model("axis " + std::to_string(axis) + " is out of range for rank " +
                         std::to_string(r) + " (Flatten allows [-r, r])");
  if (axis < 0) axis += r;
  const auto split = x.shape->dims.begin() + axis;
  AMP_ASSIGN_OR_RETURN(Dim outer, dims_product(std::vector<Dim>(x.shape->dims.begin(), split)));
  AMP_ASSIGN_OR_RETURN(Dim inner, dims_product(std::vector<Dim>(split, x.shape->dims.end())));
  set_output(out, 0, x.dtype, Shape({outer, inner}));
  return Status::ok();
}

// Squeeze(data, axes?): without axes, removes every dim of static size 1.
Status infer_squeeze(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  const Value* axes_v = optional_input(in, 1);
  std::optional<std::vector<int64_t>> axes;
  if (axes_v != nullptr) {
    AMP_RETURN_IF_ERROR(check_dtype(*axes_v, 1, DTypeSet::kI64));
    AMP_RETURN_IF_ERROR(check_1d(*axes_v, 1));
    AMP_ASSIGN_OR_RETURN(axes, const_ints(*axes_v, 1));
    if (!axes) {
      // Which dims go is unknown, but how many is known from the axes' length.
      std::optional<int64_t> len = static_length(*axes_v);
      if (!x.shape || !len || *len == 0) {
        set_output(out, 0, x.dtype, std::nullopt);
        return Status::ok();
      }
      if (*len > static_cast<int64_t>(x.shape->rank()))
        return invalid_model("axes has " + std::to_string(*len) + " entries for rank " +
                             std::to_string(x.shape->rank()));
      set_output(out, 0, x.dtype, unknown_dims(x.shape->rank() - static_cast<size_t>(*len)));
      return Status::ok();
    }
    if (axes->empty()) axes.reset();  // an empty list means "all size-1 dims", as absent
  }
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  std::vector<char> drop(static_cast<size_t>(r), 0);
  if (axes) {
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> norm, normalize_axes(*axes, r));
    for (int64_t a : norm) {
      const Dim& d = x.shape->dims[static_cast<size_t>(a)];
      if (d.is_static() && d.value != 1)
        return invalid_model("cannot squeeze axis " + std::to_string(a) + " of size " +
                             std::to_string(d.value));
      drop[static_cast<size_t>(a)] = 1;
    }
  } else {
    for (int64_t a = 0; a < r; ++a) {
      const Dim& d = x.shape->dims[static_cast<size_t>(a)];
      // A symbolic dim may or may not be 1: the output rank is unknown.
      if (!d.is_static()) {
        set_output(out, 0, x.dtype, std::nullopt);
        return Status::ok();
      }
      if (d.value == 1) drop[static_cast<size_t>(a)] = 1;
    }
  }
  Shape result;
  for (int64_t a = 0; a < r; ++a)
    if (!drop[static_cast<size_t>(a)]) result.dims.push_back(x.shape->dims[static_cast<size_t>(a)]);
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// Unsqueeze(data, axes): axes index the output, whose rank is rank(data) + len(axes).
Status infer_unsqueeze(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kI64));
  // A scalar axis is one axis: ONNX's own function bodies write it so (AffineGrid's
  // expansion), and ONNX Runtime and the reference accept it.
  const bool scalar_axis = in[1]->shape && in[1]->shape->rank() == 0;
  if (!scalar_axis) AMP_RETURN_IF_ERROR(check_1d(*in[1], 1));
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, const_ints(*in[1], 1));
  if (!axes) {
    std::optional<int64_t> len = scalar_axis ? std::optional<int64_t>(1) : static_length(*in[1]);
    if (x.shape && len) {
      AMP_RETURN_IF_ERROR(check_rank_limit(*len));  // first, so the sum cannot overflow
      AMP_RETURN_IF_ERROR(check_rank_limit(static_cast<int64_t>(x.shape->rank()) + *len));
    }
    set_output(out, 0, x.dtype,
               x.shape && len
                   ? std::optional<Shape>(unknown_dims(x.shape->rank() + static_cast<size_t>(*len)))
                   : std::nullopt);
    return Status::ok();
  }
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t out_rank = static_cast<int64_t>(x.shape->rank() + axes->size());
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> norm, normalize_axes(*axes, out_rank));
  std::vector<char> inserted(static_cast<size_t>(out_rank), 0);
  for (int64_t a : norm) inserted[static_cast<size_t>(a)] = 1;
  Shape result;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (inserted[static_cast<size_t>(i)])
      result.dims.emplace_back(1);
    else
      result.dims.push_back(x.shape->dims[next++]);
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// Transpose(perm): perm must be a permutation of 0..rank-1; default reverses the dims.
Status infer_transpose(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  const bool has_perm = node.attrs.has("perm");
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> perm, node.attrs.get_ints("perm"));
  if (!x.shape && !has_perm) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const size_t r = x.shape ? x.shape->rank() : perm.size();
  if (!has_perm) {
    for (size_t i = 0; i < r; ++i) perm.push_back(static_cast<int64_t>(r - 1 - i));
  }
  if (perm.size() != r)
    return invalid_model("attribute 'perm' has " + std::to_string(perm.size()) +
                         " entries for rank " + std::to_string(r));
  std::vector<char> seen(r, 0);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[static_cast<size_t>(p)])
      return invalid_model("attribute 'perm' " + ints_to_string(perm) +
                           " is not a permutation of 0.." + std::to_string(r - 1));
    seen[static_cast<size_t>(p)] = 1;
  }
  PermuteAttrs rec;
  rec.perm = perm;
  if (!x.shape) {
    set_output(out, 0, x.dtype, unknown_dims(r));
    attrs = std::move(rec);
    return Status::ok();
  }
  Shape result;
  for (int64_t p : perm) result.dims.push_back(x.shape->dims[static_cast<size_t>(p)]);
  set_output(out, 0, x.dtype, std::move(result));
  if (x.shape->is_static()) rec.view_dims = x.shape->static_dims();
  attrs = std::move(rec);
  return Status::ok();
}

// Concat(axis): one dtype and rank; dims off the axis must agree; the axis dims add up.
Status infer_concat(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < in.size(); ++i) {
    AMP_RETURN_IF_ERROR(require_input(in, i));
    if (i == 0)
      AMP_RETURN_IF_ERROR(check_dtype(*in[0], 0, DTypeSet::kAny));
    else
      AMP_RETURN_IF_ERROR(check_same_dtype(*in[i], i, *in[0], 0));
  }
  if (!node.attrs.has("axis")) return invalid_model("attribute 'axis' is required");
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 0));
  const DType dtype = in[0]->dtype;

  // The first known shape sets the rank; the others are checked against it.
  std::optional<size_t> first;
  for (size_t i = 0; i < in.size() && !first; ++i)
    if (in[i]->shape) first = i;
  if (!first) {
    set_output(out, 0, dtype, std::nullopt);
    return Status::ok();
  }
  Shape result = *in[*first]->shape;
  const int64_t r = static_cast<int64_t>(result.rank());
  if (r == 0) return invalid_model("cannot concatenate scalars");
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, r));

  int64_t total = 0;
  bool total_known = true;
  SymInt sym_total = SymInt::constant(0);  // past + 1 for a KV cache's Concat
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i]->shape) {
      total_known = false;
      sym_total = SymInt();
      continue;
    }
    const Shape& s = *in[i]->shape;
    if (static_cast<int64_t>(s.rank()) != r)
      return invalid_model("input " + std::to_string(i) + " has rank " + std::to_string(s.rank()) +
                           ", expected " + std::to_string(r) + " like input " +
                           std::to_string(*first));
    for (int64_t k = 0; k < r; ++k) {
      if (k == a) continue;
      std::optional<Dim> m =
          merge_dims(result.dims[static_cast<size_t>(k)], s.dims[static_cast<size_t>(k)]);
      if (!m)
        return invalid_model("input " + std::to_string(i) + " has shape " + s.to_string() +
                             ", which differs from " + result.to_string() + " off axis " +
                             std::to_string(a));
      result.dims[static_cast<size_t>(k)] = *m;
    }
    const Dim& d = s.dims[static_cast<size_t>(a)];
    sym_total = sym_total + SymInt::of(d);
    if (!d.is_static()) {
      total_known = false;
      continue;
    }
    std::optional<int64_t> t = checked_add(total, d.value);
    if (!t) return overflow_error("the concatenated dim");
    total = *t;
  }
  if (in.size() == 1)
    result.dims[static_cast<size_t>(a)] = in[0]->shape->dims[static_cast<size_t>(a)];
  else
    result.dims[static_cast<size_t>(a)] = total_known ? Dim(total) : sym_total.to_dim();
  set_output(out, 0, dtype, std::move(result));
  attrs = AxisAttrs{a};
  return Status::ok();
}

// Split(input, split?): sizes from the input, else num_outputs (opset 18) or the number
// of outputs equal parts; opset 18 lets the last part be smaller (ceil-sized chunks).
Status infer_split(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  const int64_t n = static_cast<int64_t>(out.size());
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 0));
  const bool has_num_outputs = node.op_version >= 18 && node.attrs.has("num_outputs");
  if (has_num_outputs) {
    AMP_ASSIGN_OR_RETURN(int64_t num, node.attrs.get_int("num_outputs", 0));
    if (num != n)
      return invalid_model("attribute 'num_outputs' is " + std::to_string(num) +
                           " but the node has " + std::to_string(n) + " outputs");
  }
  const Value* split_v = optional_input(in, 1);
  std::optional<std::vector<int64_t>> sizes;
  if (split_v != nullptr) {
    AMP_RETURN_IF_ERROR(check_dtype(*split_v, 1, DTypeSet::kI64));
    AMP_RETURN_IF_ERROR(check_1d(*split_v, 1));
    AMP_ASSIGN_OR_RETURN(sizes, const_ints(*split_v, 1));
    std::optional<int64_t> len = sizes ? std::optional<int64_t>(static_cast<int64_t>(sizes->size()))
                                       : static_length(*split_v);
    if (len && *len != n)
      return invalid_model("'split' has " + std::to_string(*len) + " entries but the node has " +
                           std::to_string(n) + " outputs");
  } else if (node.op_version >= 18 && !has_num_outputs) {
    return invalid_model("neither the 'split' input nor attribute 'num_outputs' is given");
  }
  if (!x.shape) {
    for (size_t k = 0; k < out.size(); ++k) set_output(out, k, x.dtype, std::nullopt);
    return Status::ok();
  }
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, static_cast<int64_t>(x.shape->rank())));
  const Dim d = x.shape->dims[static_cast<size_t>(a)];

  std::vector<Dim> parts(static_cast<size_t>(n));  // unnamed unless computed below
  if (sizes) {
    int64_t sum = 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t s = (*sizes)[static_cast<size_t>(k)];
      if (s < 0) return invalid_model("'split' entry " + std::to_string(k) + " is negative");
      std::optional<int64_t> t = checked_add(sum, s);
      if (!t) return overflow_error("the sum of 'split'");
      sum = *t;
      parts[static_cast<size_t>(k)] = Dim(s);
    }
    if (d.is_static() && sum != d.value)
      return invalid_model("'split' " + ints_to_string(*sizes) + " sums to " + std::to_string(sum) +
                           " but axis " + std::to_string(a) + " has size " +
                           std::to_string(d.value));
  } else if (split_v == nullptr && n == 1) {
    parts[0] = d;
  } else if (split_v == nullptr && d.is_static()) {
    if (d.value % n == 0) {
      for (Dim& p : parts) p = Dim(d.value / n);
    } else if (node.op_version >= 18) {
      const int64_t chunk = d.value / n + 1;
      const int64_t last = d.value - chunk * (n - 1);  // chunk*(n-1) <= d + n: no overflow
      if (last < 0)
        return invalid_model("axis " + std::to_string(a) + " of size " + std::to_string(d.value) +
                             " cannot be split into " + std::to_string(n) + " chunks");
      for (Dim& p : parts) p = Dim(chunk);
      parts.back() = Dim(last);
    } else {
      return invalid_model("axis " + std::to_string(a) + " of size " + std::to_string(d.value) +
                           " does not split into " + std::to_string(n) +
                           " equal parts (uneven splits need opset 18)");
    }
  }
  for (int64_t k = 0; k < n; ++k) {
    Shape s = *x.shape;
    s.dims[static_cast<size_t>(a)] = parts[static_cast<size_t>(k)];
    set_output(out, static_cast<size_t>(k), x.dtype, std::move(s));
  }
  attrs = AxisAttrs{a};
  return Status::ok();
}

namespace {

// Length of one sliced axis of static size d, by the ONNX rules: negative start/end
// count from the end, then clamp; a negative step walks backwards.
Result<int64_t> slice_length(int64_t d, int64_t start, int64_t end, int64_t step) {
  if (step == 0) return invalid_model("'steps' entries must be non-zero");
  if (d == 0) return int64_t{0};
  if (start < 0) start += d;  // start < 0 <= d: no overflow
  if (end < 0) end += d;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, d);
    end = std::clamp<int64_t>(end, 0, d);
    if (end <= start) return int64_t{0};
    return (end - start - 1) / step + 1;
  }
  start = std::clamp<int64_t>(start, 0, d - 1);
  end = std::clamp<int64_t>(end, -1, d - 1);
  if (start <= end) return int64_t{0};
  // -step overflows for INT64_MIN: do the division unsigned.
  const uint64_t span = static_cast<uint64_t>(start - end);
  const uint64_t stride = 0 - static_cast<uint64_t>(step);
  return static_cast<int64_t>((span - 1) / stride + 1);
}

// The end a slice of a symbolic axis may write for "to the end": a huge sentinel (INT64_MAX
// from PyTorch, INT32_MAX, 1e9 from jax2tf), or any bound the axis cannot reach because the
// tensor would exceed kMaxTensorBytes (graph/ir/limits.h) with its other static dims.
int64_t end_sentinel(const Shape& s, size_t axis, DType dtype) {
  uint64_t max_len = kMaxTensorBytes / std::max<size_t>(dtype_size(dtype), 1);
  for (size_t k = 0; k < s.rank(); ++k)
    if (k != axis && s.dims[k].is_static() && s.dims[k].value > 0)
      max_len /= static_cast<uint64_t>(s.dims[k].value);
  return std::min<int64_t>(INT32_MAX, static_cast<int64_t>(max_len));
}

// A symbolic axis keeps its name only for slices known to take all of it: [0, end) or
// its full reverse, with "end" written as a sentinel the way exporters do.
Dim slice_symbolic(const Dim& d, int64_t start, int64_t end, int64_t step, int64_t sentinel) {
  if (step == 1 && start == 0 && end >= sentinel) return d;
  if (step == -1 && (start == -1 || start >= sentinel) && end <= -sentinel) return d;
  return Dim();
}

// The length of a slice [start, end) of step 1 where the dim or a bound is symbolic, the
// bounds taken as lying within the dim (torch's x[:, :seq] of a 512-long table, x[:, -1:],
// x[:, 1:]): a negative constant counts from the end, a sentinel end is the end. The
// plan's exact inference at binding checks what this assumes.
Dim slice_length_symbolic(const Dim& d, const SymInt& start, const SymInt& end, int64_t sentinel) {
  const SymInt dim = SymInt::of(d);
  auto resolve = [&](const SymInt& b, bool is_end) -> SymInt {
    const std::optional<int64_t> c = b.constant_value();
    if (!c) return b;  // a size computed from dims
    if (*c >= (is_end ? sentinel : INT32_MAX)) return is_end ? dim : SymInt();
    if (*c <= INT32_MIN) return SymInt::constant(0);
    return *c < 0 ? dim + b : b;
  };
  return (resolve(end, true) - resolve(start, false)).to_dim();
}

}  // namespace

// Slice(data, starts, ends, axes?, steps?).
Status infer_slice(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kIndex));
  std::vector<std::optional<std::vector<int64_t>>> params(5);  // [1..4]: starts..steps
  std::vector<std::optional<int64_t>> lengths(5);
  static const char* const kNames[5] = {"", "starts", "ends", "axes", "steps"};
  for (size_t i = 1; i < 5; ++i) {
    const Value* v = optional_input(in, i);
    if (v == nullptr) continue;
    AMP_RETURN_IF_ERROR(check_same_dtype(*v, i, *in[1], 1));
    AMP_RETURN_IF_ERROR(check_1d(*v, i));
    AMP_ASSIGN_OR_RETURN(params[i], const_ints(*v, i));
    lengths[i] = params[i] ? std::optional<int64_t>(static_cast<int64_t>(params[i]->size()))
                           : static_length(*v);
    if (lengths[i] && lengths[1] && *lengths[i] != *lengths[1])
      return invalid_model(std::string("'") + kNames[i] + "' has " + std::to_string(*lengths[i]) +
                           " entries but 'starts' has " + std::to_string(*lengths[1]));
  }
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  Shape result = *x.shape;

  // Which axes are sliced; when unknown, every dim is.
  std::vector<int64_t> axes;
  if (optional_input(in, 3) != nullptr) {
    if (!params[3]) {
      set_output(out, 0, x.dtype, unknown_dims(static_cast<size_t>(r)));
      return Status::ok();
    }
    AMP_ASSIGN_OR_RETURN(axes, normalize_axes(*params[3], r));
  } else {
    if (!lengths[1]) {
      set_output(out, 0, x.dtype, unknown_dims(static_cast<size_t>(r)));
      return Status::ok();
    }
    if (*lengths[1] > r)
      return invalid_model("'starts' has " + std::to_string(*lengths[1]) + " entries for rank " +
                           std::to_string(r));
    for (int64_t i = 0; i < *lengths[1]; ++i) axes.push_back(i);
  }
  const bool has_steps = optional_input(in, 4) != nullptr;
  const bool known = params[1] && params[2] && (!has_steps || params[4]);
  // Bounds computed from dims (x[:, :Shape(y)[1]]), for steps of 1.
  const std::optional<std::vector<SymInt>> sym_starts = sym_ints(*in[1]),
                                           sym_ends = sym_ints(*in[2]);
  for (size_t i = 0; i < axes.size(); ++i) {
    Dim& d = result.dims[static_cast<size_t>(axes[i])];
    const bool unit_steps = !has_steps || (params[4] && (*params[4])[i] == 1);
    if (unit_steps && sym_starts && sym_ends && sym_starts->size() == axes.size() &&
        sym_ends->size() == axes.size() && (!known || !d.is_static())) {
      d = slice_length_symbolic(d, (*sym_starts)[i], (*sym_ends)[i],
                                end_sentinel(*x.shape, static_cast<size_t>(axes[i]), x.dtype));
      continue;
    }
    if (!known) {
      d = Dim();
      continue;
    }
    const int64_t start = (*params[1])[i];
    const int64_t end = (*params[2])[i];
    const int64_t step = has_steps ? (*params[4])[i] : 1;
    if (step == 0) return invalid_model("'steps' entry " + std::to_string(i) + " is 0");
    if (d.is_static()) {
      AMP_ASSIGN_OR_RETURN(d.value, slice_length(d.value, start, end, step));
    } else {
      d = slice_symbolic(d, start, end, step,
                         end_sentinel(*x.shape, static_cast<size_t>(axes[i]), x.dtype));
    }
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// Gather(data, indices, axis): data.shape[:axis] + indices.shape + data.shape[axis+1:].
Status infer_gather(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  const Value& idx = *in[1];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(idx, 1, DTypeSet::kIndex));
  AMP_ASSIGN_OR_RETURN(int64_t axis, node.attrs.get_int("axis", 0));
  if (!x.shape || !idx.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  if (r == 0) return invalid_model("input 0 must have rank >= 1");
  AMP_ASSIGN_OR_RETURN(int64_t a, normalize_axis(axis, r));
  attrs = AxisAttrs{a};
  const Dim& d = x.shape->dims[static_cast<size_t>(a)];
  // Constant indices are checked now: out of range is a malformed model, not a run-time
  // surprise.
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> values, const_ints(idx, 1));
  if (values && d.is_static()) {
    for (int64_t v : *values) {
      if (v < -d.value || v >= d.value)
        return invalid_model("index " + std::to_string(v) + " is out of range for axis " +
                             std::to_string(a) + " of size " + std::to_string(d.value));
    }
  }
  Shape result;
  for (int64_t k = 0; k < a; ++k) result.dims.push_back(x.shape->dims[static_cast<size_t>(k)]);
  for (const Dim& q : idx.shape->dims) result.dims.push_back(q);
  for (int64_t k = a + 1; k < r; ++k) result.dims.push_back(x.shape->dims[static_cast<size_t>(k)]);
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// Expand(input, shape): the input broadcast against `shape` (both ways, numpy rules).
Status infer_expand(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(*in[1], 1));
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> target, const_ints(*in[1], 1));
  if (target) {
    for (int64_t v : *target)
      if (v < 0) return invalid_model("'shape' " + ints_to_string(*target) + " has a negative dim");
    if (!x.shape) {
      set_output(out, 0, x.dtype, std::nullopt);
      return Status::ok();
    }
    AMP_ASSIGN_OR_RETURN(Shape s, broadcast_shapes(*x.shape, Shape::from_static(*target)));
    set_output(out, 0, x.dtype, std::move(s));
    return Status::ok();
  }
  if (std::optional<std::vector<SymInt>> sym = sym_ints(*in[1]); sym && x.shape) {
    // A computed target (repeat_kv's [b, kv, n_rep, s, d] from Shape slices): broadcast
    // against its named dims; an element inference cannot name is an unnamed dim.
    AMP_RETURN_IF_ERROR(check_rank_limit(static_cast<int64_t>(sym->size())));
    Shape t;
    for (const SymInt& v : *sym) t.dims.push_back(v.to_dim());
    AMP_ASSIGN_OR_RETURN(Shape s, broadcast_shapes(*x.shape, t));
    set_output(out, 0, x.dtype, std::move(s));
    return Status::ok();
  }
  std::optional<int64_t> len = static_length(*in[1]);
  if (!x.shape || !len) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  // Target unknown: a static input dim other than 1 survives any valid target.
  AMP_RETURN_IF_ERROR(check_rank_limit(*len));
  const size_t r = std::max(x.shape->rank(), static_cast<size_t>(*len));
  Shape result = unknown_dims(r);
  for (size_t i = 0; i < x.shape->rank(); ++i) {
    const Dim& d = x.shape->dims[i];
    if (d.is_static() && d.value != 1) result.dims[r - x.shape->rank() + i] = d;
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// Tile(input, repeats): dim i times repeats[i].
Status infer_tile(const Node&, const Inputs& in, Outputs& out, OpAttrs&) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(*in[1], 1));
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> reps, const_ints(*in[1], 1));
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const size_t r = x.shape->rank();
  std::optional<int64_t> len =
      reps ? std::optional<int64_t>(static_cast<int64_t>(reps->size())) : static_length(*in[1]);
  if (len && *len != static_cast<int64_t>(r))
    return invalid_model("'repeats' has " + std::to_string(*len) + " entries for rank " +
                         std::to_string(r));
  if (!reps) {
    set_output(out, 0, x.dtype, unknown_dims(r));
    return Status::ok();
  }
  Shape result = *x.shape;
  for (size_t i = 0; i < r; ++i) {
    const int64_t k = (*reps)[i];
    if (k < 0) return invalid_model("'repeats' entry " + std::to_string(i) + " is negative");
    Dim& d = result.dims[i];
    if (d.is_static()) {
      std::optional<int64_t> m = checked_mul(d.value, k);
      if (!m) return overflow_error("the tiled dim");
      d = Dim(*m);
    } else if (k == 0) {
      d = Dim(0);
    } else if (k != 1) {
      d = Dim();
    }
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

// Pad(data, pads, constant_value?, axes?) with mode constant | reflect | edge | wrap.
// pads = [begin_0.., end_0..] per padded axis; negative pads crop.
Status infer_pad(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  AMP_RETURN_IF_ERROR(require_input(in, 1));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kNumericOrBool));
  AMP_RETURN_IF_ERROR(check_dtype(*in[1], 1, DTypeSet::kI64));
  AMP_RETURN_IF_ERROR(check_1d(*in[1], 1));
  // (A plain Result rather than AMP_ASSIGN_OR_RETURN: GCC 12 warns spuriously about a
  // moved-from std::string there.)
  const Result<std::string> mode_text = node.attrs.get_string("mode", "constant");
  if (!mode_text.is_ok()) return mode_text.status();
  const std::string& mode = *mode_text;
  PadAttrs rec;
  rec.mode = index_of(mode, {"constant", "reflect", "edge", "wrap"});  // PadAttrs::Mode order
  if (rec.mode < 0) return unsupported("Pad mode '" + mode + "' is not supported");
  attrs = rec;
  if (const Value* value = optional_input(in, 2)) {
    AMP_RETURN_IF_ERROR(check_same_dtype(*value, 2, x, 0));
    AMP_RETURN_IF_ERROR(check_scalar(*value, 2, /*allow_1=*/true));
  }
  const Value* axes_v = optional_input(in, 3);
  if (axes_v != nullptr) {
    AMP_RETURN_IF_ERROR(check_dtype(*axes_v, 3, DTypeSet::kIndex));
    AMP_RETURN_IF_ERROR(check_1d(*axes_v, 3));
  }
  if (!x.shape) {
    set_output(out, 0, x.dtype, std::nullopt);
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  std::vector<int64_t> axes;
  if (axes_v != nullptr) {
    AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> a, const_ints(*axes_v, 3));
    if (!a) {
      set_output(out, 0, x.dtype, unknown_dims(static_cast<size_t>(r)));
      return Status::ok();
    }
    AMP_ASSIGN_OR_RETURN(axes, normalize_axes(*a, r));
  } else {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const size_t n = axes.size();
  AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> pads, const_ints(*in[1], 1));
  std::optional<int64_t> len =
      pads ? std::optional<int64_t>(static_cast<int64_t>(pads->size())) : static_length(*in[1]);
  if (len && *len != static_cast<int64_t>(2 * n))
    return invalid_model("'pads' has " + std::to_string(*len) + " entries, expected " +
                         std::to_string(2 * n) + " (begin and end per padded axis)");
  Shape result = *x.shape;
  for (size_t i = 0; i < n; ++i) {
    Dim& d = result.dims[static_cast<size_t>(axes[i])];
    if (!pads) {
      d = Dim();
      continue;
    }
    const int64_t begin = (*pads)[i];
    const int64_t end = (*pads)[i + n];
    if (!d.is_static()) {
      if (begin != 0 || end != 0) d = Dim();
      continue;
    }
    const std::string where =
        "axis " + std::to_string(axes[i]) + " of size " + std::to_string(d.value);
    // reflect, edge and wrap need at least one element to copy; pads longer than the axis
    // repeat the pattern, as numpy.pad (the ONNX reference) does.
    if (mode != "constant" && d.value == 0 && (begin > 0 || end > 0))
      return invalid_model(mode + " padding of empty " + where);
    std::optional<int64_t> s = checked_add(d.value, begin);
    if (s) s = checked_add(*s, end);
    if (!s) return overflow_error("the padded size of " + where);
    if (*s < 0)
      return invalid_model("pads " + std::to_string(begin) + ", " + std::to_string(end) +
                           " crop more than " + where);
    d = Dim(*s);
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

namespace {

// DepthToSpace, SpaceToDepth: the required positive attribute 'blocksize'.
Result<int64_t> blocksize_of(const Node& node) {
  if (!node.attrs.has("blocksize")) return invalid_model("attribute 'blocksize' is required");
  AMP_ASSIGN_OR_RETURN(int64_t b, node.attrs.get_int("blocksize", 0));
  if (b <= 0) return invalid_model("attribute 'blocksize' is " + std::to_string(b));
  return b;
}

}  // namespace

// DepthToSpace(blocksize, mode DCR|CRD): [N, C, H, W] -> [N, C/b^2, H*b, W*b], one 6-D
// transpose of the reshaped input (ONNX's definition), recorded as a PermuteAttrs:
//   DCR: [N, b, b, C', H, W] -> perm (0, 3, 4, 1, 5, 2) -> [N, C', H, b, W, b]
//   CRD: [N, C', b, b, H, W] -> perm (0, 1, 4, 2, 5, 3) -> [N, C', H, b, W, b]
Status infer_depth_to_space(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_ASSIGN_OR_RETURN(int64_t b, blocksize_of(node));
  AMP_ASSIGN_OR_RETURN(std::string mode, node.attrs.get_string("mode", "DCR"));
  if (mode != "DCR" && mode != "CRD")
    return invalid_model("attribute 'mode' is '" + mode + "', expected DCR or CRD");
  if (!x.shape) {
    set_output(out, 0, x.dtype, unknown_dims(4));
    return Status::ok();
  }
  if (x.shape->rank() != 4)
    return invalid_model("input 0 must be 4-D, got " + x.shape->to_string());
  std::optional<int64_t> b2 = checked_mul(b, b);
  if (!b2) return overflow_error("blocksize squared");
  Shape result = *x.shape;
  Dim& c = result.dims[1];
  if (c.is_static()) {
    if (c.value % *b2 != 0)
      return invalid_model("channels " + std::to_string(c.value) + " are not a multiple of " +
                           "blocksize^2 = " + std::to_string(*b2));
    c = Dim(c.value / *b2);
  } else {
    c = Dim();
  }
  for (size_t i = 2; i < 4; ++i) {
    Dim& d = result.dims[i];
    if (!d.is_static()) {
      d = Dim();
      continue;
    }
    std::optional<int64_t> m = checked_mul(d.value, b);
    if (!m) return overflow_error("the output size");
    d = Dim(*m);
  }
  const bool dcr = mode == "DCR";
  PermuteAttrs rec;
  rec.perm = dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
  if (x.shape->is_static()) {
    const std::vector<int64_t> xd = x.shape->static_dims();
    const int64_t cc = xd[1] / *b2;
    rec.view_dims = dcr ? std::vector<int64_t>{xd[0], b, b, cc, xd[2], xd[3]}
                        : std::vector<int64_t>{xd[0], cc, b, b, xd[2], xd[3]};
  }
  set_output(out, 0, x.dtype, std::move(result));
  attrs = std::move(rec);
  return Status::ok();
}

// SpaceToDepth: DepthToSpace's inverse, [N, C, H, W] -> [N, C * b * b, H / b, W / b], a
// transpose of the reshaped input recorded as a PermuteAttrs:
//   [N, C, H', b, W', b] -> perm (0, 3, 5, 1, 2, 4) -> [N, b, b, C, H', W']
Status infer_space_to_depth(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kAny));
  AMP_ASSIGN_OR_RETURN(int64_t b, blocksize_of(node));
  if (!x.shape) {
    set_output(out, 0, x.dtype, unknown_dims(4));
    return Status::ok();
  }
  if (x.shape->rank() != 4)
    return invalid_model("input 0 must be 4-D, got " + x.shape->to_string());
  std::optional<int64_t> b2 = checked_mul(b, b);
  if (!b2) return overflow_error("blocksize squared");
  Shape result = *x.shape;
  Dim& c = result.dims[1];
  if (c.is_static()) {
    std::optional<int64_t> m = checked_mul(c.value, *b2);
    if (!m) return overflow_error("the output channels");
    c = Dim(*m);
  } else {
    c = Dim();
  }
  for (size_t i = 2; i < 4; ++i) {
    Dim& d = result.dims[i];
    if (!d.is_static()) {
      d = Dim();
      continue;
    }
    if (d.value % b != 0)
      return invalid_model("dim " + std::to_string(i) + " (" + std::to_string(d.value) +
                           ") is not a multiple of blocksize " + std::to_string(b));
    d = Dim(d.value / b);
  }
  PermuteAttrs rec;
  rec.perm = {0, 3, 5, 1, 2, 4};
  if (x.shape->is_static()) {
    const std::vector<int64_t> xd = x.shape->static_dims();
    rec.view_dims = {xd[0], xd[1], xd[2] / b, b, xd[3] / b, b};
  }
  set_output(out, 0, x.dtype, std::move(result));
  attrs = std::move(rec);
  return Status::ok();
}

namespace {

// Reads one string attribute into an enum: its position in `options` (declared in the
// record's enum order); an unknown value makes the model malformed.
Status read_choice(const Node& node, const char* name, const char* fallback,
                   std::initializer_list<const char*> options, int* out, std::string* text) {
  AMP_ASSIGN_OR_RETURN(*text, node.attrs.get_string(name, fallback));
  *out = index_of(*text, options);
  if (*out < 0) return invalid_model("attribute '" + std::string(name) + "' is '" + *text + "'");
  return Status::ok();
}

// Resize's attributes into the record (graph/ops/op_attrs.h); `policy` keeps the text.
Status read_resize_attrs(const Node& node, ResizeAttrs* r, std::string* policy) {
  std::string text;
  AMP_RETURN_IF_ERROR(
      read_choice(node, "mode", "nearest", {"nearest", "linear", "cubic"}, &r->mode, &text));
  AMP_RETURN_IF_ERROR(read_choice(node, "coordinate_transformation_mode", "half_pixel",
                                  {"half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                   "align_corners", "asymmetric", "tf_crop_and_resize"},
                                  &r->coord, &text));
  AMP_RETURN_IF_ERROR(read_choice(node, "nearest_mode", "round_prefer_floor",
                                  {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
                                  &r->nearest, &text));
  AMP_RETURN_IF_ERROR(read_choice(node, "keep_aspect_ratio_policy", "stretch",
                                  {"stretch", "not_larger", "not_smaller"}, &r->policy, policy));
  AMP_ASSIGN_OR_RETURN(const float a, node.attrs.get_float("cubic_coeff_a", -0.75f));
  r->cubic_a = a;
  AMP_ASSIGN_OR_RETURN(r->exclude_outside, read_flag(node, "exclude_outside", 0));
  AMP_ASSIGN_OR_RETURN(r->antialias, read_flag(node, "antialias", 0));
  AMP_ASSIGN_OR_RETURN(r->extrapolation, node.attrs.get_float("extrapolation_value", 0.0f));
  return Status::ok();
}

// An optional Resize input counts as given unless absent or statically empty (exporters
// write an empty constant for "not given").
bool resize_input_given(const Value* v) {
  if (v == nullptr) return false;
  std::optional<int64_t> len = static_length(*v);
  return !(len && *len == 0);
}

// floor(d * scale) computed in float like the ONNX reference, so the rounding of
// scales such as 1/3 matches other runtimes.
Result<int64_t> scaled_dim(int64_t d, double scale) {
  const float v = std::floor(static_cast<float>(d) * static_cast<float>(scale));
  if (!(v >= 0.0f) || v >= 9.0e18f) return overflow_error("the resized dim");
  return static_cast<int64_t>(v);
}

}  // namespace

// Resize(X, roi?, scales?, sizes?): exactly one of scales and sizes; `axes` restricts
// them to some dims; keep_aspect_ratio_policy rescales `sizes` by one common factor.
Status infer_resize(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  AMP_RETURN_IF_ERROR(require_input(in, 0));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kNumeric));
  if (const Value* roi = optional_input(in, 1))
    AMP_RETURN_IF_ERROR(check_dtype(*roi, 1, DTypeSet::kFloat));
  std::string policy;
  ResizeAttrs rec;
  AMP_RETURN_IF_ERROR(read_resize_attrs(node, &rec, &policy));
  attrs = rec;
  const Value* scales_v = optional_input(in, 2);
  const Value* sizes_v = optional_input(in, 3);
  const bool has_scales = resize_input_given(scales_v);
  const bool has_sizes = resize_input_given(sizes_v);
  if (has_scales == has_sizes)
    return invalid_model("exactly one of 'scales' (input 2) and 'sizes' (input 3) must be given");
  if (has_scales) {
    AMP_RETURN_IF_ERROR(check_dtype(*scales_v, 2, DTypeSet::kFloat));
    AMP_RETURN_IF_ERROR(check_1d(*scales_v, 2));
    if (policy != "stretch")
      return invalid_model("'scales' cannot be combined with keep_aspect_ratio_policy '" + policy +
                           "'");
  } else {
    AMP_RETURN_IF_ERROR(check_dtype(*sizes_v, 3, DTypeSet::kI64));
    AMP_RETURN_IF_ERROR(check_1d(*sizes_v, 3));
  }
  const bool has_axes = node.attrs.has("axes");
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> raw_axes, node.attrs.get_ints("axes"));
  std::optional<std::vector<int64_t>> sizes;
  if (has_sizes) {
    AMP_ASSIGN_OR_RETURN(sizes, const_ints(*sizes_v, 3));
    if (sizes) {
      for (int64_t s : *sizes)
        if (s < 0)
          return invalid_model("'sizes' " + ints_to_string(*sizes) + " has a negative entry");
    }
  }
  if (!x.shape) {
    // Plain `sizes` over every axis is the output shape itself; without axes, the
    // length of scales or sizes is the rank.
    std::optional<Shape> shape;
    const std::optional<int64_t> len = static_length(has_scales ? *scales_v : *sizes_v);
    if (sizes && !has_axes && policy == "stretch") {
      shape = Shape::from_static(*sizes);
    } else if (len && !has_axes) {
      AMP_RETURN_IF_ERROR(check_rank_limit(*len));
      shape = unknown_dims(static_cast<size_t>(*len));
    }
    set_output(out, 0, x.dtype, std::move(shape));
    return Status::ok();
  }
  const int64_t r = static_cast<int64_t>(x.shape->rank());
  std::vector<int64_t> axes;
  if (has_axes) {
    AMP_ASSIGN_OR_RETURN(axes, normalize_axes(raw_axes, r));
    rec.axes = axes;
    attrs = rec;
  } else {
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const size_t n = axes.size();
  const Value& param = has_scales ? *scales_v : *sizes_v;
  const size_t param_index = has_scales ? 2 : 3;
  std::optional<int64_t> len = static_length(param);
  if (len && *len != static_cast<int64_t>(n))
    return invalid_model("input " + std::to_string(param_index) + " has " + std::to_string(*len) +
                         " entries for " + std::to_string(n) + " resized axes");
  Shape result = *x.shape;

  if (has_scales) {
    AMP_ASSIGN_OR_RETURN(std::optional<std::vector<double>> scales, const_floats(*scales_v, 2));
    if (scales && scales->size() != n)
      return invalid_model("'scales' has " + std::to_string(scales->size()) + " entries for " +
                           std::to_string(n) + " resized axes");
    for (size_t i = 0; i < n; ++i) {
      Dim& d = result.dims[static_cast<size_t>(axes[i])];
      if (!scales) {
        d = Dim();
        continue;
      }
      const double s = (*scales)[i];
      if (!(s > 0.0) || !std::isfinite(s))
        return invalid_model("'scales' entry " + std::to_string(i) + " must be positive");
      if (d.is_static()) {
        AMP_ASSIGN_OR_RETURN(d.value, scaled_dim(d.value, s));
      } else if (s != 1.0) {
        d = Dim();
      }
    }
    set_output(out, 0, x.dtype, std::move(result));
    return Status::ok();
  }

  if (sizes && sizes->size() != n)
    return invalid_model("'sizes' has " + std::to_string(sizes->size()) + " entries for " +
                         std::to_string(n) + " resized axes");
  bool axes_static = true;
  for (int64_t a : axes)
    axes_static = axes_static && result.dims[static_cast<size_t>(a)].is_static();
  if (!sizes || (policy != "stretch" && !axes_static)) {
    for (int64_t a : axes) result.dims[static_cast<size_t>(a)] = Dim();
    set_output(out, 0, x.dtype, std::move(result));
    return Status::ok();
  }
  if (policy == "stretch") {
    for (size_t i = 0; i < n; ++i) result.dims[static_cast<size_t>(axes[i])] = Dim((*sizes)[i]);
    set_output(out, 0, x.dtype, std::move(result));
    return Status::ok();
  }
  // not_larger / not_smaller: one scale for every resized axis, as in the ONNX reference
  // (float arithmetic, round half away from zero).
  float scale = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = result.dims[static_cast<size_t>(axes[i])].value;
    if (d == 0)
      return invalid_model("keep_aspect_ratio_policy '" + policy + "' needs non-empty axes");
    const float s = static_cast<float>((*sizes)[i]) / static_cast<float>(d);
    if (i == 0 || (policy == "not_larger" ? s < scale : s > scale)) scale = s;
  }
  for (size_t i = 0; i < n; ++i) {
    Dim& d = result.dims[static_cast<size_t>(axes[i])];
    const float v = std::roundf(scale * static_cast<float>(d.value));
    if (!(v >= 0.0f) || v >= 9.0e18f) return overflow_error("the resized dim");
    d = Dim(static_cast<int64_t>(v));
  }
  set_output(out, 0, x.dtype, std::move(result));
  return Status::ok();
}

}  // namespace amp::graph
