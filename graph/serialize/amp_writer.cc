#include "graph/serialize/amp_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <map>
#include <unordered_map>
#include <utility>
#include <variant>

#include "graph/ir/verifier.h"
#include "graph/schema/model_generated.h"
#include "graph/serialize/amp_format.h"

namespace amp::graph {
namespace {

// Weights are written as raw host bytes and read back in place.
static_assert(std::endian::native == std::endian::little, ".amp weights are little-endian");

// The schema's DType must mirror amp::DType, value for value.
static_assert(static_cast<int>(fb::DType::Undefined) == static_cast<int>(DType::kUndefined));
static_assert(static_cast<int>(fb::DType::F32) == static_cast<int>(DType::kF32));
static_assert(static_cast<int>(fb::DType::U8) == static_cast<int>(DType::kU8));
static_assert(static_cast<int>(fb::DType::I8) == static_cast<int>(DType::kI8));
static_assert(static_cast<int>(fb::DType::I16) == static_cast<int>(DType::kI16));
static_assert(static_cast<int>(fb::DType::I32) == static_cast<int>(DType::kI32));
static_assert(static_cast<int>(fb::DType::I64) == static_cast<int>(DType::kI64));
static_assert(static_cast<int>(fb::DType::Bool) == static_cast<int>(DType::kBool));
static_assert(static_cast<int>(fb::DType::F16) == static_cast<int>(DType::kF16));
static_assert(static_cast<int>(fb::DType::F64) == static_cast<int>(DType::kF64));
static_assert(static_cast<int>(fb::DType::BF16) == static_cast<int>(DType::kBF16));

uint64_t align_up(uint64_t x) {
  return (x + kAmpWeightAlignment - 1) & ~(kAmpWeightAlignment - 1);
}

bool known_dtype(DType t) {
  return t == DType::kUndefined || dtype_from_onnx(static_cast<int32_t>(t)).has_value();
}

std::string value_label(const Graph& g, size_t i) {
  return "value '" + g.values[i].name + "' (index " + std::to_string(i) + ")";
}

// What the reader checks beyond verify_graph, so that every written file reads back.
Status check_writable_values(const Graph& g) {
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    if (!known_dtype(v.dtype))
      return invalid_model(value_label(g, i) + " has an invalid dtype " +
                           std::to_string(static_cast<int32_t>(v.dtype)));
    if (v.shape) {
      if (v.shape->rank() > kAmpMaxRank)
        return invalid_model(value_label(g, i) + " has rank " + std::to_string(v.shape->rank()) +
                             " (max " + std::to_string(kAmpMaxRank) + ")");
      for (const Dim& d : v.shape->dims)
        if (d.value < kDynamic)
          return invalid_model(value_label(g, i) + " has a negative dim " +
                               std::to_string(d.value));
    }
    if (v.constant && v.constant->dtype() == DType::kUndefined)
      return invalid_model(value_label(g, i) + " is a constant without a dtype");
    if (v.constant && v.constant->dims().size() > kAmpMaxRank)
      return invalid_model(value_label(g, i) + " has a constant of rank " +
                           std::to_string(v.constant->dims().size()));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& [name, attr] : g.nodes[i].attrs.all()) {
      const auto* t = std::get_if<TensorData>(&attr);
      if (t && (t->dims().size() > kAmpMaxRank || t->dtype() == DType::kUndefined))
        return invalid_model(
            "node '" + g.nodes[i].name + "' (index " + std::to_string(i) + "): attribute '" + name +
            "' is a tensor of undefined dtype or rank > " + std::to_string(kAmpMaxRank));
      if (const auto* sub = std::get_if<SubgraphAttr>(&attr))
        AMP_RETURN_IF_ERROR(
            check_writable_values(*sub->graph)
                .with_context("node '" + g.nodes[i].name + "' attribute '" + name + "'"));
    }
  }
  return Status::ok();
}

Status check_writable(const Graph& g) {
  AMP_RETURN_IF_ERROR(verify_graph(g));
  return check_writable_values(g);
}

