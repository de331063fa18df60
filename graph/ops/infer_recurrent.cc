// Shape & dtype inference for LSTM, GRU and RNN (opsets 7, 14, 22): inputs
//   X [seq, batch, input] (layout 1: [batch, seq, input]), W [dirs, gates*hidden, input],
//   R [dirs, gates*hidden, hidden], B [dirs, 2*gates*hidden], sequence_lens [batch] (i32),
//   initial_h (and LSTM's initial_c) [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]),
//   LSTM's P [dirs, 3*hidden];
// outputs Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]), Y_h (and Y_c)
// like initial_h. gates: RNN 1, GRU 3 (z, r, h), LSTM 4 (i, o, f, c).
#include <string>

#include "graph/ops/infer_rules.h"
#include "graph/ops/infer_util.h"

namespace amp::graph {
namespace {

using Inputs = std::vector<const Value*>;
using Outputs = std::vector<OutputInfo>;

struct ActivationName {
  const char* name;
  int kind;
  bool alpha, beta;
  float default_alpha, default_beta;
};
constexpr ActivationName kActivations[] = {
    {"Relu", RnnActivation::kRelu, false, false, 0, 0},
    {"Tanh", RnnActivation::kTanh, false, false, 0, 0},
    {"Sigmoid", RnnActivation::kSigmoid, false, false, 0, 0},
    {"Affine", RnnActivation::kAffine, true, true, 1.0f, 0.0f},
    {"LeakyRelu", RnnActivation::kLeakyRelu, true, false, 0.01f, 0},
    {"ThresholdedRelu", RnnActivation::kThresholdedRelu, true, false, 1.0f, 0},
    {"ScaledTanh", RnnActivation::kScaledTanh, true, true, 1.0f, 1.0f},
    {"HardSigmoid", RnnActivation::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"Elu", RnnActivation::kElu, true, false, 1.0f, 0},
    {"Softsign", RnnActivation::kSoftsign, false, false, 0, 0},
    {"Softplus", RnnActivation::kSoftplus, false, false, 0, 0},
};

// The activations attribute (defaults: RNN Tanh; GRU Sigmoid, Tanh; LSTM Sigmoid, Tanh,
// Tanh; per direction), alphas and betas consumed in order by the activations that take
// them (ONNX Runtime's reading of the spec).
Result<std::vector<RnnActivation>> read_activations(const Node& node, const RecurrentAttrs& a) {
  const size_t per = static_cast<size_t>(a.activation_count());
  const size_t want = per * static_cast<size_t>(a.directions());
  std::vector<std::string> names;
  if (node.attrs.has("activations")) {
    AMP_ASSIGN_OR_RETURN(names, node.attrs.get_strings("activations"));
  } else {
    const std::vector<std::string> one =
        a.kind == RecurrentAttrs::kRnn   ? std::vector<std::string>{"Tanh"}
        : a.kind == RecurrentAttrs::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                         : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (int d = 0; d < a.directions(); ++d) names.insert(names.end(), one.begin(), one.end());
  }
  // A bidirectional node may list one direction's activations for both.
  if (names.size() == per && want == 2 * per) names.insert(names.end(), names.begin(), names.end());
  if (names.size() != want)
    return invalid_model("attribute 'activations' has " + std::to_string(names.size()) +
                         " entries, expected " + std::to_string(want));
  AMP_ASSIGN_OR_RETURN(std::vector<float> alphas, node.attrs.get_floats("activation_alpha", {}));
  AMP_ASSIGN_OR_RETURN(std::vector<float> betas, node.attrs.get_floats("activation_beta", {}));
  size_t ai = 0, bi = 0;
  std::vector<RnnActivation> out;
  for (const std::string& n : names) {
    const ActivationName* found = nullptr;
    for (const ActivationName& k : kActivations)
      if (n == k.name) found = &k;
    if (found == nullptr) return unsupported("RNN activation '" + n + "'");
    RnnActivation act;
    act.kind = found->kind;
    act.alpha = found->default_alpha;
    act.beta = found->default_beta;
    if (found->alpha && ai < alphas.size()) act.alpha = alphas[ai++];
    if (found->beta && bi < betas.size()) act.beta = betas[bi++];
    out.push_back(act);
  }
  return out;
}

// "input i has shape S, expected E" unless v's static dims match `expect` (-1: any).
Status check_dims(const Value* v, size_t i, const std::vector<int64_t>& expect) {
  if (v == nullptr || !v->shape) return Status::ok();
  bool ok = v->shape->rank() == expect.size();
  for (size_t k = 0; ok && k < expect.size(); ++k) {
    const Dim& d = v->shape->dims[k];
    ok = expect[k] < 0 || !d.is_static() || d.value == expect[k];
  }
  if (ok) return Status::ok();
  return invalid_model("input " + std::to_string(i) + " has shape " + v->shape->to_string() +
                       ", expected " + ints_to_string(expect) + " (-1: any)");
}

}  // namespace

Status infer_recurrent(const Node& node, const Inputs& in, Outputs& out, OpAttrs& attrs) {
  for (size_t i = 0; i < 3; ++i) AMP_RETURN_IF_ERROR(require_input(in, i));
  const Value& x = *in[0];
  AMP_RETURN_IF_ERROR(check_dtype(x, 0, DTypeSet::kFloat));
  RecurrentAttrs a;
  a.kind = node.op == OpType::kLSTM  ? RecurrentAttrs::kLstm
           : node.op == OpType::kGRU ? RecurrentAttrs::kGru
                                     : RecurrentAttrs::kRnn;
  for (size_t i : {1, 2, 3, 5, 6, 7})
    if (const Value* v = optional_input(in, i)) AMP_RETURN_IF_ERROR(check_same_dtype(*v, i, x, 0));
  if (const Value* lens = optional_input(in, 4))
    AMP_RETURN_IF_ERROR(check_dtype(*lens, 4, DTypeSet::kIndex));
  if (!node.attrs.has("hidden_size")) return invalid_model("attribute 'hidden_size' is required");
  AMP_ASSIGN_OR_RETURN(a.hidden, node.attrs.get_int("hidden_size", 0));
  if (a.hidden < 1) return invalid_model("attribute 'hidden_size' must be >= 1");
  // A plain Result: GCC 12 warns falsely on AMP_ASSIGN_OR_RETURN into a std::string.
  Result<std::string> dir = node.attrs.get_string("direction", "forward");
  if (!dir.is_ok()) return dir.status();
  if (*dir == "forward")
    a.direction = RecurrentAttrs::kForward;
  else if (*dir == "reverse")
    a.direction = RecurrentAttrs::kReverse;
  else if (*dir == "bidirectional")
    a.direction = RecurrentAttrs::kBidirectional;
  else
    return invalid_model("attribute 'direction' is '" + *dir + "'");
  if (node.op_version == 0 || node.op_version >= 14) {
    AMP_ASSIGN_OR_RETURN(int64_t layout, node.attrs.get_int("layout", 0));
    if (layout != 0 && layout != 1) return invalid_model("attribute 'layout' must be 0 or 1");
    a.layout = static_cast<int>(layout);
  }
  AMP_ASSIGN_OR_RETURN(a.clip, node.attrs.get_float("clip", 0.0f));
  if (a.clip < 0.0f) return invalid_model("attribute 'clip' must be positive");
  if (a.kind == RecurrentAttrs::kLstm) {
    AMP_ASSIGN_OR_RETURN(a.input_forget, read_flag(node, "input_forget", 0));
  }
  if (a.kind == RecurrentAttrs::kGru) {
    AMP_ASSIGN_OR_RETURN(a.linear_before_reset, read_flag(node, "linear_before_reset", 0));
  }
  AMP_ASSIGN_OR_RETURN(a.activations, read_activations(node, a));
  const int64_t dirs = a.directions(), g = a.gates(), h = a.hidden;
  const size_t outputs = a.kind == RecurrentAttrs::kLstm ? 3 : 2;
  if (node.outputs.size() > outputs)
    return invalid_model("has " + std::to_string(node.outputs.size()) + " outputs, at most " +
                         std::to_string(outputs));
  std::optional<Shape> y, yh;
  if (x.shape) {
    if (x.shape->rank() != 3)
      return invalid_model("input 0 must be 3-D, got " + x.shape->to_string());
    const Dim& seq = x.shape->dims[a.layout == 0 ? 0 : 1];
    const Dim& batch = x.shape->dims[a.layout == 0 ? 1 : 0];
    const Dim& input = x.shape->dims[2];
    const int64_t in_size = input.is_static() ? input.value : -1;
    const int64_t b = batch.is_static() ? batch.value : -1;
    AMP_RETURN_IF_ERROR(check_dims(in[1], 1, {dirs, g * h, in_size}));
    AMP_RETURN_IF_ERROR(check_dims(in[2], 2, {dirs, g * h, h}));
    AMP_RETURN_IF_ERROR(check_dims(optional_input(in, 3), 3, {dirs, 2 * g * h}));
    AMP_RETURN_IF_ERROR(check_dims(optional_input(in, 4), 4, {b}));
    const std::vector<int64_t> state =
        a.layout == 0 ? std::vector<int64_t>{dirs, b, h} : std::vector<int64_t>{b, dirs, h};
    AMP_RETURN_IF_ERROR(check_dims(optional_input(in, 5), 5, state));
    AMP_RETURN_IF_ERROR(check_dims(optional_input(in, 6), 6, state));
    AMP_RETURN_IF_ERROR(check_dims(optional_input(in, 7), 7, {dirs, 3 * h}));
    y = a.layout == 0 ? Shape(std::vector<Dim>{seq, Dim(dirs), batch, Dim(h)})
                      : Shape(std::vector<Dim>{batch, seq, Dim(dirs), Dim(h)});
    yh = a.layout == 0 ? Shape(std::vector<Dim>{Dim(dirs), batch, Dim(h)})
                       : Shape(std::vector<Dim>{batch, Dim(dirs), Dim(h)});
    if (seq.is_static() && batch.is_static() && input.is_static()) {
      a.seq = seq.value;
      a.batch = batch.value;
      a.input = input.value;
    }
  }
  set_output(out, 0, x.dtype, y);
  set_output(out, 1, x.dtype, yh);
  if (a.kind == RecurrentAttrs::kLstm) set_output(out, 2, x.dtype, yh);
  attrs = std::move(a);
  return Status::ok();
}

}  // namespace amp::graph
