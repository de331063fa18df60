// EliminateIdentity: an Identity node is dropped and its readers read its input instead.
//
//   y = Identity(x); z = Op(y)        becomes        z = Op(x)
//
// Why: paddle2onnx 2.x writes an Identity after nearly every op (PP-OCRv5's detector has 192,
// PP-OCRv6's tiny recognizer 58). Each one is a node to schedule, and the layout plan
// (runtime/layout_plan.h) knows no Identity, so every convolution of those models wrote
// plain NCHW and read it back: PP-OCRv6 tiny's recognizer ran every 1x1 convolution with a
// reorder in and out, 1.43x ONNX Runtime's time (AMD EPYC Zen 4, one thread).
//
// Algorithm, one scan in topological order: an Identity whose output is no graph output
// aliases its output to its input (through earlier aliases: chains collapse); one whose
// output is a graph output, and whose input is made by a node of this graph and is not
// itself a graph output, has that node write the graph output directly, its input's readers
// redirected to it. Identities left: those whose input is a graph input or a constant (a
// copy is the model's meaning) or that name one tensor as two graph outputs. Node inputs
// are rewritten through the aliases once at the end; bodies of If/Loop/Scan are graphs of
// their own (their outer reads are explicit captured inputs), so no alias crosses into one.
#pragma once

#include "graph/passes/pass.h"

namespace amp::graph {

class EliminateIdentity : public Pass {
 public:
  std::string_view name() const override { return "eliminate-identity"; }
  Result<bool> run(Graph& g) override;
};

}  // namespace amp::graph