// Where each constant's bytes go, relative to the start of the weight region.
struct WeightPlan {
  std::unordered_map<const Value*, uint64_t> rel_offset;      // per constant, bodies' included
  std::vector<std::pair<uint64_t, const TensorData*>> blobs;  // unique blobs, file order
  uint64_t region_size = 0;
  bool any = false;
};

using SeenBlobs = std::map<std::pair<const uint8_t*, size_t>, uint64_t>;  // storage -> offset

// The graph's constants, then its bodies' (depth first), in one region.
void plan_weights_of(const Graph& g, SeenBlobs& seen, WeightPlan& plan) {
  for (const Value& v : g.values) {
    if (!v.constant) continue;
    plan.any = true;
    const TensorData& t = *v.constant;
    if (t.byte_size() == 0) {  // nothing to store, but the offset must still be valid
      plan.region_size = align_up(plan.region_size);
      plan.rel_offset[&v] = plan.region_size;
      continue;
    }
    auto [it, inserted] = seen.emplace(std::make_pair(t.bytes(), t.byte_size()), 0);
    if (inserted) {
      plan.region_size = align_up(plan.region_size);
      it->second = plan.region_size;
      plan.blobs.emplace_back(plan.region_size, &t);
      plan.region_size += t.byte_size();
    }
    plan.rel_offset[&v] = it->second;
  }
  for (const Node& n : g.nodes)
    for (const auto& [name, attr] : n.attrs.all())
      if (const auto* sub = std::get_if<SubgraphAttr>(&attr))
        plan_weights_of(*sub->graph, seen, plan);
}

WeightPlan plan_weights(const Graph& g) {
  WeightPlan plan;
  SeenBlobs seen;
  plan_weights_of(g, seen, plan);
  return plan;
}

// The tables of one graph (the model's or a body's), built bottom-up.
struct GraphTables {
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Value>>> values;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Node>>> nodes;
  flatbuffers::Offset<flatbuffers::Vector<int32_t>> inputs, outputs;
};
GraphTables build_graph_tables(flatbuffers::FlatBufferBuilder& b, const Graph& g,
                               const WeightPlan& plan, uint64_t weights_start);

flatbuffers::Offset<fb::Attribute> build_attribute(flatbuffers::FlatBufferBuilder& b,
                                                   const std::string& name, const AttrValue& value,
                                                   const WeightPlan& plan, uint64_t weights_start) {
  auto fb_name = b.CreateString(name);
  fb::AttrValue type = fb::AttrValue::NONE;
  flatbuffers::Offset<void> payload;
  switch (value.index()) {
    case 0:
      type = fb::AttrValue::IntAttr;
      payload = fb::CreateIntAttr(b, std::get<int64_t>(value)).Union();
      break;
    case 1:
      type = fb::AttrValue::FloatAttr;
      payload = fb::CreateFloatAttr(b, std::get<float>(value)).Union();
      break;
    case 2:
      type = fb::AttrValue::StringAttr;
      payload = fb::CreateStringAttr(b, b.CreateString(std::get<std::string>(value))).Union();
      break;
    case 3:
      type = fb::AttrValue::IntsAttr;
      payload =
          fb::CreateIntsAttr(b, b.CreateVector(std::get<std::vector<int64_t>>(value))).Union();
      break;
    case 4:
      type = fb::AttrValue::FloatsAttr;
      payload =
          fb::CreateFloatsAttr(b, b.CreateVector(std::get<std::vector<float>>(value))).Union();
      break;
    case 5:
      type = fb::AttrValue::StringsAttr;
      payload = fb::CreateStringsAttr(
                    b, b.CreateVectorOfStrings(std::get<std::vector<std::string>>(value)))
                    .Union();
      break;
    case 6: {
      const TensorData& t = std::get<TensorData>(value);
      auto dims = b.CreateVector(t.dims());
      auto data = b.CreateVector(t.bytes(), t.byte_size());
      type = fb::AttrValue::TensorAttr;
      payload = fb::CreateTensorAttr(b, static_cast<fb::DType>(t.dtype()), dims, data).Union();
      break;
    }
    case 7: {
      const GraphTables t =
          build_graph_tables(b, *std::get<SubgraphAttr>(value).graph, plan, weights_start);
      type = fb::AttrValue::GraphAttr;
      payload = fb::CreateGraphAttr(b, t.values, t.nodes, t.inputs, t.outputs).Union();
      break;
    }
  }
  // A new AttrValue alternative must be added to the switch and the schema.
  static_assert(std::variant_size_v<AttrValue> == 8);
  return fb::CreateAttribute(b, fb_name, type, payload);
}

