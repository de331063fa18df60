#include "graph/onnx/onnx_tensor.h"

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include "graph/ir/shape.h"
#include "graph/onnx/onnx_internal.h"

namespace amp::graph::onnx_import {
namespace {

namespace fs = std::filesystem;

struct ExternalRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

Result<uint64_t> parse_u64(const std::string& s, const std::string& what) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty())
    return invalid_model(what + " '" + s + "' is not a non-negative integer");
  return v;
}

Result<ExternalRef> parse_external_ref(const onnx::TensorProto& t, const std::string& label) {
  ExternalRef ref;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") {
      ref.location = kv.value();
    } else if (kv.key() == "offset") {
      AMP_ASSIGN_OR_RETURN(ref.offset, parse_u64(kv.value(), label + ": external offset"));
    } else if (kv.key() == "length") {
      AMP_ASSIGN_OR_RETURN(ref.length, parse_u64(kv.value(), label + ": external length"));
    }
    // "checksum" and unknown keys are informational.
  }
  if (ref.location.empty()) return invalid_model(label + ": external data without a location");
  return ref;
}

// A location must name a file inside the model directory: no absolute paths and no
// ".." that climbs out of it (a hostile model must not read /etc/passwd). The check is
// lexical; symlinks inside the directory are trusted (hub caches use them).
Result<fs::path> resolve_external_path(const std::string& dir, const std::string& location,
                                       const std::string& label) {
  const fs::path p(location);
  if (p.is_absolute() || p.has_root_name() || p.has_root_directory())
    return invalid_model(label + ": external data location '" + location +
                         "' is an absolute path; it must be relative to the model directory");
  const fs::path normal = p.lexically_normal();
  if (normal.empty() || normal == "." || *normal.begin() == "..")
    return invalid_model(label + ": external data location '" + location +
                         "' escapes the model directory");
  return fs::path(dir) / normal;
}

Result<std::vector<uint8_t>> read_file_range(const fs::path& path, uint64_t offset, uint64_t length,
                                             const std::string& label) {
  std::error_code ec;
  const uint64_t file_size = fs::file_size(path, ec);
  if (ec) return not_found(label + ": cannot open external data file '" + path.string() + "'");
  if (offset > file_size || length > file_size - offset)
    return invalid_model(label + ": external data [" + std::to_string(offset) + ", +" +
                         std::to_string(length) + ") lies outside '" + path.string() + "' (" +
                         std::to_string(file_size) + " bytes)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(label + ": cannot open external data file '" + path.string() + "'");
  std::vector<uint8_t> bytes(length);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length));
  if (!in) return invalid_model(label + ": short read from '" + path.string() + "'");
  return bytes;
}

Result<TensorData> decode_external(const onnx::TensorProto& t, DType dtype,
                                   std::vector<int64_t> dims, uint64_t expected_bytes,
                                   const std::string& label, const TensorSource& src) {
  AMP_ASSIGN_OR_RETURN(ExternalRef ref, parse_external_ref(t, label));
  if (src.external_dir.empty())
    return invalid_argument(label + ": uses external data ('" + ref.location +
                            "') but no external data directory was given");
  AMP_ASSIGN_OR_RETURN(fs::path path, resolve_external_path(src.external_dir, ref.location, label));
  // ONNX makes length optional; the tensor's own size is the only sensible default.
  const uint64_t length = ref.length.value_or(expected_bytes);
  if (length != expected_bytes)
    return invalid_model(label + ": external data length " + std::to_string(length) +
                         " does not match " + std::to_string(expected_bytes) +
                         " bytes of its dtype and shape");
  AMP_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                       read_file_range(path, ref.offset, length, label));
  return TensorData::from_bytes(dtype, std::move(dims), std::move(bytes));
}

// Copies repeated-field elements into `Dst`-typed little-endian bytes.
template <typename Dst, typename Field>
std::vector<uint8_t> pack(const Field& field) {
  std::vector<uint8_t> bytes(static_cast<size_t>(field.size()) * sizeof(Dst));
  for (int i = 0; i < field.size(); ++i) {
    const Dst v = static_cast<Dst>(field.Get(i));
    std::memcpy(bytes.data() + static_cast<size_t>(i) * sizeof(Dst), &v, sizeof(Dst));
  }
  return bytes;
}

