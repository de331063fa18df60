// The precision report over names from a hostile file: ONNX and .amp names are bytes, not
// necessarily UTF-8, and the JSON writer must not throw on them (a fuzzer finding:
// tests/data/fuzz/amp/report_json_invalid_utf8_name.amp).
#include <gtest/gtest.h>

#include "graph/passes/amp/precision_report.h"

namespace amp::graph {
namespace {

TEST(PrecisionReportHostile, InvalidUtf8NamesAreReplaced) {
  AmpReport r;
  AmpNodeReport n;
  n.node = "conv\xff\xfe";  // invalid UTF-8
  n.op = "Conv";
  n.color = "ALWAYS";
  n.reason = "truncated \xe2\x82";  // a cut multi-byte sequence
  r.nodes.push_back(n);
  r.fallbacks.push_back(n);
  std::string json;
  ASSERT_NO_THROW(json = precision_report_json(r));
  EXPECT_NE(json.find("conv\xef\xbf\xbd"), std::string::npos) << json;  // U+FFFD
}

}  // namespace
}  // namespace amp::graph
