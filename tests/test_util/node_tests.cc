#include "tests/test_util/node_tests.h"

#include <onnx/onnx_pb.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "graph/onnx/onnx_importer.h"
#include "graph/onnx/onnx_tensor.h"
#include "graph/passes/pipelines.h"
#include "tests/test_util/shared_data.h"

namespace amp::test {
namespace fs = std::filesystem;

namespace {

bool supported_type(const nlohmann::json& t) {
  static const std::set<std::string> kTypes = {"FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "INT64",
                                               "INT32", "INT16",   "INT8",     "UINT8",  "BOOL"};
  return t.is_string() && kTypes.count(t.get<std::string>()) != 0;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

bool listed_for(const ExpectedFailure& f, const std::string& mode) {
  for (const std::string& m : f.modes)
    if (m == "*" || m == mode) return true;
  return false;
}

std::vector<NodeTestCase> select_node_tests(const std::set<std::string>& primary_ops) {
  std::vector<NodeTestCase> out;
  const fs::path shared = shared_dir();
  if (shared.empty()) return out;
  std::ifstream in(shared / "onnx-node-tests-index.json");
  nlohmann::json index = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!index.is_array()) return out;
  for (const auto& rec : index) {
    // 32 index records have "primary_op": null: the control-flow cases (test_if, test_loop11,
    // test_scan*) go by their If/Loop/Scan; the other multi-op cases (FlexAttention expansions,
    // sequences) are not node tests of an op of ours and are skipped.
    std::string primary;
    if (rec.contains("primary_op") && rec["primary_op"].is_string()) {
      primary = rec["primary_op"].get<std::string>();
    } else {
      for (const char* op : {"If", "Loop", "Scan"})
        if (primary.empty() && rec.at("ops").contains(op)) primary = op;
    }
    // An op's "_expanded" case is its ONNX function body: it runs on the ops it expands to,
    // so it is ours when they all are (checked below), whatever the primary op.
    const bool expanded =
        rec.contains("expanded") && rec["expanded"].is_boolean() && rec["expanded"].get<bool>();
    if (primary.empty() || (!graph::onnx_op_type(primary) && !expanded)) continue;
    if (!primary_ops.empty() && !primary_ops.count(primary)) continue;
    bool ok = true;
    for (const auto& [op, count] : rec.at("ops").items())
      ok = ok && graph::onnx_op_type(op).has_value();
    bool all_float = true;
    for (const char* key : {"input_types", "output_types"}) {
      for (const auto& t : rec.at(key)) {
        ok = ok && supported_type(t);
        const std::string name = t.is_string() ? t.get<std::string>() : "";
        const bool other_float = name == "DOUBLE" || name == "FLOAT16" || name == "BFLOAT16";
        const bool is_output = std::string(key) == "output_types";
        all_float = all_float && name != "" && (is_output ? name == "FLOAT" : !other_float);
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
  // A tensor stored in fp16 or bf16 cannot agree more closely than its own spacing: two units
  // in the last place (fp16 2^-9, bf16 2^-6 relative) whatever the caller asked, since the
  // expected values carry the reference's own rounding order.
  if (e.dtype() == DType::kF16) rtol = std::max(rtol, 0x1p-9);
  if (e.dtype() == DType::kBF16) rtol = std::max(rtol, 0x1p-6);
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

Result<LoadedCase> load_case(const NodeTestCase& c) {
  LoadedCase lc;
  AMP_ASSIGN_OR_RETURN(lc.graph, graph::import_onnx_file((c.dir / "model.onnx").string()));
  AMP_ASSIGN_OR_RETURN(lc.inputs, load_case_tensors(c.dir, "input"));
  AMP_ASSIGN_OR_RETURN(lc.expected, load_case_tensors(c.dir, "output"));
  if (lc.inputs.size() < lc.graph.inputs.size())
    return invalid_argument("fewer input .pb files than graph inputs");
  return lc;
}

std::string compare_outputs(const std::vector<graph::TensorData>& expected,
                            const std::vector<graph::TensorData>& actual, double rtol,
                            double atol) {
  if (actual.size() != expected.size()) return "output count differs";
  for (size_t i = 0; i < actual.size(); ++i) {
    std::string why = compare_tensors(expected[i], actual[i], rtol, atol);
    if (!why.empty()) return "output " + std::to_string(i) + ": " + why;
  }
  return "";
}

std::string compare_f32_with_f64(const std::vector<graph::TensorData>& f64,
                                 const std::vector<graph::TensorData>& f32, double rtol,
                                 double atol) {
  std::vector<graph::TensorData> rounded;
  for (const graph::TensorData& t : f64) {
    const std::vector<double> v = t.to_f64_vector();
    rounded.push_back(
        graph::TensorData::from_vector<float>(DType::kF32, t.dims(), {v.begin(), v.end()}));
  }
  return compare_outputs(rounded, f32, rtol, atol);
}

Result<std::vector<ExpectedFailure>> load_expected_failures(const std::string& path) {
  // $AMP_TEST_DATA_DIR wins over the configure-time path (tools/gpu/check.sh runs the
  // binaries on another machine).
  const char* env = std::getenv("AMP_TEST_DATA_DIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : AMP_TEST_DATA_DIR;
  const std::string file = path.empty() ? dir + "/node_tests_expected_failures.txt" : path;
  std::ifstream in(file);
  if (!in) return not_found("cannot open " + file);
  std::set<std::string> known = {"*"};
  for (const std::string& m : known_mode_names()) known.insert(m);
  std::vector<ExpectedFailure> out;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const std::string where = file + ":" + std::to_string(lineno);
    const size_t a = line.find('|');
    const size_t b = a == std::string::npos ? a : line.find('|', a + 1);
    if (b == std::string::npos)
      return invalid_argument(where + ": expected 'case | modes | reason'");
    ExpectedFailure f;
    f.case_name = trim(line.substr(0, a));
    f.reason = trim(line.substr(b + 1));
    std::stringstream modes(line.substr(a + 1, b - a - 1));
    for (std::string m; std::getline(modes, m, ',');) {
      m = trim(m);
      if (!known.count(m)) return invalid_argument(where + ": unknown mode '" + m + "'");
      f.modes.push_back(m);
    }
    if (f.case_name.empty() || f.modes.empty() || f.reason.empty())
      return invalid_argument(where + ": every entry needs a case, modes and a reason");
    out.push_back(std::move(f));
  }
  return out;
}

std::string ConformanceReport::summary() const {
  std::ostringstream os;
  os << passed << " of " << selected << " passed, " << expected_failures << " expected failures, "
     << problems.size() << " problems";
  for (const std::string& p : problems) os << "\n  " << p;
  return os.str();
}

const std::vector<std::string>& known_mode_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"convert",   "cpu-fp32", "cpu-fp32-constant-inputs",
                                      "cpu-fp16",  "cpu-bf16", "cuda-fp32",
                                      "cuda-fp16", "cuda-bf16"};
    // The registry sweep's, "sweep-<backend>-<dtype>" (op_sweep.h: sweep_mode_name).
    for (const char* backend : {"cpu", "cuda"})
      for (DType t : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI64, DType::kI32,
                      DType::kI16, DType::kI8, DType::kU8, DType::kBool})
        names.push_back(std::string("sweep-") + backend + "-" + std::string(dtype_name(t)));
    return names;
  }();
  return kNames;
}

ConformanceReport check_cases(const std::string& mode, const std::vector<NodeTestCase>& cases,
                              const std::vector<ExpectedFailure>& expected,
                              const std::function<std::string(const NodeTestCase&)>& run) {
  std::map<std::string, const ExpectedFailure*> listed;
  for (const ExpectedFailure& f : expected)
    if (listed_for(f, mode)) listed[f.case_name] = &f;
  ConformanceReport r;
  r.selected = cases.size();
  std::set<std::string> seen;
  for (const NodeTestCase& c : cases) {
    seen.insert(c.name);
    const std::string why = run(c);
    const auto it = listed.find(c.name);
    if (why.empty()) {
      ++r.passed;
      if (it != listed.end())
        r.problems.push_back(c.name + ": passes now; remove it from the expected failures");
    } else if (it != listed.end()) {
      ++r.expected_failures;
    } else {
      r.problems.push_back(c.name + ": " + why);
    }
  }
  for (const auto& [name, entry] : listed)
    if (!seen.count(name))
      r.problems.push_back(name + ": listed as an expected failure but not a selected case");
  return r;
}
}  // namespace amp::test