// The typed field that carries `dtype` and its element count.
std::vector<uint8_t> typed_bytes(const onnx::TensorProto& t, DType dtype, int* count) {
  switch (dtype) {
    case DType::kF32:
      *count = t.float_data_size();
      return pack<float>(t.float_data());
    case DType::kF64:
      *count = t.double_data_size();
      return pack<double>(t.double_data());
    case DType::kI64:
      *count = t.int64_data_size();
      return pack<int64_t>(t.int64_data());
    case DType::kI32:
      *count = t.int32_data_size();
      return pack<int32_t>(t.int32_data());
    case DType::kI16:
      *count = t.int32_data_size();
      return pack<int16_t>(t.int32_data());
    case DType::kI8:
      *count = t.int32_data_size();
      return pack<int8_t>(t.int32_data());
    case DType::kU8:
      *count = t.int32_data_size();
      return pack<uint8_t>(t.int32_data());
    case DType::kBool:
      *count = t.int32_data_size();
      return pack<bool>(t.int32_data());
    // fp16/bf16 bit patterns sit in the low 16 bits of each int32.
    case DType::kF16:
      *count = t.int32_data_size();
      return pack<uint16_t>(t.int32_data());
    case DType::kBF16:
      *count = t.int32_data_size();
      return pack<uint16_t>(t.int32_data());
    case DType::kUndefined:
      *count = 0;
      return {};
  }
  *count = 0;
  return {};
}

Result<TensorData> decode_typed(const onnx::TensorProto& t, DType dtype, std::vector<int64_t> dims,
                                int64_t numel, const std::string& label) {
  int count = 0;
  std::vector<uint8_t> bytes = typed_bytes(t, dtype, &count);
  if (count != numel)
    return invalid_model(label + ": holds " + std::to_string(count) + " " +
                         std::string(dtype_name(dtype)) + " elements in its typed field but " +
                         "its shape " + Shape::from_static(dims).to_string() + " needs " +
                         std::to_string(numel));
  return TensorData::from_bytes(dtype, std::move(dims), std::move(bytes));
}

// Takes raw_data over from the proto instead of copying it.
Result<TensorData> decode_raw(onnx::TensorProto& t, DType dtype, std::vector<int64_t> dims,
                              uint64_t expected_bytes, const std::string& label) {
  std::shared_ptr<std::string> raw(t.release_raw_data());
  if (!raw) raw = std::make_shared<std::string>();
  if (raw->size() != expected_bytes)
    return invalid_model(label + ": raw_data has " + std::to_string(raw->size()) + " bytes but " +
                         std::string(dtype_name(dtype)) + " " +
                         Shape::from_static(dims).to_string() + " needs " +
                         std::to_string(expected_bytes));
  const auto* data = reinterpret_cast<const uint8_t*>(raw->data());
  const size_t size = raw->size();
  return TensorData::view(dtype, std::move(dims), std::move(raw), data, size);
}

}  // namespace

Result<TensorData> decode_tensor(onnx::TensorProto& t, const std::string& label,
                                 const TensorSource& src) {
  if (t.data_type() == 0) return invalid_model(label + ": has no data_type");
  const std::optional<DType> dtype = dtype_from_onnx(t.data_type());
  if (!dtype) return unsupported(label + " has dtype " + onnx_dtype_name(t.data_type()));
  if (t.has_segment()) return unsupported(label + " is a segmented tensor");
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  const std::optional<int64_t> numel = checked_numel(dims);
  if (!numel)
    return invalid_model(label + ": negative or overflowing dims " +
                         Shape::from_static(dims).to_string());
  const uint64_t n = static_cast<uint64_t>(*numel);
  if (n > UINT64_MAX / dtype_size(*dtype)) return invalid_model(label + ": byte size overflows");
  const uint64_t expected_bytes = n * dtype_size(*dtype);

  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    return decode_external(t, *dtype, std::move(dims), expected_bytes, label, src);
  if (t.has_raw_data()) return decode_raw(t, *dtype, std::move(dims), expected_bytes, label);
  return decode_typed(t, *dtype, std::move(dims), *numel, label);
}

