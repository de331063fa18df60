#include "graph/serialize/amp_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include "graph/ir/limits.h"
#include "graph/ir/verifier.h"
#include "graph/schema/model_generated.h"
#include "graph/serialize/amp_format.h"
#include "graph/serialize/mapped_file.h"

namespace amp::graph {
namespace {

static_assert(std::endian::native == std::endian::little, ".amp weights are little-endian");

constexpr size_t kSizePrefix = sizeof(flatbuffers::uoffset_t);
// The schema nests Model > [Node] > Node > [Attribute] > Attribute > TensorAttr > vector, and
// each subgraph level adds GraphAttr > [Node] > Node > [Attribute] > Attribute: 16 plus 5 per
// level of the kMaxSubgraphDepth allowed, with room for append-only additions. A file nested
// deeper fails verification before anything recurses over it.
constexpr flatbuffers::uoffset_t kMaxDepth = 16 + 5 * (kMaxSubgraphDepth + 1);

using FbString = flatbuffers::String;
template <typename T>
using FbVector = flatbuffers::Vector<T>;

std::string str(const FbString* s) {
  return s ? s->str() : std::string();
}

// The elements of a scalar vector, copied bytewise. FlatBuffers 2.0's Verifier checks a
// vector's alignment only to its 4-byte length field, so a crafted file can place a [long]
// at 4 mod 8; iterating it would be a misaligned 8-byte load (UB; found by fuzzing).
template <typename T>
std::vector<T> copy_scalars(const FbVector<T>& v) {
  static_assert(std::is_arithmetic_v<T>);
  std::vector<T> out(v.size());
  if (!out.empty()) std::memcpy(out.data(), v.Data(), out.size() * sizeof(T));
  return out;
}

// Non-printable identifier bytes are shown escaped so the message stays one clean line.
std::string printable(const uint8_t* p, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\') {
      out += static_cast<char>(p[i]);
    } else {
      out += "\\x";
      out += hex[p[i] >> 4];
      out += hex[p[i] & 15];
    }
  }
  return out;
}

// Caps what a file may make us allocate (see amp_reader.h): a FlatBuffer may point many
// times at one subtable, and each pointer would otherwise become a fresh copy.
class Budget {
 public:
  explicit Budget(uint64_t bytes) : left_(bytes) {}
  Status take(uint64_t bytes) {
    if (bytes > left_)
      return out_of_memory(
          "the model would need far more memory than its size justifies (shared "
          "subtables in the FlatBuffer?)");
    left_ -= bytes;
    return Status::ok();
  }

 private:
  uint64_t left_;
};

std::string value_label(const std::string& name, size_t i) {
  return "value '" + name + "' (index " + std::to_string(i) + ")";
}
std::string node_label(const std::string& name, size_t i) {
  return "node '" + name + "' (index " + std::to_string(i) + ")";
}

// amp::DType values are ONNX numbers, so dtype_from_onnx doubles as the range check.
Result<DType> read_dtype(fb::DType raw) {
  const int32_t v = static_cast<int32_t>(raw);
  if (v == 0) return DType::kUndefined;
  auto t = dtype_from_onnx(v);
  if (!t) return invalid_model("unknown dtype " + std::to_string(v));
  return *t;
}

// Dims of a stored tensor: static, rank-capped.
Result<std::vector<int64_t>> read_static_dims(const FbVector<int64_t>* dims, Budget& budget) {
  std::vector<int64_t> out;
  if (!dims) return out;
  if (dims->size() > kAmpMaxRank)
    return invalid_model("rank " + std::to_string(dims->size()) + " exceeds the maximum of " +
                         std::to_string(kAmpMaxRank));
  AMP_RETURN_IF_ERROR(budget.take(dims->size() * sizeof(int64_t)));
  out = copy_scalars(*dims);
  for (int64_t d : out)
    if (d < 0) return invalid_model("negative dim " + std::to_string(d) + " in a stored tensor");
  return out;
}

