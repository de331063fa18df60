#include "test_util/node_tests.h"

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include "onnx/onnx_importer.h"
#include "onnx/onnx_tensor.h"
#include "passes/pipelines.h"
#include "test_util/graph_runner.h"
#include "test_util/shared_data.h"

namespace amp::test {
namespace fs = std::filesystem;

namespace {

bool supported_type(const nlohmann::json& t) {
  static const std::set<std::string> kTypes = {"FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "INT64",
                                               "INT32", "INT16",   "INT8",     "UINT8",  "BOOL"};
  return t.is_string() && kTypes.count(t.get<std::string>()) != 0;
}

}  // namespace

std::vector<NodeTestCase> select_node_tests(const std::set<std::string>& primary_ops) {
  std::vector<NodeTestCase> out;
  const fs::path shared = shared_dir();
  if (shared.empty()) return out;
  std::ifstream in(shared / "onnx-node-tests-index.json");
  nlohmann::json index = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!index.is_array()) return out;
  for (const auto& rec : index) {
    // 32 index records have "primary_op": null (multi-op cases): skip them.
    if (!rec.contains("primary_op") || !rec["primary_op"].is_string()) continue;
    const std::string primary = rec["primary_op"].get<std::string>();
    if (!graph::op_from_name(primary)) continue;
    if (!primary_ops.empty() && !primary_ops.count(primary)) continue;
    bool ok = true;
    for (const auto& [op, count] : rec.at("ops").items())
      ok = ok && graph::op_from_name(op).has_value();
    bool all_float = true;
    for (const char* key : {"input_types", "output_types"}) {
      for (const auto& t : rec.at(key)) {
        ok = ok && supported_type(t);
        all_float = all_float && t.is_string() && t.get<std::string>() == "FLOAT";
      }
    }
    if (!ok) continue;
    const std::string name = rec.at("case").get<std::string>();
    out.push_back({name, shared / "onnx-node-tests" / name, primary, all_float});
  }
  return out;
}

Result<graph::TensorData> load_tensor_pb(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return not_found("cannot open " + path.string());
  std::stringstream ss;
  ss << f.rdbuf();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(ss.str())) return invalid_model("bad TensorProto " + path.string());
  return graph::onnx_import::decode_tensor(proto, path.filename().string(), {});
}

Result<std::vector<graph::TensorData>> load_case_tensors(const fs::path& case_dir,
                                                         const std::string& prefix) {
  std::vector<graph::TensorData> out;
  for (int i = 0;; ++i) {
    fs::path p = case_dir / "test_data_set_0" / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    AMP_ASSIGN_OR_RETURN(graph::TensorData t, load_tensor_pb(p));
    out.push_back(std::move(t));
  }
  return out;
}

std::string compare_tensors(const graph::TensorData& e, const graph::TensorData& a, double rtol,
                            double atol) {
  if (e.dtype() != a.dtype())
    return "dtype " + std::string(dtype_name(a.dtype())) + ", expected " +
           std::string(dtype_name(e.dtype()));
  if (e.dims() != a.dims())
    return "shape " + graph::Shape::from_static(a.dims()).to_string() + ", expected " +
           graph::Shape::from_static(e.dims()).to_string();
  const bool exact = !is_float(e.dtype());
  const std::vector<double> ev = e.to_f64_vector();
  const std::vector<double> av = a.to_f64_vector();
  for (size_t i = 0; i < ev.size(); ++i) {
    const double x = ev[i], y = av[i];
    bool ok;
    if (std::isnan(x) || std::isnan(y))
      ok = std::isnan(x) && std::isnan(y);
    else if (std::isinf(x) || std::isinf(y))
      ok = x == y;
    else if (exact)
      ok = x == y;
    else
      ok = std::fabs(x - y) <= atol + rtol * std::fabs(x);
    if (!ok) {
      std::ostringstream os;
      os << "element " << i << ": got " << y << ", expected " << x;
      return os.str();
    }
  }
  return "";
}

std::string run_node_test_cpu(const NodeTestCase& c, double rtol, double atol) {
  auto g = graph::import_onnx_file((c.dir / "model.onnx").string());
  if (!g.is_ok()) return "import: " + g.status().to_string();
  auto inputs = load_case_tensors(c.dir, "input");
  if (!inputs.is_ok()) return inputs.status().to_string();
  auto expected = load_case_tensors(c.dir, "output");
  if (!expected.is_ok()) return expected.status().to_string();
  // Inputs are matched to graph inputs in order (the node-test convention).
  std::map<std::string, graph::TensorData> named;
  if (inputs->size() < g->inputs.size()) return "fewer input .pb files than graph inputs";
  for (size_t i = 0; i < g->inputs.size(); ++i) named[g->value(g->inputs[i]).name] = (*inputs)[i];
  auto outs = run_graph(std::move(*g), named, kernels::Backend::kCpu, 1);
  if (!outs.is_ok()) return outs.status().to_string();
  if (outs->size() != expected->size()) return "output count differs";
  for (size_t i = 0; i < outs->size(); ++i) {
    std::string why = compare_tensors((*expected)[i], (*outs)[i], rtol, atol);
    if (!why.empty()) return "output " + std::to_string(i) + ": " + why;
  }
  return "";
}

}  // namespace amp::test
