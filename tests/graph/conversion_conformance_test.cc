// Every model under ../shared/models and every ONNX node test of the ops AMPRT knows
// converts (import -> conversion passes -> .amp bytes) and re-reads to the same graph, or
// is on the expected-failure list with its reason; skips without ../shared.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "graph/onnx/onnx_importer.h"
#include "graph/passes/pipelines.h"
#include "graph/serialize/amp_reader.h"
#include "graph/serialize/amp_writer.h"
#include "tests/test_util/node_tests.h"
#include "tests/test_util/shared_data.h"

namespace amp::graph {
namespace {

namespace fs = std::filesystem;

// import -> passes -> bytes -> read back -> identical graph.
Status convert_and_reread(const fs::path& onnx_path) {
  AMP_ASSIGN_OR_RETURN(Graph g, import_onnx_file(onnx_path.string()));
  AMP_RETURN_IF_ERROR(run_conversion_passes(g));
  AMP_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, write_amp_bytes(g));
  auto shared = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  AMP_ASSIGN_OR_RETURN(Graph back, read_amp_bytes(shared));
  if (!(back == g)) return internal_error("re-read graph differs from the written graph");
  return Status::ok();
}

// Mode "convert" of the expected-failure list (tests/test_util/node_tests.h).
TEST(ConversionConformance, NodeTestsConvertAndReread) {
  AMP_REQUIRE_SHARED();
  auto expected = test::load_expected_failures();
  ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();
  const test::ConformanceReport r =
      test::check_cases("convert", test::select_node_tests(), *expected,
                        [](const test::NodeTestCase& c) -> std::string {
                          const Status s = convert_and_reread(c.dir / "model.onnx");
                          return s.is_ok() ? "" : s.to_string();
                        });
  std::cout << "[conformance] convert: " << r.summary() << "\n";
  EXPECT_GT(r.selected, 0u);
  EXPECT_TRUE(r.problems.empty()) << r.summary();
}

TEST(ConversionConformance, RealModelsConvertAndReread) {
  AMP_REQUIRE_SHARED();
  const fs::path models = test::shared_dir() / "models";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(models)) {
    const fs::path model = entry.path() / "model.onnx";
    if (!fs::exists(model)) continue;
    ++count;
    Status s = convert_and_reread(model);
    EXPECT_TRUE(s.is_ok()) << entry.path().filename() << ": " << s.to_string();
    std::cout << "[conformance] " << entry.path().filename().string() << ": "
              << (s.is_ok() ? "ok" : s.to_string()) << "\n";
  }
  EXPECT_GE(count, 4);
}

}  // namespace
}  // namespace amp::graph