GraphTables build_graph_tables(flatbuffers::FlatBufferBuilder& b, const Graph& g,
                               const WeightPlan& plan, uint64_t weights_start) {
  std::vector<flatbuffers::Offset<fb::Value>> values;
  values.reserve(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    auto name = b.CreateString(v.name);
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fb::Dim>>> shape;
    if (v.shape) {
      std::vector<flatbuffers::Offset<fb::Dim>> dims;
      dims.reserve(v.shape->rank());
      for (const Dim& d : v.shape->dims) {
        // The symbol only means something on a symbolic dim (Dim::operator==).
        flatbuffers::Offset<flatbuffers::String> symbol;
        if (!d.is_static() && !d.symbol.empty()) symbol = b.CreateString(d.symbol);
        dims.push_back(fb::CreateDim(b, d.value, symbol));
      }
      shape = b.CreateVector(dims);
    }
    flatbuffers::Offset<fb::Weight> weight;
    if (v.constant) {
      auto dims = b.CreateVector(v.constant->dims());
      // The offset is never 0 (weights follow the FlatBuffer), so the field is always
      // present and both build passes produce buffers of equal length.
      weight = fb::CreateWeight(b, weights_start + plan.rel_offset.at(&v), v.constant->byte_size(),
                                dims);
    }
    values.push_back(fb::CreateValue(b, name, static_cast<fb::DType>(v.dtype), v.shape.has_value(),
                                     shape, weight));
  }
  auto fb_values = b.CreateVector(values);

  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  nodes.reserve(g.nodes.size());
  for (const Node& n : g.nodes) {
    auto op = b.CreateString(op_name(n.op).data(), op_name(n.op).size());
    auto name = b.CreateString(n.name);
    auto inputs = b.CreateVector(n.inputs);
    auto outputs = b.CreateVector(n.outputs);
    std::vector<flatbuffers::Offset<fb::Attribute>> attrs;
    for (const auto& [attr_name, attr] : n.attrs.all())
      attrs.push_back(build_attribute(b, attr_name, attr, plan, weights_start));
    auto fb_attrs = b.CreateVector(attrs);
    nodes.push_back(fb::CreateNode(b, op, n.op_version, name, inputs, outputs, fb_attrs));
  }
  GraphTables t;
  t.values = fb_values;
  t.nodes = b.CreateVector(nodes);
  t.inputs = b.CreateVector(g.inputs);
  t.outputs = b.CreateVector(g.outputs);
  return t;
}

// Builds the size-prefixed FlatBuffer; weight offsets are weights_start + plan offsets.
void build_flatbuffer(flatbuffers::FlatBufferBuilder& b, const Graph& g, const WeightPlan& plan,
                      uint64_t weights_start) {
  const GraphTables t = build_graph_tables(b, g, plan, weights_start);

  std::vector<flatbuffers::Offset<fb::KeyValue>> props;
  for (const auto& [k, v] : g.metadata.properties)
    props.push_back(fb::CreateKeyValue(b, b.CreateString(k), b.CreateString(v)));
  auto producer = b.CreateString(g.metadata.producer);
  auto source_format = b.CreateString(g.metadata.source_format);
  auto fb_props = b.CreateVector(props);
  auto metadata = fb::CreateMetadata(b, producer, g.metadata.source_opset, source_format, fb_props);

  auto model =
      fb::CreateModel(b, kAmpSchemaVersion, t.values, t.nodes, t.inputs, t.outputs, metadata);
  fb::FinishSizePrefixedModelBuffer(b, model);
}

