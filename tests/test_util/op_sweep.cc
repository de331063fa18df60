#include "tests/test_util/op_sweep.h"

#include <set>
#include <sstream>
#include <utility>

#include "graph/ops/op_types.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/elementwise_functors.h"
#include "tests/test_util/graph_runner.h"

namespace amp::test {
namespace {

constexpr DType kSwept[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16};

struct Tolerance {
  double rtol, atol;
};

// f16/bf16: the AMP node-test modes' tolerances (which also absorb the inputs' rounding,
// absent here); f64 against the fp32 reference: fp32's own rounding; f32 on CUDA: the
// device's summation order and ulp-level expf/erff differences.
Tolerance tolerance_for(kernels::Backend backend, DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return {1e-2, 2e-3};
    case DType::kBF16:
      return {5e-2, 2e-2};
    case DType::kF64:
      return {1e-5, 1e-6};
    default:
      return backend == kernels::Backend::kCuda ? Tolerance{1e-4, 1e-4} : Tolerance{1e-4, 1e-5};
  }
}

// `t` with every element converted to `to` as Cast does (kernels' ew::cast_value).
graph::TensorData cast_tensor(const graph::TensorData& t, DType to) {
  const std::vector<double> v = t.to_f64_vector();
  graph::TensorData out;
  (void)kernels::visit_dtype(to, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    std::vector<T> x(v.size());
    for (size_t i = 0; i < v.size(); ++i) x[i] = ew::cast_value<T>(v[i]);
    out = graph::TensorData::from_vector<T>(to, t.dims(), x);
    return Status::ok();
  });
  return out;
}

// Values the sweep leaves in fp32: those an op keeps in its own dtype (Resize's scales).
std::set<graph::ValueId> kept_values(const graph::Graph& g) {
  std::set<graph::ValueId> kept;
  for (const graph::Node& n : g.nodes)
    for (size_t i = 0; i < n.inputs.size(); ++i)
      if (graph::keeps_own_dtype(n.op, i)) kept.insert(n.inputs[i]);
  return kept;
}

// Whether the case (loaded as `lc`) reads fp32 data and no other float dtype: a float_io case,
// or a one-node case whose float inputs are fp32.
bool has_fp32_data(const NodeTestCase& c, const Result<LoadedCase>& lc) {
  if (c.float_io) return true;
  if (!lc.is_ok() || lc->graph.nodes.size() != 1) return false;
  bool f32 = false;
  for (const graph::ValueId id : lc->graph.nodes[0].inputs) {
    if (id == graph::kNoValue) continue;
    const DType t = lc->graph.value(id).dtype;
    if (is_float(t) && t != DType::kF32) return false;
    f32 = f32 || t == DType::kF32;
  }
  return f32;
}

// Runs the case in `dtype` on the backend and the reference on the CPU; "" when they agree.
std::string sweep_case(const Result<LoadedCase>& lc, DType dtype, kernels::Backend backend,
                       const GraphRunner& run) {
  if (!lc.is_ok()) return lc.status().to_string();
  graph::Graph low = lc->graph;
  graph::Graph ref = lc->graph;
  const std::set<graph::ValueId> kept = kept_values(low);
  auto converts = [&](graph::ValueId id) {
    return low.value(id).dtype == DType::kF32 && !kept.count(id);
  };
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(low.values.size()); ++id) {
    graph::Value& v = low.value(id);
    if (!v.constant || !converts(id)) continue;
    v.constant = cast_tensor(*v.constant, dtype);
    v.dtype = dtype;
    ref.value(id).constant = cast_tensor(*v.constant, DType::kF32);
  }
  std::map<std::string, graph::TensorData> low_in, ref_in;
  for (size_t i = 0; i < low.inputs.size(); ++i) {
    const graph::ValueId id = low.inputs[i];
    graph::Value& v = low.value(id);
    graph::TensorData x = lc->inputs[i];
    if (converts(id)) {
      x = cast_tensor(x, dtype);
      v.dtype = dtype;
      ref_in[v.name] = cast_tensor(x, DType::kF32);
    } else {
      ref_in[v.name] = x;
    }
    low_in[v.name] = std::move(x);
  }
  auto got = run(std::move(low), low_in);
  if (!got.is_ok()) return got.status().to_string();
  auto want = run_graph(std::move(ref), ref_in, kernels::Backend::kCpu, 1);
  if (!want.is_ok()) return "reference: " + want.status().to_string();
  if (got->size() != want->size()) return "output count differs from the reference's";
  const Tolerance tol = tolerance_for(backend, dtype);
  auto widen = [](const graph::TensorData& t) {
    return is_float(t.dtype()) ? cast_tensor(t, DType::kF32) : t;
  };
  for (size_t k = 0; k < got->size(); ++k) {
    const std::string why =
        compare_tensors(widen((*want)[k]), widen((*got)[k]), tol.rtol, tol.atol);
    if (!why.empty()) return "output " + std::to_string(k) + ": " + why;
  }
  return "";
}

}  // namespace