Result<Shape> read_shape(const FbVector<flatbuffers::Offset<fb::Dim>>* dims, Budget& budget) {
  Shape shape;
  if (!dims) return shape;
  if (dims->size() > kAmpMaxRank)
    return invalid_model("rank " + std::to_string(dims->size()) + " exceeds the maximum of " +
                         std::to_string(kAmpMaxRank));
  AMP_RETURN_IF_ERROR(budget.take(dims->size() * sizeof(Dim)));
  shape.dims.reserve(dims->size());
  for (const fb::Dim* d : *dims) {
    if (!d) return invalid_model("null dim");
    Dim dim;
    dim.value = d->value();
    if (dim.value < kDynamic)
      return invalid_model("dim " + std::to_string(dim.value) + " (must be >= 0, or -1)");
    if (dim.value == kDynamic && d->symbol()) {
      AMP_RETURN_IF_ERROR(budget.take(d->symbol()->size()));
      dim.symbol = d->symbol()->str();
    }
    shape.dims.push_back(std::move(dim));
  }
  return shape;
}

struct FileView {
  const uint8_t* data;
  uint64_t size;
  uint64_t weights_start;  // end of the FlatBuffer: weights may not overlap it
  const std::shared_ptr<const void>& keepalive;
};

Result<TensorData> read_weight(const fb::Weight& w, DType dtype, const FileView& file,
                               Budget& budget) {
  if (dtype == DType::kUndefined) return invalid_model("constant has an undefined dtype");
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> dims, read_static_dims(w.dims(), budget));
  const uint64_t offset = w.offset();
  const uint64_t size = w.size();
  // Written as two comparisons so that offset + size cannot overflow.
  if (offset < file.weights_start || offset > file.size || size > file.size - offset)
    return invalid_model("weight [offset " + std::to_string(offset) + ", size " +
                         std::to_string(size) + "] is outside the weight region [" +
                         std::to_string(file.weights_start) + ", " + std::to_string(file.size) +
                         ") of the file");
  if (offset % kAmpWeightAlignment != 0)
    return invalid_model("weight offset " + std::to_string(offset) + " is not " +
                         std::to_string(kAmpWeightAlignment) + "-byte aligned");
  auto numel = checked_numel(dims);
  const uint64_t esize = dtype_size(dtype);
  if (!numel || static_cast<uint64_t>(*numel) > UINT64_MAX / esize ||
      static_cast<uint64_t>(*numel) * esize != size)
    return invalid_model("weight size " + std::to_string(size) + " bytes does not match " +
                         std::string(dtype_name(dtype)) + " " +
                         Shape::from_static(dims).to_string());
  return TensorData::view(dtype, std::move(dims), file.keepalive, file.data + offset,
                          static_cast<size_t>(size));
}

// `Table` is fb::Model or fb::GraphAttr (a body): both hold values, nodes, inputs, outputs.
template <typename Table>
Status read_values(const Table& m, const FileView& file, Budget& budget, Graph& g) {
  if (!m.values()) return Status::ok();
  const auto& values = *m.values();
  AMP_RETURN_IF_ERROR(budget.take(uint64_t{values.size()} * sizeof(Value)));
  g.values.reserve(values.size());
  for (flatbuffers::uoffset_t i = 0; i < values.size(); ++i) {
    const fb::Value* fv = values.Get(i);
    if (!fv) return invalid_model("value " + std::to_string(i) + " is null");
    Value v;
    v.name = str(fv->name());
    AMP_RETURN_IF_ERROR(budget.take(v.name.size()));
    const std::string label = value_label(v.name, i);
    auto dtype = read_dtype(fv->dtype());
    if (!dtype.is_ok()) return dtype.status().with_context(label);
    v.dtype = *dtype;
    if (fv->has_shape()) {
      auto shape = read_shape(fv->shape(), budget);
      if (!shape.is_ok()) return shape.status().with_context(label);
      v.shape = std::move(shape).value();
    }
    if (fv->weight()) {
      auto t = read_weight(*fv->weight(), v.dtype, file, budget);
      if (!t.is_ok()) return t.status().with_context(label);
      v.constant = std::move(t).value();
    }
    g.values.push_back(std::move(v));
  }
  return Status::ok();
}

