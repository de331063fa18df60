#include "graph/ops/infer_util.h"

#include <algorithm>

namespace amp::graph {
namespace {

const char* set_description(DTypeSet set) {
  switch (set) {
    case DTypeSet::kFloat:
      return "a float type";
    case DTypeSet::kNumeric:
      return "a numeric type";
    case DTypeSet::kSignedNumeric:
      return "a signed numeric type";
    case DTypeSet::kFloatOrI32I64:
      return "a float type, i32 or i64";
    case DTypeSet::kFloatOr8Bit:
      return "a float type, i8 or u8";
    case DTypeSet::kIndex:
      return "i32 or i64";
    case DTypeSet::kI64:
      return "i64";
    case DTypeSet::kBool:
      return "bool";
    case DTypeSet::kNumericOrBool:
      return "a numeric type or bool";
    case DTypeSet::kAny:
      return "a defined dtype";
  }
  return "?";
}

std::string input_name(size_t index) {
  return "input " + std::to_string(index);
}

}  // namespace

bool dtype_in(DType t, DTypeSet set) {
  if (t == DType::kUndefined) return false;
  const bool signed_int =
      t == DType::kI8 || t == DType::kI16 || t == DType::kI32 || t == DType::kI64;
  switch (set) {
    case DTypeSet::kFloat:
      return is_float(t);
    case DTypeSet::kNumeric:
      return is_float(t) || is_integer(t);
    case DTypeSet::kSignedNumeric:
      return is_float(t) || signed_int;
    case DTypeSet::kFloatOrI32I64:
      return is_float(t) || t == DType::kI32 || t == DType::kI64;
    case DTypeSet::kFloatOr8Bit:
      return is_float(t) || t == DType::kI8 || t == DType::kU8;
    case DTypeSet::kIndex:
      return t == DType::kI32 || t == DType::kI64;
    case DTypeSet::kI64:
      return t == DType::kI64;
    case DTypeSet::kBool:
      return t == DType::kBool;
    case DTypeSet::kNumericOrBool:
      return is_float(t) || is_integer(t) || t == DType::kBool;
    case DTypeSet::kAny:
      return true;
  }
  return false;
}

Status check_dtype(const Value& v, size_t index, DTypeSet set) {
  if (dtype_in(v.dtype, set)) return Status::ok();
  return invalid_model(input_name(index) + " has dtype " + std::string(dtype_name(v.dtype)) +
                       ", expected " + set_description(set));
}

Status check_same_dtype(const Value& v, size_t index, const Value& ref, size_t ref_index) {
  if (v.dtype == ref.dtype) return Status::ok();
  return invalid_model(input_name(index) + " has dtype " + std::string(dtype_name(v.dtype)) +
                       ", expected " + std::string(dtype_name(ref.dtype)) + " (the dtype of " +
                       input_name(ref_index) + ")");
}

Status require_input(const std::vector<const Value*>& inputs, size_t index) {
  if (index < inputs.size() && inputs[index] != nullptr) return Status::ok();
  return invalid_model(input_name(index) + " is required but absent");
}

const Value* optional_input(const std::vector<const Value*>& inputs, size_t index) {
  return index < inputs.size() ? inputs[index] : nullptr;
}

Result<int64_t> normalize_axis(int64_t axis, int64_t rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    return invalid_model(what + " " + std::to_string(axis) + " is out of range for rank " +
                         std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

Result<std::vector<int64_t>> normalize_axes(const std::vector<int64_t>& axes, int64_t rank,
                                            const std::string& what) {
  std::vector<int64_t> out;
  std::vector<char> seen(static_cast<size_t>(rank), 0);
  for (int64_t a : axes) {
    AMP_ASSIGN_OR_RETURN(int64_t n, normalize_axis(a, rank, what + " entry"));
    if (seen[static_cast<size_t>(n)])
      return invalid_model(what + " names axis " + std::to_string(n) + " twice");
    seen[static_cast<size_t>(n)] = 1;
    out.push_back(n);
  }
  return out;
}

std::optional<Dim> broadcast_dim(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static()) {
    if (a.value == b.value || b.value == 1) return a;
    if (a.value == 1) return b;
    return std::nullopt;
  }
  if (a.is_static()) return a.value == 1 ? b : a;  // b symbolic: it must equal a (or be 1)
  if (b.is_static()) return b.value == 1 ? a : b;
  if (!a.symbol.empty() && a.symbol == b.symbol) return a;
  return Dim();  // two different unknowns: either may be 1
}

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.rank(), b.rank());
  Shape out;
  out.dims.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned: missing leading dims act as 1.
    const Dim da = i + a.rank() >= rank ? a.dims[i + a.rank() - rank] : Dim(1);
    const Dim db = i + b.rank() >= rank ? b.dims[i + b.rank() - rank] : Dim(1);
    std::optional<Dim> d = broadcast_dim(da, db);
    if (!d) return invalid_model("cannot broadcast " + a.to_string() + " with " + b.to_string());
    out.dims[i] = *d;
  }
  return out;
}

Result<std::optional<Shape>> broadcast_values(const std::vector<const Value*>& values) {
  std::optional<Shape> out;
  for (const Value* v : values) {
    if (!v->shape) return std::optional<Shape>();
    if (!out) {
      out = *v->shape;
      continue;
    }
    AMP_ASSIGN_OR_RETURN(Shape s, broadcast_shapes(*out, *v->shape));
    out = std::move(s);
  }
  return out;
}

