// Shape & dtype inference for Einsum: the equation parsed once into label ids per operand
// axis (EinsumAttrs), the output's labels (explicit after "->", else the ellipsis dims and
// then the labels used once, in ASCII order, as numpy does) and each label's size.
//
// Labels: 'A'..'Z' are ids 0..25, 'a'..'z' 26..51 (so id order is ASCII order); the dims an
// ellipsis stands for are ids 52.. right-aligned across operands, so "...ij" on [2, 3, 4, 5]
// and "...jk" on [3, 5, 6] share the broadcast dim id of the 3 (numpy's broadcasting). A
// label of size 1 in one operand broadcasts against its size in another.
#include <algorithm>
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

constexpr int kLetters = 52;

int label_id(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

// One operand's term: its letter labels, with -1 where the ellipsis stands.
struct Term {
  std::vector<int> labels;
  bool ellipsis = false;
  size_t letters() const { return labels.size() - (ellipsis ? 1 : 0); }
};

Result<Term> parse_term(const std::string& t) {
  Term term;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 3, "...") == 0) {
      if (term.ellipsis) return invalid_model("equation term '" + t + "' has two ellipses");
      term.ellipsis = true;
      term.labels.push_back(-1);
      i += 2;
      continue;
    }
    const int id = label_id(t[i]);
    if (id < 0)
      return invalid_model("equation term '" + t + "' has '" + std::string(1, t[i]) +
                           "', expected letters and '...'");
    term.labels.push_back(id);
  }
  return term;
}

// The label ids of a term on an operand of `rank` dims, its ellipsis expanded into the last
// `rank - letters` of the `ellipsis_dims` broadcast ids.
std::vector<int> expand(const Term& t, size_t rank, size_t ellipsis_dims) {
  std::vector<int> out;
  for (int id : t.labels) {
    if (id >= 0) {
      out.push_back(id);
      continue;
    }
    const size_t e = rank - t.letters();
    for (size_t j = 0; j < e; ++j)
      out.push_back(kLetters + static_cast<int>(ellipsis_dims - e + j));
  }
  return out;
}

}  // namespace

Status infer_einsum(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  if (in.empty()) return invalid_model("Einsum needs at least one input");
  for (size_t i = 0; i < in.size(); ++i) {
    AMP_RETURN_IF_ERROR(require_input(in, i));
    AMP_RETURN_IF_ERROR(check_dtype(*in[i], i, DTypeSet::kNumeric));
    if (i > 0) AMP_RETURN_IF_ERROR(check_same_dtype(*in[i], i, *in[0], 0));
  }
  if (!node.attrs.has("equation")) return invalid_model("attribute 'equation' is required");
  // A plain Result: GCC 12 warns falsely on AMP_ASSIGN_OR_RETURN into a std::string.
  Result<std::string> attr = node.attrs.get_string("equation", "");
  if (!attr.is_ok()) return attr.status();
  const std::string& raw = *attr;
  std::string eq;
  for (char c : raw)
    if (c != ' ') eq.push_back(c);
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    AMP_ASSIGN_OR_RETURN(Term t, parse_term(lhs.substr(start, comma - start)));
    terms.push_back(std::move(t));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != in.size())
    return invalid_model("equation '" + raw + "' has " + std::to_string(terms.size()) +
                         " operands for " + std::to_string(in.size()) + " inputs");
  for (const Value* v : in) {
    if (!v->shape) {
      set_output(out, 0, in[0]->dtype, std::nullopt);
      return Status::ok();
    }
  }
  size_t ellipsis_dims = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t rank = in[i]->shape->rank();
    const Term& t = terms[i];
    if (t.ellipsis ? rank < t.letters() : rank != t.letters())
      return invalid_model("equation term " + std::to_string(i) + " has " +
                           std::to_string(t.letters()) + " labels for input " + std::to_string(i) +
                           " of rank " + std::to_string(rank));
    if (t.ellipsis) ellipsis_dims = std::max(ellipsis_dims, rank - t.letters());
  }
  EinsumAttrs rec;
  std::vector<Dim> size(kLetters + ellipsis_dims, Dim(1));
  std::vector<int> uses(size.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {
    rec.inputs.push_back(expand(terms[i], in[i]->shape->rank(), ellipsis_dims));
    for (size_t a = 0; a < rec.inputs[i].size(); ++a) {
      const int id = rec.inputs[i][a];
      const Dim& d = in[i]->shape->dims[a];
      ++uses[static_cast<size_t>(id)];
      Dim& s = size[static_cast<size_t>(id)];
      if (d.is_static() && d.value == 1) continue;
      if (s.is_static() && s.value == 1) {
        s = d;
        continue;
      }
      std::optional<Dim> m = merge_dims(s, d);
      if (!m)
        return invalid_model("equation '" + raw + "': a label has sizes " +
                             std::to_string(s.value) + " and " + std::to_string(d.value));
      s = *m;
    }
  }
  if (arrow != std::string::npos) {
    AMP_ASSIGN_OR_RETURN(Term t, parse_term(eq.substr(arrow + 2)));
    if (t.ellipsis && ellipsis_dims == 0 &&
        std::none_of(terms.begin(), terms.end(), [](const Term& x) { return x.ellipsis; }))
      return invalid_model("equation '" + raw + "': '...' in the output but not the inputs");
    rec.output = expand(t, t.letters() + ellipsis_dims, ellipsis_dims);
    for (size_t a = 0; a < rec.output.size(); ++a) {
      const int id = rec.output[a];
      if (uses[static_cast<size_t>(id)] == 0)
        return invalid_model("equation '" + raw + "': an output label is in no input");
      if (std::count(rec.output.begin(), rec.output.end(), id) > 1)
        return invalid_model("equation '" + raw + "': an output label repeats");
    }
  } else {
    for (size_t j = 0; j < ellipsis_dims; ++j) rec.output.push_back(kLetters + static_cast<int>(j));
    for (int id = 0; id < kLetters; ++id)
      if (uses[static_cast<size_t>(id)] == 1) rec.output.push_back(id);
  }
  Shape result;
  for (int id : rec.output) result.dims.push_back(size[static_cast<size_t>(id)]);
  if (std::all_of(size.begin(), size.end(), [](const Dim& d) { return d.is_static(); })) {
    for (const Dim& d : size) rec.label_sizes.push_back(d.value);
  }
  attrs = std::move(rec);
  set_output(out, 0, in[0]->dtype, std::move(result));
  return Status::ok();
}

}  // namespace amp::graph