template <typename Table>
Status read_graph_parts(const Table& m, const FileView& file, Budget& budget, int depth, Graph& g);

Result<AttrValue> read_attr(const fb::Attribute& a, const FileView& file, Budget& budget,
                            int depth) {
  // The Verifier accepts a union whose type is set but whose table is absent.
  if (a.value_type() != fb::AttrValue::NONE && a.value() == nullptr)
    return invalid_model("has a kind but no value");
  switch (a.value_type()) {
    case fb::AttrValue::NONE:
      return invalid_model("has no value");
    case fb::AttrValue::IntAttr:
      return AttrValue(a.value_as_IntAttr()->value());
    case fb::AttrValue::FloatAttr:
      return AttrValue(a.value_as_FloatAttr()->value());
    case fb::AttrValue::StringAttr: {
      const FbString* s = a.value_as_StringAttr()->value();
      AMP_RETURN_IF_ERROR(budget.take(s ? s->size() : 0));
      return AttrValue(str(s));
    }
    case fb::AttrValue::IntsAttr: {
      std::vector<int64_t> out;
      if (const auto* v = a.value_as_IntsAttr()->values()) {
        AMP_RETURN_IF_ERROR(budget.take(uint64_t{v->size()} * sizeof(int64_t)));
        out = copy_scalars(*v);
      }
      return AttrValue(std::move(out));
    }
    case fb::AttrValue::FloatsAttr: {
      std::vector<float> out;
      if (const auto* v = a.value_as_FloatsAttr()->values()) {
        AMP_RETURN_IF_ERROR(budget.take(uint64_t{v->size()} * sizeof(float)));
        out = copy_scalars(*v);
      }
      return AttrValue(std::move(out));
    }
    case fb::AttrValue::StringsAttr: {
      std::vector<std::string> out;
      if (const auto* v = a.value_as_StringsAttr()->values()) {
        AMP_RETURN_IF_ERROR(budget.take(uint64_t{v->size()} * sizeof(std::string)));
        out.reserve(v->size());
        for (const FbString* s : *v) {
          AMP_RETURN_IF_ERROR(budget.take(s ? s->size() : 0));
          out.push_back(str(s));
        }
      }
      return AttrValue(std::move(out));
    }
    case fb::AttrValue::TensorAttr: {
      const fb::TensorAttr& t = *a.value_as_TensorAttr();
      AMP_ASSIGN_OR_RETURN(DType dtype, read_dtype(t.dtype()));
      if (dtype == DType::kUndefined) return invalid_model("is a tensor of undefined dtype");
      AMP_ASSIGN_OR_RETURN(std::vector<int64_t> dims, read_static_dims(t.dims(), budget));
      std::vector<uint8_t> bytes;
      if (t.data()) {
        AMP_RETURN_IF_ERROR(budget.take(t.data()->size()));
        bytes.assign(t.data()->begin(), t.data()->end());
      }
      // Copied (not viewed): inline [ubyte] data has no alignment guarantee, and these
      // tensors are small. from_bytes checks bytes == numel x dtype size.
      AMP_ASSIGN_OR_RETURN(TensorData td,
                           TensorData::from_bytes(dtype, std::move(dims), std::move(bytes)));
      return AttrValue(std::move(td));
    }
    case fb::AttrValue::GraphAttr: {
      if (depth + 1 > kMaxSubgraphDepth)
        return invalid_model("nests subgraphs deeper than " + std::to_string(kMaxSubgraphDepth) +
                             " levels");
      auto g = std::make_shared<Graph>();
      AMP_RETURN_IF_ERROR(read_graph_parts(*a.value_as_GraphAttr(), file, budget, depth + 1, *g));
      return AttrValue(SubgraphAttr{std::move(g)});
    }
  }
  return unsupported("has an unknown kind " + std::to_string(static_cast<int>(a.value_type())) +
                     " (written by a newer AMPRT?)");
}

