#include "tests/test_util/graph_runner.h"

#include "graph/onnx/onnx_importer.h"
#include "tests/test_util/node_tests.h"

#include <cstring>
#include <memory>

#include "graph/ops/data_dependent.h"
#include "graph/ops/shape_inference.h"
#include "graph/ops/shape_inputs.h"
#include "graph/passes/constant_folding.h"
#include "graph/passes/dead_code_elimination.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_evaluator.h"

namespace amp::test {

const kernels::KernelRegistry& cpu_registry() {
  static const kernels::KernelRegistry reg = [] {
    kernels::KernelRegistry r;
    kernels::register_cpu_kernels(r);
    return r;
  }();
  return reg;
}

Status bind_inputs_and_fold(graph::Graph& g,
                            const std::map<std::string, graph::TensorData>& inputs) {
  using namespace graph;
  for (ValueId id : g.inputs) {
    Value& v = g.value(id);
    auto it = inputs.find(v.name);
    if (it == inputs.end()) return invalid_input("missing input '" + v.name + "'");
    if (it->second.dtype() != v.dtype)
      return invalid_input("input '" + v.name + "' has dtype " +
                           std::string(dtype_name(it->second.dtype())) + ", expected " +
                           std::string(dtype_name(v.dtype)));
    v.shape = Shape::from_static(it->second.dims());
  }
  // Inputs whose values decide shapes (e.g. Reduce axes fed at run time) are bound as
  // constants, and shape arithmetic over the now-static shapes is folded, as the Engine does.
  std::vector<std::optional<TensorData>> values(g.inputs.size());
  for (size_t k : shape_determining_inputs(g)) values[k] = inputs.at(g.value(g.inputs[k]).name);
  AMP_RETURN_IF_ERROR(bind_shape_input_values(g, values));
  AMP_RETURN_IF_ERROR(infer_shapes(g));
  ConstantFolding fold(std::make_shared<kernels::KernelEvaluator>(cpu_registry()));
  AMP_RETURN_IF_ERROR(fold.run(g).status());
  DeadCodeElimination dce;
  return dce.run(g).status();
}

Result<std::optional<graph::DataDependentDim>> size_data_dependent_output(graph::Graph& g,
                                                                          graph::NodeId i) {
  using namespace graph;
  // Re-inferred first: a data-dependent node before it may have sized one of its inputs.
  AMP_RETURN_IF_ERROR(infer_node(g, i));
  const Node& n = g.nodes[i];
  std::optional<DataDependentDim> dynamic;
  if (has_trait(n.op, kDataDependent) && n.outputs[0] != kNoValue &&
      !g.value(n.outputs[0]).shape->is_static()) {
    AMP_ASSIGN_OR_RETURN(dynamic, data_dependent_dim(g, n));
    g.value(n.outputs[0]).shape->dims[dynamic->axis] = Dim(dynamic->bound);
  }
  for (ValueId id : n.outputs) {
    const Value* v = id == kNoValue ? nullptr : &g.value(id);
    if (v && (!v->shape || !v->shape->is_static()))
      return internal_error("node '" + n.name + "' (" + std::string(op_name(n.op)) + "): output '" +
                            v->name + "' has no static shape");
  }
  return dynamic;
}

Status trim_data_dependent_output(graph::Graph& g, const graph::Node& n,
                                  const graph::DataDependentDim& dynamic, int64_t size) {
  if (size < 0 || size > dynamic.bound)
    return internal_error("node '" + n.name + "': reported size " + std::to_string(size));
  g.value(n.outputs[0]).shape->dims[dynamic.axis] = graph::Dim(size);
  return Status::ok();
}

Result<std::vector<graph::TensorData>> run_graph(
    graph::Graph g, const std::map<std::string, graph::TensorData>& inputs,
    kernels::Backend backend, int threads) {
  using namespace graph;
  if (backend != kernels::Backend::kCpu) return unsupported("run_graph: only the CPU backend");
  const kernels::KernelRegistry& reg = cpu_registry();
  AMP_RETURN_IF_ERROR(bind_inputs_and_fold(g, inputs));

  // Buffers per value: constants point at their data, others own storage.
  std::vector<std::vector<uint8_t>> storage(g.values.size());
  std::vector<void*> ptr(g.values.size(), nullptr);
  for (ValueId id : g.inputs) {
    const TensorData& t = inputs.at(g.value(id).name);
    storage[id].assign(t.bytes(), t.bytes() + t.byte_size());
    ptr[id] = storage[id].data();
  }
  for (size_t i = 0; i < g.values.size(); ++i)
    if (g.values[i].is_constant()) ptr[i] = const_cast<uint8_t*>(g.values[i].constant->bytes());

  for (size_t i = 0; i < g.nodes.size(); ++i) {
    AMP_ASSIGN_OR_RETURN(const std::optional<DataDependentDim> dynamic,
                         size_data_dependent_output(g, static_cast<NodeId>(i)));
    const Node& n = g.nodes[i];
    const std::string ctx = "node '" + n.name + "' (" + std::string(op_name(n.op)) + ")";
    const DType kd = kernels::kernel_dtype(g, n);
    const kernels::KernelDef* def = reg.find(n.op, backend, kd);
    if (!def)
      return unsupported(ctx + ": no " + std::string(kernels::backend_name(backend)) +
                         " kernel for dtype " + std::string(dtype_name(kd)));
    kernels::KernelConfig cfg;
    cfg.node = &n;
    cfg.num_threads = threads;
    std::vector<const void*> in_ptrs;
    std::vector<void*> out_ptrs;
    for (ValueId id : n.inputs) {
      cfg.inputs.push_back(kernels::describe_value(g, id));
      in_ptrs.push_back(id == kNoValue ? nullptr : ptr[id]);
    }
    for (ValueId id : n.outputs) {
      cfg.outputs.push_back(kernels::describe_value(g, id));
      if (id == kNoValue) {
        out_ptrs.push_back(nullptr);
        continue;
      }
      storage[id].assign(cfg.outputs.back().bytes(), 0xFF);  // poison
      ptr[id] = storage[id].data();
      out_ptrs.push_back(ptr[id]);
    }
    std::unique_ptr<kernels::Kernel> k = def->create();
    AMP_RETURN_IF_ERROR(k->prepare(cfg).with_context(ctx));
    std::vector<uint8_t> ws(k->workspace_bytes() + 64);
    kernels::KernelArgs args;
    args.inputs = in_ptrs.data();
    args.outputs = out_ptrs.data();
    args.workspace = ws.data();
    args.num_threads = threads;
    int64_t dynamic_size = -1;
    if (dynamic) args.dynamic_size = &dynamic_size;
    AMP_RETURN_IF_ERROR(k->run(args).with_context(ctx));
    if (dynamic) {
      AMP_RETURN_IF_ERROR(trim_data_dependent_output(g, n, *dynamic, dynamic_size));
      const Shape& shape = *g.value(n.outputs[0]).shape;
      storage[n.outputs[0]].resize(static_cast<size_t>(*shape.numel()) *
                                   dtype_size(g.value(n.outputs[0]).dtype));
      ptr[n.outputs[0]] = storage[n.outputs[0]].data();
    }
  }

  std::vector<TensorData> outs;
  for (ValueId id : g.outputs) {
    const Value& v = g.value(id);
    if (v.is_constant()) {
      outs.push_back(*v.constant);
      continue;
    }
    AMP_ASSIGN_OR_RETURN(TensorData t,
                         TensorData::from_bytes(v.dtype, v.shape->static_dims(), storage[id]));
    outs.push_back(std::move(t));
  }
  return outs;
}

std::string run_node_test_cpu(const NodeTestCase& c, double rtol, double atol) {
  auto lc = load_case(c);
  if (!lc.is_ok()) return lc.status().to_string();
  std::map<std::string, graph::TensorData> named;
  for (size_t i = 0; i < lc->graph.inputs.size(); ++i)
    named[lc->graph.value(lc->graph.inputs[i]).name] = lc->inputs[i];
  auto outs = run_graph(std::move(lc->graph), named, kernels::Backend::kCpu, 1);
  if (!outs.is_ok()) return outs.status().to_string();
  return compare_outputs(lc->expected, *outs, rtol, atol);
}

}  // namespace amp::test