namespace {

// Old exporters sometimes leave `type` unset; ONNX readers fall back to the field set.
int attribute_type(const onnx::AttributeProto& a) {
  if (a.type() != onnx::AttributeProto_AttributeType_UNDEFINED) return a.type();
  if (a.has_f()) return onnx::AttributeProto_AttributeType_FLOAT;
  if (a.has_i()) return onnx::AttributeProto_AttributeType_INT;
  if (a.has_s()) return onnx::AttributeProto_AttributeType_STRING;
  if (a.has_t()) return onnx::AttributeProto_AttributeType_TENSOR;
  if (a.has_g()) return onnx::AttributeProto_AttributeType_GRAPH;
  if (a.floats_size() > 0) return onnx::AttributeProto_AttributeType_FLOATS;
  if (a.ints_size() > 0) return onnx::AttributeProto_AttributeType_INTS;
  if (a.strings_size() > 0) return onnx::AttributeProto_AttributeType_STRINGS;
  return onnx::AttributeProto_AttributeType_UNDEFINED;
}

Status unsupported_kind(const std::string& label, const std::string& name, const char* kind) {
  return unsupported(label + ": attribute '" + name + "' of kind " + kind);
}

}  // namespace

Status convert_attribute(onnx::AttributeProto& a, const std::string& label, const TensorSource& src,
                         Attributes& out) {
  const std::string& name = a.name();
  if (name.empty()) return invalid_model(label + ": attribute without a name");
  switch (attribute_type(a)) {
    case onnx::AttributeProto_AttributeType_FLOAT:
      out.set(name, a.f());
      return Status::ok();
    case onnx::AttributeProto_AttributeType_INT:
      out.set(name, a.i());
      return Status::ok();
    case onnx::AttributeProto_AttributeType_STRING:
      out.set(name, a.s());
      return Status::ok();
    case onnx::AttributeProto_AttributeType_FLOATS:
      out.set(name, std::vector<float>(a.floats().begin(), a.floats().end()));
      return Status::ok();
    case onnx::AttributeProto_AttributeType_INTS:
      out.set(name, std::vector<int64_t>(a.ints().begin(), a.ints().end()));
      return Status::ok();
    case onnx::AttributeProto_AttributeType_STRINGS:
      out.set(name, std::vector<std::string>(a.strings().begin(), a.strings().end()));
      return Status::ok();
    case onnx::AttributeProto_AttributeType_TENSOR: {
      AMP_ASSIGN_OR_RETURN(TensorData t,
                           decode_tensor(*a.mutable_t(), label + " attribute '" + name + "'", src));
      out.set(name, std::move(t));
      return Status::ok();
    }
    case onnx::AttributeProto_AttributeType_GRAPH:
      return unsupported_kind(label, name, "GRAPH");
    case onnx::AttributeProto_AttributeType_GRAPHS:
      return unsupported_kind(label, name, "GRAPHS");
    case onnx::AttributeProto_AttributeType_TENSORS:
      return unsupported_kind(label, name, "TENSORS");
    case onnx::AttributeProto_AttributeType_SPARSE_TENSOR:
      return unsupported_kind(label, name, "SPARSE_TENSOR");
    case onnx::AttributeProto_AttributeType_SPARSE_TENSORS:
      return unsupported_kind(label, name, "SPARSE_TENSORS");
    case onnx::AttributeProto_AttributeType_TYPE_PROTO:
      return unsupported_kind(label, name, "TYPE_PROTO");
    case onnx::AttributeProto_AttributeType_TYPE_PROTOS:
      return unsupported_kind(label, name, "TYPE_PROTOS");
    default:
      break;  // an int outside the enum: from a newer or broken writer
  }
  return invalid_model(label + ": attribute '" + name + "' has no value or an unknown kind");
}

}  // namespace amp::graph::onnx_import
