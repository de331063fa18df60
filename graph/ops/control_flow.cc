#include "graph/ops/control_flow.h"

namespace amp::graph {
namespace {

std::string count_error(const char* what, size_t got, size_t want) {
  return std::string(what) + " " + std::to_string(got) + ", expected " + std::to_string(want);
}

}  // namespace

std::vector<std::string> body_attr_names(OpType op) {
  if (op == OpType::kIf) return {"then_branch", "else_branch"};
  if (op == OpType::kLoop || op == OpType::kScan) return {"body"};
  return {};
}

Result<std::vector<std::shared_ptr<const Graph>>> node_bodies(const Node& n) {
  std::vector<std::shared_ptr<const Graph>> bodies;
  for (const std::string& name : body_attr_names(n.op)) {
    AMP_ASSIGN_OR_RETURN(std::shared_ptr<const Graph> g, n.attrs.get_graph(name));
    bodies.push_back(std::move(g));
  }
  return bodies;
}

Result<ControlFlowLayout> control_flow_layout(const Node& n) {
  ControlFlowLayout l;
  AMP_ASSIGN_OR_RETURN(int64_t captures, n.attrs.get_int("captured_inputs", 0));
  AMP_ASSIGN_OR_RETURN(auto bodies, node_bodies(n));
  const size_t nin = n.inputs.size(), nout = n.outputs.size();
  if (captures < 0 || static_cast<size_t>(captures) >= nin + (n.op == OpType::kScan ? 1 : 0))
    return invalid_model("captured_inputs is " + std::to_string(captures) + " for " +
                         std::to_string(nin) + " inputs");
  l.captures = static_cast<size_t>(captures);
  const Graph& b = *bodies[0];
  switch (n.op) {
    case OpType::kIf:
      for (size_t k = 0; k < bodies.size(); ++k) {
        const char* which = k == 0 ? "then_branch" : "else_branch";
        if (bodies[k]->inputs.size() != l.captures)
          return invalid_model(std::string(which) + ": " +
                               count_error("inputs", bodies[k]->inputs.size(), l.captures));
        if (bodies[k]->outputs.size() != nout)
          return invalid_model(std::string(which) + ": " +
                               count_error("outputs", bodies[k]->outputs.size(), nout));
      }
      return l;
    case OpType::kLoop: {
      if (nin < 2 + l.captures) return invalid_model(count_error("inputs", nin, 2 + l.captures));
      l.first_carried = 2;
      l.carried = nin - 2 - l.captures;
      if (b.inputs.size() != nin)
        return invalid_model("body: " + count_error("inputs", b.inputs.size(), nin));
      if (nout < l.carried)
        return invalid_model(count_error("outputs", nout, l.carried) + " or more");
      l.scan_outputs = nout - l.carried;
      if (b.outputs.size() != 1 + nout)
        return invalid_model("body: " + count_error("outputs", b.outputs.size(), 1 + nout));
      return l;
    }
    case OpType::kScan: {
      AMP_ASSIGN_OR_RETURN(int64_t m, n.attrs.get_int("num_scan_inputs", -1));
      l.scan8 = n.op_version < 9;
      l.first_carried = l.scan8 ? 1 : 0;
      if (m < 1 || static_cast<size_t>(m) + l.first_carried + l.captures > nin)
        return invalid_model("num_scan_inputs is " + std::to_string(m) + " for " +
                             std::to_string(nin) + " inputs");
      l.scan_inputs = static_cast<size_t>(m);
      l.carried = nin - l.first_carried - l.scan_inputs - l.captures;
      if (nout < l.carried)
        return invalid_model(count_error("outputs", nout, l.carried) + " or more");
      l.scan_outputs = nout - l.carried;
      if (b.inputs.size() != nin - l.first_carried)
        return invalid_model("body: " +
                             count_error("inputs", b.inputs.size(), nin - l.first_carried));
      if (b.outputs.size() != nout)
        return invalid_model("body: " + count_error("outputs", b.outputs.size(), nout));
      return l;
    }
    default:
      return internal_error(std::string(op_name(n.op)) + " is not a control-flow op");
  }
}

}  // namespace amp::graph
