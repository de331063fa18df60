// amp-serve's Prometheus text: Triton's metric names and labels, and the AMP plan gauges.
#include <gtest/gtest.h>

#include "tools/serve/metrics.h"

namespace amp::serve {
namespace {

TEST(ServeMetrics, RendersTritonNamesWithModelLabels) {
  ModelMetrics m;
  m.model = "cnn";
  m.success = 5;
  m.inference_count = 9;
  m.exec_count = 2;
  m.plan = plan_summary_from_report(
      R"({"target":"f16","nodes":20,"nodes_low":17,"casts":3,"low_flops_fraction":0.98})");
  const std::string text = render_prometheus({&m});
  EXPECT_NE(text.find("# TYPE nv_inference_request_success counter\n"), std::string::npos);
  EXPECT_NE(text.find("nv_inference_request_success{model=\"cnn\",version=\"1\"} 5\n"),
            std::string::npos);
  EXPECT_NE(text.find("nv_inference_count{model=\"cnn\",version=\"1\"} 9\n"), std::string::npos);
  EXPECT_NE(text.find("nv_inference_exec_count{model=\"cnn\",version=\"1\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("amp_plan_nodes{model=\"cnn\",version=\"1\",precision=\"low\"} 17\n"),
            std::string::npos);
  EXPECT_NE(text.find("amp_plan_casts{model=\"cnn\",version=\"1\"} 3\n"), std::string::npos);
  EXPECT_NE(
      text.find("amp_plan_low_flops_fraction{model=\"cnn\",version=\"1\",target=\"f16\"} 0.98"),
      std::string::npos);
}

TEST(ServeMetrics, AnFp32ReportHasNoTarget) {
  const PlanSummary s = plan_summary_from_report("{}");
  EXPECT_TRUE(s.target.empty());
  EXPECT_EQ(s.nodes_low, 0);
}

}  // namespace
}  // namespace amp::serve
