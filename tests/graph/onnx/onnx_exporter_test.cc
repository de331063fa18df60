// export_onnx (graph/onnx/onnx_exporter.h): what it writes, our importer reads back as the
// same graph; what ONNX cannot say is an error naming the node.
#include "graph/onnx/onnx_exporter.h"

#include <gtest/gtest.h>

#include "graph/ir/graph_builder.h"
#include "graph/onnx/onnx_importer.h"
#include "graph/ops/shape_inference.h"

namespace amp::graph {
namespace {

Graph small_graph() {
  GraphBuilder b;
  b.set_opset(13);
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("N"), Dim(4)}));
  ValueId w = b.constant("w", TensorData::from_vector<float>(
                                  DType::kF32, {4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  Attributes keep;
  keep.set("keepdims", int64_t{1});
  ValueId y = b.node(OpType::kMatMul, {x, w}, {}, "mm");
  ValueId m = b.node(OpType::kReduceMean, {y, b.constant("axes", TensorData::vector_i64({-1}))},
                     keep, "mean");
  Attributes perm;
  perm.set("perm", std::vector<int64_t>{1, 0});
  ValueId t = b.node(OpType::kTranspose, {m}, perm, "t");
  b.rename(t, "out");
  b.output(t);
  Graph g = b.build();
  EXPECT_TRUE(infer_shapes(g).is_ok());
  return g;
}

TEST(OnnxExporter, RoundTripsThroughTheImporter) {
  const Graph g = small_graph();
  auto bytes = export_onnx(g);
  ASSERT_TRUE(bytes.is_ok()) << bytes.status().to_string();
  auto back = import_onnx_bytes(bytes->data(), bytes->size());
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  ASSERT_EQ(back->nodes.size(), g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    EXPECT_EQ(back->nodes[i].op, g.nodes[i].op);
    EXPECT_EQ(back->nodes[i].name, g.nodes[i].name);
    EXPECT_EQ(back->nodes[i].attrs, g.nodes[i].attrs) << g.nodes[i].name;
  }
  EXPECT_EQ(back->metadata.source_opset, 18);  // the canonical layout's opset (header)
  const Value& in = back->value(back->inputs[0]);
  EXPECT_EQ(in.shape->dims[0].symbol, "N");
  EXPECT_EQ(in.shape->dims[1].value, 4);
  const auto w = back->find_value("w");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(back->value(*w).constant->to_f64_vector(),
            g.value(*g.find_value("w")).constant->to_f64_vector());
  EXPECT_EQ(back->value(back->outputs[0]).name, "out");
}

TEST(OnnxExporter, RefusesAttributesOfOurOwn) {
  Graph g = small_graph();
  g.nodes[0].attrs.set("fused_activation", std::string("Relu"));
  auto bytes = export_onnx(g);
  ASSERT_FALSE(bytes.is_ok());
  EXPECT_NE(bytes.status().message().find("'mm'"), std::string::npos) << bytes.status().message();
}

TEST(OnnxExporter, RefusesOlderOpsetSemantics) {
  Graph g = small_graph();
  g.nodes[2].op_version = 1;
  auto bytes = export_onnx(g);
  ASSERT_FALSE(bytes.is_ok());
  EXPECT_NE(bytes.status().message().find("'t'"), std::string::npos) << bytes.status().message();
}

}  // namespace
}  // namespace amp::graph
