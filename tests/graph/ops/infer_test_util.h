// A one-node graph for the shape inference tests (infer_*_test.cc): make inputs and
// constants, run the op through graph::infer_shapes, read the outputs' shapes as
// strings ("[N,3,?]", "none" when unknown) so failures print readably.
//
//   InferCase t;
//   ValueId x = t.input(DType::kF32, {Dim::symbolic("N"), 3});
//   ASSERT_TRUE(t.run(OpType::kRelu, {x}).is_ok());
//   EXPECT_EQ(t.shape(), "[N,3]");
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "graph/ir/graph_builder.h"
#include "graph/ops/shape_inference.h"

namespace amp::graph {

inline Dim sym(const std::string& name) {
  return Dim::symbolic(name);
}

class InferCase {
 public:
  ValueId input(DType t, std::vector<Dim> dims) {
    return b_.input(next_name("in"), t, Shape(std::move(dims)));
  }
  // An input whose shape (even its rank) is unknown.
  ValueId unknown(DType t) {
    ValueId v = input(t, {});
    b_.graph().value(v).shape.reset();
    return v;
  }
  ValueId constant(TensorData data) { return b_.constant(next_name("c"), std::move(data)); }
  ValueId ints(const std::vector<int64_t>& v) { return constant(TensorData::vector_i64(v)); }
  ValueId floats(const std::vector<float>& v) {
    return constant(
        TensorData::from_vector<float>(DType::kF32, {static_cast<int64_t>(v.size())}, v));
  }
  ValueId scalar_i64(int64_t v) { return constant(TensorData::scalar_i64(v)); }
  ValueId scalar_f32(float v) { return constant(TensorData::scalar_f32(v)); }
  void set_opset(int32_t opset) { b_.set_opset(opset); }

  // Adds the node and infers it (only it: a case may hold earlier, failed nodes).
  Status run(OpType op, std::vector<ValueId> inputs, Attributes attrs = {}, int num_outputs = 1) {
    outs_ = b_.node_multi(op, std::move(inputs), num_outputs, std::move(attrs));
    return infer_node(b_.graph(), static_cast<NodeId>(b_.graph().nodes.size() - 1));
  }
  // Infers the last node again, after the test edited it through graph().
  Status rerun() {
    return infer_node(b_.graph(), static_cast<NodeId>(b_.graph().nodes.size() - 1));
  }
  // The message of a failed run ("" when it succeeds).
  std::string error(OpType op, std::vector<ValueId> inputs, Attributes attrs = {},
                    int num_outputs = 1) {
    Status s = run(op, std::move(inputs), std::move(attrs), num_outputs);
    return s.is_ok() ? std::string() : s.message();
  }
  Graph& graph() { return b_.graph(); }
  ValueId out_id(size_t k = 0) const { return outs_[k]; }

  const Value& out(size_t k = 0) { return b_.graph().value(outs_[k]); }
  DType dtype(size_t k = 0) { return out(k).dtype; }
  std::string shape(size_t k = 0) {
    const Value& v = out(k);
    return v.shape ? v.shape->to_string() : std::string("none");
  }

 private:
  // Built with += rather than "c" + std::string: GCC 12 warns falsely (-Wrestrict) on
  // the latter once inlined.
  std::string next_name(const char* prefix) {
    std::string name(prefix);
    name += std::to_string(count_++);
    return name;
  }

  GraphBuilder b_;
  std::vector<ValueId> outs_;
  int count_ = 0;
};

// Attributes from a brace list: attrs({{"axis", int64_t{1}}}).
inline Attributes attrs(std::initializer_list<std::pair<std::string, AttrValue>> list) {
  Attributes a;
  for (const auto& [name, value] : list) a.set(name, value);
  return a;
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace amp::graph

#define EXPECT_OK(expr)                        \
  do {                                         \
    ::amp::Status _s = (expr);                 \
    EXPECT_TRUE(_s.is_ok()) << _s.to_string(); \
  } while (0)
#define ASSERT_OK(expr)                        \
  do {                                         \
    ::amp::Status _s = (expr);                 \
    ASSERT_TRUE(_s.is_ok()) << _s.to_string(); \
  } while (0)