std::optional<Dim> merge_dims(const Dim& a, const Dim& b) {
  if (a.is_static() && b.is_static())
    return a.value == b.value ? std::optional<Dim>(a) : std::nullopt;
  if (a.is_static()) return a;
  if (b.is_static()) return b;
  if (a.symbol == b.symbol) return a;
  // Two different names for what must be one size: keep the first; either is right.
  return a.symbol.empty() ? b : a;
}

Result<std::optional<std::vector<int64_t>>> const_ints(const Value& v, size_t index) {
  if (!v.is_constant()) return std::optional<std::vector<int64_t>>();
  if (is_float(v.constant->dtype()) || v.constant->dtype() == DType::kUndefined)
    return invalid_model(input_name(index) + " must hold integers, got " +
                         std::string(dtype_name(v.constant->dtype())));
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> values, v.constant->to_i64_vector());
  return std::optional<std::vector<int64_t>>(std::move(values));
}

Result<std::optional<std::vector<double>>> const_floats(const Value& v, size_t index) {
  if (!v.is_constant()) return std::optional<std::vector<double>>();
  if (!is_float(v.constant->dtype()))
    return invalid_model(input_name(index) + " must hold floats, got " +
                         std::string(dtype_name(v.constant->dtype())));
  return std::optional<std::vector<double>>(v.constant->to_f64_vector());
}

Status check_1d(const Value& v, size_t index) {
  if (!v.shape || v.shape->rank() == 1) return Status::ok();
  return invalid_model(input_name(index) + " must be 1-D, got rank " +
                       std::to_string(v.shape->rank()));
}

std::optional<int64_t> static_length(const Value& v) {
  if (!v.shape || v.shape->rank() != 1 || !v.shape->dims[0].is_static()) return std::nullopt;
  return v.shape->dims[0].value;
}

Status check_scalar(const Value& v, size_t index, bool allow_1) {
  if (!v.shape) return Status::ok();
  if (v.shape->rank() == 0) return Status::ok();
  if (allow_1 && v.shape->rank() == 1 && v.shape->dims[0] == Dim(1)) return Status::ok();
  return invalid_model(input_name(index) + " must be a scalar, got shape " + v.shape->to_string());
}

Shape unknown_dims(size_t rank) {
  Shape s;
  s.dims.resize(rank);
  return s;
}

Status check_rank_limit(int64_t rank) {
  if (rank <= kMaxRank) return Status::ok();
  return invalid_model("output rank " + std::to_string(rank) + " exceeds the maximum " +
                       std::to_string(kMaxRank));
}

Result<Dim> dims_product(const std::vector<Dim>& dims) {
  int64_t product = 1;
  const Dim* symbol = nullptr;
  int symbolic = 0;
  for (const Dim& d : dims) {
    if (d.is_static()) {
      std::optional<int64_t> p = checked_mul(product, d.value);
      if (!p) return overflow_error("the product of dims");
      product = *p;
    } else {
      ++symbolic;
      symbol = &d;
    }
  }
  if (symbolic == 0) return Dim(product);
  if (product == 0) return Dim(0);  // zero times anything
  if (symbolic == 1 && product == 1) return *symbol;
  return dims_product_sym(dims).to_dim();  // "batch*seq" (unknown if a dim is unnamed)
}

std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

Status overflow_error(const std::string& what) {
  return invalid_model(what + " overflows int64");
}

void set_output(std::vector<OutputInfo>& outputs, size_t k, DType dtype,
                std::optional<Shape> shape) {
  if (k >= outputs.size()) return;
  outputs[k].dtype = dtype;
  outputs[k].shape = std::move(shape);
}

std::string ints_to_string(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

Result<std::vector<int64_t>> read_int_list(const Node& node, const std::string& name, size_t size,
                                           int64_t def, int64_t min) {
  if (!node.attrs.has(name)) return std::vector<int64_t>(size, def);
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> v, node.attrs.get_ints(name));
  if (v.size() != size)
    return invalid_model("attribute '" + name + "' has " + std::to_string(v.size()) +
                         " entries, expected " + std::to_string(size));
  for (int64_t x : v)
    if (x < min)
      return invalid_model("attribute '" + name + "' " + ints_to_string(v) +
                           " has an entry below " + std::to_string(min));
  return v;
}

Result<bool> read_flag(const Node& node, const std::string& name, int64_t def) {
  AMP_ASSIGN_OR_RETURN(int64_t v, node.attrs.get_int(name, def));
  if (v != 0 && v != 1)
    return invalid_model("attribute '" + name + "' is " + std::to_string(v) + ", expected 0 or 1");
  return v == 1;
}

std::optional<AxisGeometry> axis_geometry(const Shape& s, int64_t axis, bool rows) {
  if (!s.is_static()) return std::nullopt;
  AxisGeometry g;
  for (size_t i = 0; i < s.rank(); ++i) {
    const int64_t d = s.dims[i].value;
    const int64_t a = static_cast<int64_t>(i);
    int64_t& part = a < axis ? g.outer : (a == axis || rows) ? g.len : g.inner;
    // A part beyond int64 (a hostile shape, possibly with a zero dim elsewhere; the memory
    // planner refuses such a tensor): no geometry rather than an overflowing product.
    if (__builtin_mul_overflow(part, d, &part)) return std::nullopt;
  }
  return g;
}

}  // namespace amp::graph