Status read_index_list(const FbVector<int32_t>* ids, size_t num_values, bool allow_absent,
                       const std::string& what, Budget& budget, std::vector<ValueId>& out) {
  if (!ids) return Status::ok();
  AMP_RETURN_IF_ERROR(budget.take(uint64_t{ids->size()} * sizeof(ValueId)));
  out.reserve(ids->size());
  for (flatbuffers::uoffset_t k = 0; k < ids->size(); ++k) {
    const int32_t id = ids->Get(k);
    const bool in_range = id >= 0 && static_cast<size_t>(id) < num_values;
    if (!in_range && !(allow_absent && id == kNoValue))
      return invalid_model(what + " " + std::to_string(k) + " refers to value " +
                           std::to_string(id) + ", out of range (the model has " +
                           std::to_string(num_values) + " values" +
                           (allow_absent ? "; -1 marks an absent optional" : "") + ")");
    out.push_back(id);
  }
  return Status::ok();
}

template <typename Table>
Status read_nodes(const Table& m, const FileView& file, Budget& budget, int depth, Graph& g) {
  if (!m.nodes()) return Status::ok();
  const auto& nodes = *m.nodes();
  AMP_RETURN_IF_ERROR(budget.take(uint64_t{nodes.size()} * sizeof(Node)));
  g.nodes.reserve(nodes.size());
  for (flatbuffers::uoffset_t i = 0; i < nodes.size(); ++i) {
    const fb::Node* fn = nodes.Get(i);
    if (!fn) return invalid_model("node " + std::to_string(i) + " is null");
    Node n;
    n.name = str(fn->name());
    AMP_RETURN_IF_ERROR(budget.take(n.name.size()));
    const std::string label = node_label(n.name, i);
    const std::string op = str(fn->op());
    auto op_type = op_from_name(op);
    if (!op_type)
      return unsupported("unknown op type '" + op + "' at node '" + n.name + "' (index " +
                         std::to_string(i) + ")");
    n.op = *op_type;
    n.op_version = fn->op_version();
    AMP_RETURN_IF_ERROR(
        read_index_list(fn->inputs(), g.values.size(), true, "input", budget, n.inputs)
            .with_context(label));
    AMP_RETURN_IF_ERROR(
        read_index_list(fn->outputs(), g.values.size(), true, "output", budget, n.outputs)
            .with_context(label));
    if (const auto* attrs = fn->attributes()) {
      for (const fb::Attribute* a : *attrs) {
        if (!a) return invalid_model(label + ": null attribute");
        const std::string name = str(a->name());
        AMP_RETURN_IF_ERROR(budget.take(name.size() + 64));
        if (n.attrs.has(name)) return invalid_model(label + ": duplicate attribute '" + name + "'");
        auto value = read_attr(*a, file, budget, depth);
        if (!value.is_ok())
          return Status(value.status().code(),
                        label + ": attribute '" + name + "' " + value.status().message());
        n.attrs.set(name, std::move(value).value());
      }
    }
    g.nodes.push_back(std::move(n));
  }
  return Status::ok();
}

template <typename Table>
Status read_graph_parts(const Table& m, const FileView& file, Budget& budget, int depth, Graph& g) {
  AMP_RETURN_IF_ERROR(read_values(m, file, budget, g));
  AMP_RETURN_IF_ERROR(read_nodes(m, file, budget, depth, g));
  AMP_RETURN_IF_ERROR(
      read_index_list(m.inputs(), g.values.size(), false, "graph input", budget, g.inputs));
  return read_index_list(m.outputs(), g.values.size(), false, "graph output", budget, g.outputs);
}

