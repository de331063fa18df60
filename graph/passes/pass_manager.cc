#include "graph/passes/pass_manager.h"

#include <chrono>

#include "graph/ir/verifier.h"
#include "graph/ops/shape_inference.h"

namespace amp::graph {

Status PassManager::run(Graph& g) {
  records_.clear();
  for (const auto& pass : passes_) {
    const std::string context = "pass '" + std::string(pass->name()) + "'";
    const auto start = std::chrono::steady_clock::now();
    Result<bool> changed = pass->run(g);
    if (!changed.is_ok()) return changed.status().with_context(context);
    const auto stop = std::chrono::steady_clock::now();
    records_.push_back({std::string(pass->name()), *changed,
                        std::chrono::duration<double, std::milli>(stop - start).count()});
    if (verify_after_each_)
      AMP_RETURN_IF_ERROR(
          verify_graph(g).with_context(context + " left an invalid graph (a bug in the pass)"));
    if (infer_after_each_ && *changed)
      AMP_RETURN_IF_ERROR(infer_shapes(g).with_context(context + " left inconsistent shapes"));
  }
  return Status::ok();
}

}  // namespace amp::graph
