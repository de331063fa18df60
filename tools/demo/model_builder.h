// ModelBuilder: the demo-model generators' GraphBuilder with seeded weights (seeded_rng.h:
// every machine writes the same file) and the few layer shapes they repeat (conv + BatchNorm
// + activation, linear, LayerNorm).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "tools/demo/seeded_rng.h"

namespace amp::demo {

// The activation after a conv, as the exporters write each one (SiLU as PyTorch writes
// it: Mul(x, Sigmoid(x))).
enum class Act { kNone, kRelu, kHardSwish, kSiLU };

class ModelBuilder {
 public:
  explicit ModelBuilder(uint64_t seed) : rng_(seed) { b_.set_opset(20); }

  graph::ValueId weight(const std::string& name, std::vector<int64_t> dims, float scale,
                        float offset = 0) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = offset + rng_.uniform(-scale, scale);
    return b_.constant(name, graph::TensorData::from_vector(DType::kF32, std::move(dims), v));
  }
  graph::ValueId ints(const std::string& name, const std::vector<int64_t>& v) {
    return b_.constant(name, graph::TensorData::vector_i64(v));
  }
  graph::ValueId floats(const std::string& name, const std::vector<float>& v) {
    return b_.constant(
        name, graph::TensorData::from_vector(DType::kF32, {static_cast<int64_t>(v.size())}, v));
  }
  graph::ValueId scalar(const std::string& name, float v) {
    return b_.constant(name, graph::TensorData::scalar_f32(v));
  }
  graph::GraphBuilder& b() { return b_; }

  // Conv k x k (pad k/2, `groups`; groups == cin is depthwise), without bias when a
  // BatchNormalization follows, as PyTorch and Paddle export conv + BN; then `act`.
  graph::ValueId conv(graph::ValueId x, const std::string& name, int64_t cin, int64_t cout,
                      int64_t k, int64_t stride, Act act, bool bn = true, int64_t groups = 1) {
    graph::Attributes a;
    const int64_t pad = k / 2;
    a.set("kernel_shape", std::vector<int64_t>{k, k});
    a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    a.set("strides", std::vector<int64_t>{stride, stride});
    if (groups != 1) a.set("group", groups);
    const float he = std::sqrt(2.0f / static_cast<float>(cin / groups * k * k));
    std::vector<graph::ValueId> inputs{x, weight(name + ".weight", {cout, cin / groups, k, k}, he)};
    if (!bn) inputs.push_back(weight(name + ".bias", {cout}, 0.05f));
    graph::ValueId y = b_.node(graph::OpType::kConv, std::move(inputs), a, name);
    if (bn) y = batch_norm(y, name + ".bn", cout);
    return activation(y, name, act);
  }
  graph::ValueId conv_bn(graph::ValueId x, const std::string& name, int64_t cin, int64_t cout,
                         int64_t k, int64_t stride, bool relu) {
    return conv(x, name, cin, cout, k, stride, relu ? Act::kRelu : Act::kNone);
  }

  graph::ValueId batch_norm(graph::ValueId x, const std::string& name, int64_t c) {
    graph::Attributes bn;
    bn.set("epsilon", 1e-5f);
    return b_.node(graph::OpType::kBatchNormalization,
                   {x, weight(name + ".gamma", {c}, 0.1f, 1.0f), weight(name + ".beta", {c}, 0.1f),
                    weight(name + ".mean", {c}, 0.1f), weight(name + ".var", {c}, 0.1f, 1.0f)},
                   bn, name);
  }

  graph::ValueId activation(graph::ValueId x, const std::string& name, Act act) {
    switch (act) {
      case Act::kNone:
        return x;
      case Act::kRelu:
        return b_.node(graph::OpType::kRelu, {x}, {}, name + ".relu");
      case Act::kHardSwish:
        return b_.node(graph::OpType::kHardSwish, {x}, {}, name + ".hardswish");
      case Act::kSiLU:
        return b_.node(graph::OpType::kMul,
                       {x, b_.node(graph::OpType::kSigmoid, {x}, {}, name + ".sigmoid")}, {},
                       name + ".silu");
    }
    return x;
  }

  // Resize(x, scales = [1, 1, s, s]) as PyTorch exports nn.Upsample(mode="nearest").
  graph::ValueId upsample_nearest(graph::ValueId x, const std::string& name, float s) {
    graph::Attributes a;
    a.set("mode", std::string("nearest"));
    a.set("coordinate_transformation_mode", std::string("asymmetric"));
    a.set("nearest_mode", std::string("floor"));
    return b_.node(graph::OpType::kResize,
                   {x, graph::kNoValue, floats(name + ".scales", {1, 1, s, s})}, a, name);
  }

  graph::ValueId concat(std::vector<graph::ValueId> parts, const std::string& name,
                        int64_t axis = 1) {
    graph::Attributes a;
    a.set("axis", axis);
    return b_.node(graph::OpType::kConcat, std::move(parts), a, name);
  }

  // Reshape to `dims` (an i64 constant named after the node).
  graph::ValueId reshape(graph::ValueId x, const std::string& name,
                         const std::vector<int64_t>& dims) {
    return b_.node(graph::OpType::kReshape, {x, ints(name + ".shape", dims)}, {}, name);
  }

  // Transpose by `perm`.
  graph::ValueId transpose(graph::ValueId x, const std::string& name, std::vector<int64_t> perm) {
    graph::Attributes a;
    a.set("perm", std::move(perm));
    return b_.node(graph::OpType::kTranspose, {x}, a, name);
  }

  // Split along `axis` into parts of the given sizes (opset 13+: sizes as an input).
  std::vector<graph::ValueId> split(graph::ValueId x, const std::string& name,
                                    const std::vector<int64_t>& sizes, int64_t axis = 1) {
    graph::Attributes a;
    a.set("axis", axis);
    return b_.node_multi(graph::OpType::kSplit, {x, ints(name + ".sizes", sizes)},
                         static_cast<int>(sizes.size()), a, name);
  }

  graph::ValueId linear(graph::ValueId x, const std::string& name, int64_t in, int64_t out) {
    const float s = 1.0f / std::sqrt(static_cast<float>(in));
    graph::ValueId y =
        b_.node(graph::OpType::kMatMul, {x, weight(name + ".weight", {in, out}, s)}, {}, name);
    return b_.node(graph::OpType::kAdd, {y, weight(name + ".bias", {out}, 0.02f)}, {},
                   name + ".add");
  }

  graph::ValueId layer_norm(graph::ValueId x, const std::string& name, int64_t d) {
    graph::Attributes a;
    a.set("axis", int64_t{-1});
    a.set("epsilon", 1e-5f);
    return b_.node(
        graph::OpType::kLayerNormalization,
        {x, weight(name + ".gamma", {d}, 0.05f, 1.0f), weight(name + ".beta", {d}, 0.05f)}, a,
        name);
  }

 private:
  graph::GraphBuilder b_;
  Rng rng_;
};

}  // namespace amp::demo