// The finished FlatBuffer plus where every blob goes.
struct Image {
  flatbuffers::FlatBufferBuilder fbb;
  WeightPlan plan;
  uint64_t weights_start = 0;
  uint64_t total_size = 0;
};

Status build_image(const Graph& g, Image& img) {
  AMP_RETURN_IF_ERROR(check_writable(g));
  img.plan = plan_weights(g);
  // Pass 1 learns the FlatBuffer's length; pass 2 writes the real offsets. Offsets are
  // fixed-size fields, so the length does not change between the passes.
  flatbuffers::FlatBufferBuilder probe;
  build_flatbuffer(probe, g, img.plan, kAmpWeightAlignment);
  img.weights_start = align_up(probe.GetSize());
  build_flatbuffer(img.fbb, g, img.plan, img.weights_start);
  if (img.fbb.GetSize() != probe.GetSize())
    return internal_error("the .amp FlatBuffer changed length between passes");
  img.total_size = img.plan.any ? img.weights_start + img.plan.region_size : img.fbb.GetSize();
  return Status::ok();
}

std::string os_error(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

bool write_all(int fd, const uint8_t* p, uint64_t n) {
  while (n > 0) {
    // Linux writes at most ~2 GB per call.
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, uint64_t{1} << 30));
    const ssize_t w = ::write(fd, p, chunk);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;  // no progress: do not spin
      return false;
    }
    p += w;
    n -= static_cast<uint64_t>(w);
  }
  return true;
}

bool write_zeros(int fd, uint64_t n) {
  static const uint8_t zeros[kAmpWeightAlignment] = {};
  while (n > 0) {
    const uint64_t k = std::min<uint64_t>(n, sizeof(zeros));
    if (!write_all(fd, zeros, k)) return false;
    n -= k;
  }
  return true;
}

}  // namespace

Result<std::vector<uint8_t>> write_amp_bytes(const Graph& g) {
  Image img;
  AMP_RETURN_IF_ERROR(build_image(g, img));
  if (img.total_size > SIZE_MAX) return out_of_memory(".amp image does not fit in memory");
  std::vector<uint8_t> out(static_cast<size_t>(img.total_size), 0);
  std::memcpy(out.data(), img.fbb.GetBufferPointer(), img.fbb.GetSize());
  for (const auto& [rel, t] : img.plan.blobs)
    std::memcpy(out.data() + img.weights_start + rel, t->bytes(), t->byte_size());
  return out;
}

Status write_amp_file(const Graph& g, const std::string& path) {
  Image img;
  AMP_RETURN_IF_ERROR(build_image(g, img));

  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return not_found(os_error("cannot create", tmp));

  // Streams the blobs straight from their TensorData: no whole-file copy in memory.
  uint64_t pos = img.fbb.GetSize();
  bool ok = write_all(fd, img.fbb.GetBufferPointer(), img.fbb.GetSize());
  for (const auto& [rel, t] : img.plan.blobs) {
    if (!ok) break;
    const uint64_t at = img.weights_start + rel;
    ok = write_zeros(fd, at - pos) && write_all(fd, t->bytes(), t->byte_size());
    pos = at + t->byte_size();
  }
  // Trailing padding when the last weights are empty tensors placed at the region start.
  if (ok && pos < img.total_size) ok = write_zeros(fd, img.total_size - pos);
  std::string error;
  if (!ok) error = os_error("cannot write", tmp);
  // Data reaches the disk before the rename makes it visible under `path`.
  if (ok && ::fsync(fd) != 0) error = os_error("cannot fsync", tmp), ok = false;
  if (::close(fd) != 0 && ok) error = os_error("cannot close", tmp), ok = false;
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0)
    error = os_error("cannot rename " + tmp + " to", path), ok = false;
  if (!ok) {
    ::unlink(tmp.c_str());
    return not_found(error);
  }
  return Status::ok();
}

}  // namespace amp::graph
