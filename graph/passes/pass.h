// A graph pass: a named transformation of a Graph, run by the PassManager, which verifies
// the graph after every pass (ONNX Runtime's GraphTransformer::Apply does the same), so a
// broken pass is caught at the pass that broke it, not three passes later.
//
//   class MyPass : public Pass {
//    public:
//     std::string_view name() const override { return "my-pass"; }
//     Result<bool> run(Graph& g) override;  // true when the graph changed
//   };
#pragma once

#include <string_view>

#include "graph/ir/graph.h"
#include "runtime/common/status.h"

namespace amp::graph {

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  // Transforms `g` in place. Returns whether anything changed. On error the graph may be
  // partially transformed and must be discarded.
  virtual Result<bool> run(Graph& g) = 0;
};

}  // namespace amp::graph