std::string sweep_mode_name(kernels::Backend backend, DType dtype) {
  return std::string("sweep-") + (backend == kernels::Backend::kCuda ? "cuda-" : "cpu-") +
         std::string(dtype_name(dtype));
}

std::string SweepReport::summary() const {
  std::ostringstream os;
  for (const ConformanceReport& m : modes) os << m.summary() << "\n";
  os << not_swept.size() << " (op, dtype) pairs without a float node test:";
  for (const std::string& s : not_swept) os << " " << s;
  return os.str();
}

SweepReport sweep_registry(const kernels::KernelRegistry& registry, kernels::Backend backend,
                           const GraphRunner& run) {
  SweepReport report;
  // Single-node cases with fp32 data by op (outputs of any dtype: ArgMax, comparisons,
  // Cast); an expanded (multi-node) case tests other ops too. Each is loaded once, for every
  // dtype it runs in.
  std::map<graph::OpType, std::vector<NodeTestCase>> by_op;
  std::map<std::string, Result<LoadedCase>> loaded;
  for (NodeTestCase& c : select_node_tests()) {
    if (c.name.find("_expanded") != std::string::npos) continue;
    Result<LoadedCase> lc = load_case(c);
    if (!has_fp32_data(c, lc)) continue;
    loaded.emplace(c.name, std::move(lc));
    by_op[*graph::op_from_name(c.primary_op)].push_back(std::move(c));
  }
  Result<std::vector<ExpectedFailure>> listed = load_expected_failures();
  if (!listed.is_ok()) {
    report.problems.push_back(listed.status().to_string());
    return report;
  }
  for (DType dtype : kSwept) {
    // The CPU's fp32 kernels are the reference itself (and node-tested in cpu-fp32).
    if (backend == kernels::Backend::kCpu && dtype == DType::kF32) continue;
    const std::string mode = sweep_mode_name(backend, dtype);
    std::vector<NodeTestCase> cases;
    for (int k = 0; k < graph::kOpCount; ++k) {
      const auto op = static_cast<graph::OpType>(k);
      if (!registry.has(op, backend, dtype)) continue;
      const auto it = by_op.find(op);
      if (it == by_op.end()) {
        report.not_swept.push_back(std::string(graph::op_name(op)) + ":" +
                                   std::string(dtype_name(dtype)));
        continue;
      }
      cases.insert(cases.end(), it->second.begin(), it->second.end());
    }
    // Entries for every mode ("*") concern this sweep only where it runs their case.
    std::set<std::string> names;
    for (const NodeTestCase& c : cases) names.insert(c.name);
    std::vector<ExpectedFailure> expected;
    for (const ExpectedFailure& f : *listed) {
      bool named = false, every = false;
      for (const std::string& m : f.modes) {
        named = named || m == mode;
        every = every || m == "*";
      }
      if (named || (every && names.count(f.case_name))) expected.push_back(f);
    }
    ConformanceReport r = check_cases(mode, cases, expected, [&](const NodeTestCase& c) {
      return sweep_case(loaded.at(c.name), dtype, backend, run);
    });
    for (const std::string& p : r.problems) report.problems.push_back(mode + ": " + p);
    report.modes.push_back(std::move(r));
  }
  return report;
}

}  // namespace amp::test