Status read_metadata(const fb::Metadata* md, Budget& budget, Metadata& out) {
  if (!md) return Status::ok();
  out.producer = str(md->producer());
  out.source_opset = md->source_opset();
  out.source_format = str(md->source_format());
  AMP_RETURN_IF_ERROR(budget.take(out.producer.size() + out.source_format.size()));
  if (const auto* props = md->properties()) {
    AMP_RETURN_IF_ERROR(
        budget.take(uint64_t{props->size()} * sizeof(std::pair<std::string, std::string>)));
    out.properties.reserve(props->size());
    for (const fb::KeyValue* kv : *props) {
      if (!kv) return invalid_model("null metadata property");
      std::string key = str(kv->key());
      std::string value = str(kv->value());
      AMP_RETURN_IF_ERROR(budget.take(key.size() + value.size()));
      out.properties.emplace_back(std::move(key), std::move(value));
    }
  }
  return Status::ok();
}

// Steps 1-9 of amp_reader.h over a whole file image.
Result<Graph> parse(const uint8_t* data, size_t size, std::shared_ptr<const void> keepalive) {
  // 1. size
  if (size < kAmpMinFileSize)
    return invalid_model("file too small: " + std::to_string(size) +
                         " bytes (an .amp file starts with a " + std::to_string(kAmpMinFileSize) +
                         "-byte header)");
  // FlatBuffers reads 8-byte scalars in place; both callers hand us aligned storage
  // (mmap: a page; std::vector: operator new).
  if (reinterpret_cast<uintptr_t>(data) % alignof(uint64_t) != 0)
    return internal_error(".amp image is not aligned");

  // 2. identifier
  if (std::memcmp(data + kAmpIdentifierOffset, kAmpFileIdentifier, 4) != 0)
    return invalid_model("not an .amp file: identifier is '" +
                         printable(data + kAmpIdentifierOffset, 4) + "' (expected '" +
                         kAmpFileIdentifier + "')");

  // 3. size prefix
  const uint64_t fb_len = flatbuffers::ReadScalar<flatbuffers::uoffset_t>(data);
  if (fb_len > size - kSizePrefix)
    return invalid_model("FlatBuffer length " + std::to_string(fb_len) + " exceeds the " +
                         std::to_string(size) + "-byte file (truncated?)");
  const uint64_t fb_end = kSizePrefix + fb_len;
  if (fb_end >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return invalid_model("FlatBuffer length " + std::to_string(fb_len) +
                         " exceeds FlatBuffers' 2 GB limit");
  flatbuffers::Verifier::Options opts;
  opts.max_depth = kMaxDepth;
  // Every distinct table takes at least 4 bytes, so only shared subtables reach this.
  opts.max_tables = static_cast<flatbuffers::uoffset_t>(fb_len / 4 + 1024);

  // 4. schema version, trusting nothing but the root table
  {
    flatbuffers::Verifier v(data, static_cast<size_t>(fb_end), opts);
    if (!v.VerifySizePrefixedBuffer<fb::ModelVersion>(kAmpFileIdentifier))
      return invalid_model("corrupt .amp header: the root table fails verification");
    const uint32_t version =
        flatbuffers::GetSizePrefixedRoot<fb::ModelVersion>(data)->schema_version();
    if (version == 0) return invalid_model("schema version is missing (0)");
    if (version > kAmpSchemaVersion)
      return unsupported("schema version " + std::to_string(version) +
                         " is newer than this AMPRT supports (" +
                         std::to_string(kAmpSchemaVersion) + ")");
  }

  // 5. the whole FlatBuffer
  {
    flatbuffers::Verifier v(data, static_cast<size_t>(fb_end), opts);
    if (!fb::VerifySizePrefixedModelBuffer(v))
      return invalid_model(
          "FlatBuffer verification failed: the model is corrupt or truncated, or nested too "
          "deeply (subgraphs nest at most " +
          std::to_string(kMaxSubgraphDepth) + " levels)");
  }
  const fb::Model& m = *fb::GetSizePrefixedModel(data);

  // 6-8. convert, checking what the Verifier cannot know
  Budget budget(16 * fb_end + (uint64_t{64} << 20));
  const FileView file{data, size, fb_end, keepalive};
  Graph g;
  AMP_RETURN_IF_ERROR(read_graph_parts(m, file, budget, 0, g));
  AMP_RETURN_IF_ERROR(read_metadata(m.metadata(), budget, g.metadata));

  // 9. structure
  AMP_RETURN_IF_ERROR(verify_graph(g));
  return g;
}

// Heap copy of a file for ReadOptions::use_mmap = false, aligned like a mapping would be
// so weights are 256-byte aligned in memory on both paths.
struct HeapFile {
  static constexpr std::align_val_t kAlign{kAmpWeightAlignment};
  uint8_t* data = nullptr;
  size_t size = 0;

  HeapFile() = default;
  HeapFile(const HeapFile&) = delete;
  HeapFile& operator=(const HeapFile&) = delete;
  ~HeapFile() {
    if (data) ::operator delete[](data, kAlign);
  }
};

Result<std::shared_ptr<const HeapFile>> read_whole_file(const std::string& path) {
  auto os_error = [&](const char* what) {
    return not_found(std::string(what) + " '" + path + "': " + std::strerror(errno));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("cannot open");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  struct stat st {};
  if (::fstat(fd, &st) != 0) return os_error("cannot stat");
  if (!S_ISREG(st.st_mode)) return not_found("cannot read '" + path + "': not a regular file");
  const uint64_t capacity = static_cast<uint64_t>(st.st_size);
  auto file = std::make_shared<HeapFile>();
  if (capacity <= SIZE_MAX)
    file->data = static_cast<uint8_t*>(::operator new[](
        capacity == 0 ? 1 : static_cast<size_t>(capacity), HeapFile::kAlign, std::nothrow));
  if (!file->data)
    return out_of_memory("cannot hold '" + path + "' (" + std::to_string(capacity) +
                         " bytes) in memory");
  while (file->size < capacity) {
    const ssize_t r =
        ::read(fd, file->data + file->size, static_cast<size_t>(capacity) - file->size);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return os_error("cannot read");
    if (r == 0) break;  // shrank while reading: parse what is there
    file->size += static_cast<size_t>(r);
  }
  return std::shared_ptr<const HeapFile>(std::move(file));
}

}  // namespace

Result<Graph> read_amp_file(const std::string& path, const ReadOptions& options) {
  if (!options.use_mmap) {
    AMP_ASSIGN_OR_RETURN(std::shared_ptr<const HeapFile> file, read_whole_file(path));
    const uint8_t* data = file->data;
    const size_t size = file->size;
    auto r = parse(data, size, std::move(file));
    if (!r.is_ok()) return r.status().with_context("'" + path + "'");
    return r;
  }
  AMP_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::open(path));
  return read_amp_mapped(std::move(file), path);
}

Result<Graph> read_amp_mapped(std::shared_ptr<const MappedFile> file, const std::string& path) {
  if (!file) return invalid_argument("read_amp_mapped: null file");
  const uint8_t* data = file->data();
  const size_t size = file->size();
  auto r = parse(data, size, std::move(file));
  if (!r.is_ok()) return r.status().with_context("'" + path + "'");
  return r;
}

Result<Graph> read_amp_bytes(std::shared_ptr<const std::vector<uint8_t>> bytes) {
  if (!bytes) return invalid_argument("read_amp_bytes: null buffer");
  const uint8_t* data = bytes->data();
  const size_t size = bytes->size();
  return parse(data, size, std::move(bytes));
}

}  // namespace amp::graph
