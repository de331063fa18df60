#include "tests/test_util/op_sweep.h"

#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "graph/onnx/onnx_importer.h"
#include "graph/ops/op_types.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/elementwise_functors.h"
#include "tests/test_util/graph_runner.h"

namespace amp::test {
namespace {

constexpr DType kSwept[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI64,
                            DType::kI32, DType::kI16, DType::kI8,  DType::kU8,   DType::kBool};

// Integer sweeps scale the fp32 data by this before truncating it, so that node tests'
// values (mostly within [-2, 2]) do not collapse onto a few integers.
constexpr double kIntegerScale = 4.0;

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

// `t` with every element times `scale` converted to `to`: to a float as Cast does
// (kernels' ew::cast_value); to bool as != 0; to an integer truncated and then wrapped modulo
// 2^bits through int64, as the integer kernels' arithmetic wraps (Cast would saturate), with
// an infinity saturating, for bool too (a float reduction's identity is the integer one's
// extreme). NaN has no integer value: an error.
Result<graph::TensorData> convert_tensor(const graph::TensorData& t, DType to, double scale = 1.0) {
  const std::vector<double> v = t.to_f64_vector();
  graph::TensorData out;
  AMP_RETURN_IF_ERROR(kernels::visit_dtype(to, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    std::vector<T> x(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const double s = v[i] * scale;
      if constexpr (std::is_integral_v<T>) {
        const double w = std::trunc(s);
        if (std::isnan(w) || (std::isfinite(w) && std::fabs(w) >= 9.2e18))
          return invalid_input("element " + std::to_string(i) + " (" + std::to_string(s) +
                               ") has no " + std::string(dtype_name(to)) + " value");
        x[i] = std::isinf(w)
                   ? (w > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest())
                   : static_cast<T>(static_cast<int64_t>(w));  // modular (C++20)
      } else if constexpr (std::is_same_v<T, ew::Bool>) {
        x[i] = ew::Bool{static_cast<uint8_t>(std::isinf(s) ? s > 0 : s != 0)};
      } else {
        x[i] = ew::cast_value<T>(s);
      }
    }
    out = graph::TensorData::from_vector<T>(to, t.dims(), x);
    return Status::ok();
  }));
  return out;
}

// Whether every fp32 element of the case's data is finite (integer sweeps need it).
bool finite_fp32_data(const LoadedCase& lc) {
  auto finite = [](const graph::TensorData& t) {
    if (t.dtype() != DType::kF32) return true;
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isfinite(t.f64_at(i))) return false;
    return true;
  };
  for (const graph::TensorData& t : lc.inputs)
    if (!finite(t)) return false;
  for (const graph::Value& v : lc.graph.values)
    if (v.constant && !finite(*v.constant)) return false;
  return true;
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

// Runs the case in `dtype` on the backend and the reference on the CPU; "" when they agree,
// else why not (an error converting the case's data is returned as a Status).
Result<std::string> run_case(const Result<LoadedCase>& lc, DType dtype, kernels::Backend backend,
                             const GraphRunner& run) {
  if (!lc.is_ok()) return lc.status().to_string();
  graph::Graph low = lc->graph;
  graph::Graph ref = lc->graph;
  const std::set<graph::ValueId> kept = kept_values(low);
  auto converts = [&](graph::ValueId id) {
    return low.value(id).dtype == DType::kF32 && !kept.count(id);
  };
  // Integer results are checked exactly, against an fp64 reference (exact below 2^53) where
  // the CPU has one (not MaxPool: fp32, exact below 2^24, which its values stay under).
  const double scale = is_float(dtype) ? 1.0 : kIntegerScale;
  bool has_f64_reference = !lc->graph.nodes.empty();
  for (const graph::Node& n : lc->graph.nodes)
    has_f64_reference =
        has_f64_reference && cpu_registry().has(n.op, kernels::Backend::kCpu, DType::kF64);
  const DType ref_dtype = !is_float(dtype) && has_f64_reference ? DType::kF64 : DType::kF32;
  for (graph::ValueId id = 0; id < static_cast<graph::ValueId>(low.values.size()); ++id) {
    graph::Value& v = low.value(id);
    if (!v.constant || !converts(id)) continue;
    AMP_ASSIGN_OR_RETURN(graph::TensorData c, convert_tensor(*v.constant, dtype, scale));
    AMP_ASSIGN_OR_RETURN(ref.value(id).constant, convert_tensor(c, ref_dtype));
    ref.value(id).dtype = ref_dtype;
    v.constant = std::move(c);
    v.dtype = dtype;
  }
  std::map<std::string, graph::TensorData> low_in, ref_in;
  for (size_t i = 0; i < low.inputs.size(); ++i) {
    const graph::ValueId id = low.inputs[i];
    graph::Value& v = low.value(id);
    graph::TensorData x = lc->inputs[i];
    if (converts(id)) {
      AMP_ASSIGN_OR_RETURN(x, convert_tensor(x, dtype, scale));
      AMP_ASSIGN_OR_RETURN(ref_in[v.name], convert_tensor(x, ref_dtype));
      v.dtype = dtype;
      ref.value(id).dtype = ref_dtype;
    } else {
      ref_in[v.name] = x;
    }
    low_in[v.name] = std::move(x);
  }
  auto got = run(std::move(low), low_in);
  if (!got.is_ok()) return got.status().to_string();
  auto want = run_graph(std::move(ref), ref_in, kernels::Backend::kCpu, 1);
  if (!want.is_ok()) return "reference: " + want.status().to_string();
  if (got->size() != want->size()) return std::string("output count differs from the reference's");
  const Tolerance tol = tolerance_for(backend, dtype);
  for (size_t k = 0; k < got->size(); ++k) {
    // Floats compare in fp32; an integer output against the reference converted to its
    // dtype (exactly).
    const DType common = is_float((*got)[k].dtype()) ? DType::kF32 : (*got)[k].dtype();
    auto to_common = [common](const graph::TensorData& t) -> Result<graph::TensorData> {
      if (t.dtype() == common) return t;
      return convert_tensor(t, common);
    };
    Result<graph::TensorData> w = to_common((*want)[k]);
    if (!w.is_ok())
      return "output " + std::to_string(k) + " of the reference: " + w.status().message();
    AMP_ASSIGN_OR_RETURN(graph::TensorData g, to_common((*got)[k]));
    const std::string why = compare_tensors(*w, g, tol.rtol, tol.atol);
    if (!why.empty()) return "output " + std::to_string(k) + ": " + why;
  }
  return std::string();
}

}  // namespace

