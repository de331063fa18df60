// PassManager: runs passes in order and verifies the graph after each one.
//
// After every pass: verify_graph (structure: ids, single definition, topological order),
// unless `verify_after_each` is cleared (a caller that verifies once after the pipeline),
// and, when `infer_after_each` is set, shape inference over the whole graph (so a pass
// that leaves inconsistent shapes fails at once, naming the pass). Per-pass timing and
// change flags are kept for reports (amprun prints load time split by phase).
//
//   PassManager pm;
//   pm.add(std::make_unique<ConstantFolding>());
//   pm.add(std::make_unique<DeadCodeElimination>());
//   AMP_RETURN_IF_ERROR(pm.run(graph));
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/passes/pass.h"

namespace amp::graph {

struct PassRecord {
  std::string name;
  bool changed = false;
  double milliseconds = 0;
};

class PassManager {
 public:
  void add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  void set_infer_after_each(bool on) { infer_after_each_ = on; }
  void set_verify_after_each(bool on) { verify_after_each_ = on; }

  // Errors are prefixed with the pass name ("pass 'constant-folding': ...").
  Status run(Graph& g);
  const std::vector<PassRecord>& records() const { return records_; }

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassRecord> records_;
  bool infer_after_each_ = true;
  bool verify_after_each_ = true;
};

}  // namespace amp::graph
