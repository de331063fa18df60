// amp-make-demo-onnx: writes a small, deterministic ONNX model of our own (no third-party
// weights in the repository): a ResNet-style CNN classifier with seeded weights.
//
//   input[N,3,32,32] -> Conv3x3(16)+BN+Relu -> [Conv3x3+BN+Relu -> Conv3x3+BN] + skip -> Relu
//   -> MaxPool2x2 -> GlobalAveragePool -> Flatten -> Gemm(10) -> Softmax -> probs[N,10]
//
// Usage: amp-make-demo-onnx OUT.onnx
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tools/demo/seeded_rng.h"

namespace {

using amp::demo::Rng;  // seeded: the model is identical on every machine

class DemoBuilder {
 public:
  explicit DemoBuilder(onnx::GraphProto* g) : g_(g), rng_(20261202) {}

  std::string weight(const std::string& name, const std::vector<int64_t>& dims, float scale,
                     float offset = 0.0f) {
    onnx::TensorProto* t = g_->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    for (int64_t i = 0; i < n; ++i) t->add_float_data(offset + rng_.uniform(-scale, scale));
    return name;
  }

  std::string node(const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& output, onnx::NodeProto** out_node = nullptr) {
    onnx::NodeProto* n = g_->add_node();
    n->set_op_type(op);
    n->set_name(output);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(output);
    if (out_node) *out_node = n;
    return output;
  }

  static void ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void integer(onnx::NodeProto* n, const std::string& name, int64_t v) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }

  // Conv 3x3 pad 1 + BatchNormalization (+ Relu).
  std::string conv_bn(const std::string& x, const std::string& name, int64_t cin, int64_t cout,
                      bool relu) {
    const float he = std::sqrt(2.0f / static_cast<float>(cin * 9));
    onnx::NodeProto* conv;
    node("Conv", {x, weight(name + ".w", {cout, cin, 3, 3}, he)}, name + ".conv", &conv);
    ints(conv, "pads", {1, 1, 1, 1});
    ints(conv, "kernel_shape", {3, 3});
    std::string y =
        node("BatchNormalization",
             {name + ".conv", weight(name + ".gamma", {cout}, 0.1f, 1.0f),
              weight(name + ".beta", {cout}, 0.1f), weight(name + ".mean", {cout}, 0.1f),
              weight(name + ".var", {cout}, 0.1f, 1.0f)},
             name + ".bn");
    return relu ? node("Relu", {y}, name + ".relu") : y;
  }

 private:
  onnx::GraphProto* g_;
  Rng rng_;
};

void value_info(onnx::ValueInfoProto* vi, const std::string& name,
                const std::vector<std::string>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (const auto& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0])))
      dim->set_dim_value(std::stoll(d));
    else
      dim->set_dim_param(d);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::cout << "usage: amp-make-demo-onnx OUT.onnx\n";
    return 0;
  }
  // An option where the file name belongs would otherwise become a file named like it.
  if (argc != 2 || argv[1][0] == '-') {
    std::cerr << "usage: amp-make-demo-onnx OUT.onnx\n";
    return 2;
  }
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("amprt-demo");
  model.set_producer_version("1");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  onnx::GraphProto* g = model.mutable_graph();
  g->set_name("demo_resnet");
  value_info(g->add_input(), "input", {"N", "3", "32", "32"});
  value_info(g->add_output(), "probs", {"N", "10"});

  DemoBuilder b(g);
  std::string x = b.conv_bn("input", "stem", 3, 16, true);
  std::string y = b.conv_bn(x, "block1.a", 16, 16, true);
  y = b.conv_bn(y, "block1.b", 16, 16, false);
  x = b.node("Relu", {b.node("Add", {x, y}, "block1.add")}, "block1.relu");
  onnx::NodeProto* pool;
  x = b.node("MaxPool", {x}, "pool", &pool);
  DemoBuilder::ints(pool, "kernel_shape", {2, 2});
  DemoBuilder::ints(pool, "strides", {2, 2});
  x = b.node("GlobalAveragePool", {x}, "gap");
  onnx::NodeProto* flatten;
  x = b.node("Flatten", {x}, "flatten", &flatten);
  DemoBuilder::integer(flatten, "axis", 1);
  onnx::NodeProto* gemm;
  x = b.node("Gemm", {x, b.weight("fc.w", {10, 16}, 0.25f), b.weight("fc.b", {10}, 0.1f)}, "fc",
             &gemm);
  DemoBuilder::integer(gemm, "transB", 1);
  onnx::NodeProto* softmax;
  b.node("Softmax", {x}, "probs", &softmax);
  DemoBuilder::integer(softmax, "axis", 1);

  std::ofstream out(argv[1], std::ios::binary);
  if (!out || !model.SerializeToOstream(&out)) {
    std::cerr << "amp-make-demo-onnx: cannot write " << argv[1] << "\n";
    return 1;
  }
  std::cout << "wrote " << argv[1] << " (" << g->node_size() << " nodes)\n";
  return 0;
}