std::string sweep_mode_name(kernels::Backend backend, DType dtype) {
  return std::string("sweep-") + (backend == kernels::Backend::kCuda ? "cuda-" : "cpu-") +
         std::string(dtype_name(dtype));
}

std::string SweepReport::summary() const {
  std::ostringstream os;
  for (size_t i = 0; i < modes.size(); ++i)
    os << mode_names[i] << ": " << modes[i].summary() << "\n";
  os << not_swept.size() << " (op, dtype) pairs no fp32 node test reaches:";
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
    by_op[*graph::onnx_op_type(c.primary_op)].push_back(std::move(c));
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
      // NaN and infinities have no integer value: such cases say nothing about integers.
      for (const NodeTestCase& c : it->second) {
        const Result<LoadedCase>& lc = loaded.at(c.name);
        if (is_float(dtype) || !lc.is_ok() || finite_fp32_data(*lc)) cases.push_back(c);
      }
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
      // An exception is a bug of its own (the runtime reports errors as Status), named
      // with its case rather than ending the whole sweep.
      try {
        Result<std::string> why = run_case(loaded.at(c.name), dtype, backend, run);
        return why.is_ok() ? *why : why.status().to_string();
      } catch (const std::exception& e) {
        return std::string("threw ") + e.what();
      }
    });
    for (const std::string& p : r.problems) report.problems.push_back(mode + ": " + p);
    report.mode_names.push_back(mode);
    report.modes.push_back(std::move(r));
  }
  return report;
}

}  // namespace amp::test
