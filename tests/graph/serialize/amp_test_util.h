// Test helpers for the .amp format: craft files directly with the FlatBuffers builder,
// so tests can make files the writer refuses to produce (cycles, bad offsets, unknown
// ops, newer versions), and a scratch directory.
//
//   RawModel m;
//   m.values = {{.name = "x"}, {.name = "y"}};
//   m.nodes = {{.op = "Relu", .name = "r", .inputs = {0}, .outputs = {1}}};
//   m.inputs = {0};
//   m.outputs = {1};
//   std::vector<uint8_t> file = craft_amp(m);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/schema/model_generated.h"
#include "graph/serialize/amp_format.h"
#include "tests/test_util/scratch_dir.h"

namespace amp::graph::amp_test {

struct RawWeight {
  uint64_t offset = 0;  // relative to the weight region start unless `absolute`
  uint64_t size = 0;
  std::vector<int64_t> dims;
  bool absolute = false;
};

struct RawValue {
  std::string name;
  int32_t dtype = 1;  // f32
  bool has_shape = false;
  std::vector<int64_t> shape;  // -1 = symbolic (unnamed)
  std::optional<RawWeight> weight;
};

struct RawTensorAttr {
  int32_t dtype = 1;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

struct RawAttr {
  std::string name;
  uint8_t kind = static_cast<uint8_t>(fb::AttrValue::IntAttr);  // written as is
  bool with_payload = true;  // false: the kind is set but no table follows
  int64_t i = 0;
  std::optional<RawTensorAttr> tensor;       // used when kind is TensorAttr
  std::optional<std::vector<int64_t>> ints;  // used when kind is IntsAttr
};

struct RawNode {
  std::string op = "Relu";
  std::string name;
  int32_t version = 13;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<RawAttr> attrs;
};

struct RawModel {
  uint32_t schema_version = kAmpSchemaVersion;
  std::vector<RawValue> values;
  std::vector<RawNode> nodes;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  // Place every [long] vector (weight dims, IntsAttr values) at 4 mod 8: legal for
  // FlatBuffers 2.0's Verifier, which checks only the 4-byte length field's alignment.
  bool misalign_long_vectors = false;
};

// A [long] vector whose data starts at 4 mod 8 in the finished buffer. The builder writes
// back to front and the finished size is a multiple of 8 (the buffer holds 8-byte scalars),
// so the data lands at 4 mod 8 exactly when the bytes written after it total 4 mod 8.
inline flatbuffers::Offset<flatbuffers::Vector<int64_t>> misaligned_longs(
    flatbuffers::FlatBufferBuilder& b, const std::vector<int64_t>& v) {
  b.Align(sizeof(uint32_t));
  if (b.GetSize() % 8 == 0) b.PushElement<uint32_t>(0);
  b.StartVector(v.size() * 2, sizeof(uint32_t));
  for (size_t i = v.size(); i-- > 0;) {  // back to front: high half first
    const uint64_t u = static_cast<uint64_t>(v[i]);
    b.PushElement<uint32_t>(static_cast<uint32_t>(u >> 32));
    b.PushElement<uint32_t>(static_cast<uint32_t>(u));
  }
  return flatbuffers::Offset<flatbuffers::Vector<int64_t>>(b.EndVector(v.size()));
}

inline uint64_t align256(uint64_t x) {
  return (x + 255) & ~uint64_t{255};
}

inline void build_raw(flatbuffers::FlatBufferBuilder& b, const RawModel& m,
                      uint64_t weights_start) {
  auto longs = [&](const std::vector<int64_t>& v) {
    return m.misalign_long_vectors ? misaligned_longs(b, v) : b.CreateVector(v);
  };
  std::vector<flatbuffers::Offset<fb::Value>> values;
  for (const RawValue& v : m.values) {
    auto name = b.CreateString(v.name);
    std::vector<flatbuffers::Offset<fb::Dim>> dims;
    for (int64_t d : v.shape) dims.push_back(fb::CreateDim(b, d));
    auto shape = v.has_shape ? b.CreateVector(dims) : 0;
    flatbuffers::Offset<fb::Weight> weight;
    if (v.weight) {
      const RawWeight& w = *v.weight;
      weight = fb::CreateWeight(b, w.absolute ? w.offset : weights_start + w.offset, w.size,
                                longs(w.dims));
    }
    values.push_back(
        fb::CreateValue(b, name, static_cast<fb::DType>(v.dtype), v.has_shape, shape, weight));
  }
  auto fb_values = b.CreateVector(values);
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (const RawNode& n : m.nodes) {
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    for (const RawAttr& a : n.attrs) {
      auto name = b.CreateString(a.name);
      flatbuffers::Offset<void> payload;
      if (a.with_payload) {
        if (a.tensor) {
          payload =
              fb::CreateTensorAttr(b, static_cast<fb::DType>(a.tensor->dtype),
                                   b.CreateVector(a.tensor->dims), b.CreateVector(a.tensor->data))
                  .Union();
        } else if (a.ints) {
          payload = fb::CreateIntsAttr(b, longs(*a.ints)).Union();
        } else {
          payload = fb::CreateIntAttr(b, a.i).Union();
        }
      }
      attrs.push_back(fb::CreateAttribute(b, name, static_cast<fb::AttrValue>(a.kind), payload));
    }
    nodes.push_back(fb::CreateNodeDirect(b, n.op.c_str(), n.version, n.name.c_str(), &n.inputs,
                                         &n.outputs, &attrs));
  }
  auto fb_nodes = b.CreateVector(nodes);
  auto model = fb::CreateModel(b, m.schema_version, fb_values, fb_nodes, b.CreateVector(m.inputs),
                               b.CreateVector(m.outputs),
                               fb::CreateMetadataDirect(b, "amp_test", 13, "onnx"));
  fb::FinishSizePrefixedModelBuffer(b, model);
}

// [size-prefixed FlatBuffer][zero padding to 256][weights]; relative weight offsets are
// counted from the start of the weight region.
inline std::vector<uint8_t> craft_amp(const RawModel& m, const std::vector<uint8_t>& weights = {}) {
  // Same two-pass trick as the writer: the FlatBuffer's length does not depend on the
  // offsets' values as long as none of them is 0 in one pass only.
  flatbuffers::FlatBufferBuilder probe;
  build_raw(probe, m, kAmpWeightAlignment);
  const uint64_t start = align256(probe.GetSize());
  flatbuffers::FlatBufferBuilder b;
  build_raw(b, m, start);
  std::vector<uint8_t> out(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  if (!weights.empty()) {
    out.resize(start, 0);
    out.insert(out.end(), weights.begin(), weights.end());
  }
  return out;
}

// x -> Relu -> y, with the three-element f32 constant "w" feeding a Mul: a minimal model
// with one weight, the base most hostile tests modify.
inline RawModel small_raw_model() {
  RawModel m;
  m.values.push_back({.name = "x", .dtype = 1, .has_shape = true, .shape = {3}});
  m.values.push_back({.name = "w",
                      .dtype = 1,
                      .has_shape = true,
                      .shape = {3},
                      .weight = RawWeight{.offset = 0, .size = 12, .dims = {3}}});
  m.values.push_back({.name = "r"});
  m.values.push_back({.name = "y"});
  m.nodes.push_back({.op = "Relu", .name = "relu", .inputs = {0}, .outputs = {2}});
  m.nodes.push_back({.op = "Mul", .name = "mul", .inputs = {2, 1}, .outputs = {3}});
  m.inputs = {0};
  m.outputs = {3};
  return m;
}

inline std::vector<uint8_t> small_raw_weights() {
  std::vector<uint8_t> w(12);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(i * 7 + 1);
  return w;
}

using test::ScratchDir;

}  // namespace amp::graph::amp_test
