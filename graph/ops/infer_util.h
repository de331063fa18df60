// Helpers shared by the per-op inference rules (infer_*.cc): dtype checks with uniform
// messages, axis normalization, multidirectional broadcasting with symbolic dims,
// reading constant inputs, and overflow-checked dim arithmetic.
//
// Everything here validates data that comes from untrusted model files, so each helper
// returns a Status/Result with a message fit for the user ("input 0 has dtype i64,
// expected a float type"); the caller (infer_node) prefixes the node's name.
//
//   AMP_RETURN_IF_ERROR(require_input(inputs, 0));
//   AMP_RETURN_IF_ERROR(check_dtype(*inputs[0], 0, DTypeSet::kFloat));
//   AMP_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(raw_axis, rank));
//   AMP_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> axes, const_ints(*inputs[1], 1));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/ir/limits.h"
#include "graph/ops/op_schema.h"
#include "runtime/common/status.h"

namespace amp::graph {

// The dtype families ONNX type constraints use.
enum class DTypeSet {
  kFloat,          // f32 f16 bf16 f64
  kNumeric,        // floats and every integer type
  kSignedNumeric,  // floats and i8 i16 i32 i64
  kFloatOrI32I64,  // floats, i32, i64 (Pow base, MatMul, Gemm)
  kFloatOr8Bit,    // floats, i8, u8 (MaxPool)
  kIndex,          // i32 i64 (Gather indices, Slice parameters)
  kI64,            // shape-like inputs (Reshape shape, Expand shape, axes)
  kBool,
  kNumericOrBool,
  kAny,  // any defined dtype
};

bool dtype_in(DType t, DTypeSet set);

// "input 0 has dtype i64, expected a float type"
Status check_dtype(const Value& v, size_t index, DTypeSet set);
// "input 1 has dtype f16, expected f32 (the dtype of input 0)"
Status check_same_dtype(const Value& v, size_t index, const Value& ref, size_t ref_index);
// "input 1 is required but absent" when inputs[index] is missing or nullptr.
Status require_input(const std::vector<const Value*>& inputs, size_t index);
// The input when present, nullptr when absent or beyond the node's inputs.
const Value* optional_input(const std::vector<const Value*>& inputs, size_t index);

// Maps an ONNX axis in [-rank, rank-1] to [0, rank-1]. `what` names it in the message:
// "axis 4 is out of range for rank 4".
Result<int64_t> normalize_axis(int64_t axis, int64_t rank, const std::string& what = "axis");
// Normalizes every axis and rejects repeats ("axes has 1 twice").
Result<std::vector<int64_t>> normalize_axes(const std::vector<int64_t>& axes, int64_t rank,
                                            const std::string& what = "axes");

// Multidirectional (numpy) broadcasting of one dim pair; nullopt when incompatible.
// Static: equal, or one is 1. "N" with "N" or 1 gives "N"; "N" with static k > 1 gives k
// (N must be k at run time); "N" with "M" or unnamed gives unnamed.
std::optional<Dim> broadcast_dim(const Dim& a, const Dim& b);
// Broadcasts two shapes right-aligned: "cannot broadcast [2,3] with [4]".
Result<Shape> broadcast_shapes(const Shape& a, const Shape& b);
// Broadcasts the shapes of the given values; nullopt when any shape is unknown.
Result<std::optional<Shape>> broadcast_values(const std::vector<const Value*>& values);
// Two dims that must be equal (Concat's other axes, MatMul's K): static wins over
// symbolic, same name keeps the name; nullopt when both are static and differ.
std::optional<Dim> merge_dims(const Dim& a, const Dim& b);

// The integer contents of a constant input (i8..i64, u8, bool), widened to int64;
// nullopt when the value is computed at run time. Float data is an error.
Result<std::optional<std::vector<int64_t>>> const_ints(const Value& v, size_t index);
// The contents of a constant float input widened to double; nullopt when not constant.
Result<std::optional<std::vector<double>>> const_floats(const Value& v, size_t index);
// Checks that v is 1-D (when its shape is known): "input 1 must be 1-D, got rank 2".
Status check_1d(const Value& v, size_t index);
// The length of a 1-D input when statically known; nullopt otherwise.
std::optional<int64_t> static_length(const Value& v);
// Checks that v holds one element (rank 0, or rank 1 of length 1 when allow_1 is set).
Status check_scalar(const Value& v, size_t index, bool allow_1);

// A shape of `rank` unnamed symbolic dims: the rank is known, the sizes are not.
Shape unknown_dims(size_t rank);
// Output ranks read from an input's length (Reshape's shape, ConstantOfShape, ...) are
// capped at kMaxRank (ir/limits.h): a file may declare a 1-D shape tensor of 2^62 entries.
// "output rank 100 exceeds the maximum 64" when rank > kMaxRank.
Status check_rank_limit(int64_t rank);
// The product of dims: static when all are static, the one symbol when it is the only
// non-1 factor, else unnamed. Errors on overflow.
Result<Dim> dims_product(const std::vector<Dim>& dims);

// Overflow-checked arithmetic on sizes read from files; nullopt on overflow.
std::optional<int64_t> checked_add(int64_t a, int64_t b);
std::optional<int64_t> checked_sub(int64_t a, int64_t b);
std::optional<int64_t> checked_mul(int64_t a, int64_t b);

// Error helper for the arithmetic above: "<what> overflows int64".
Status overflow_error(const std::string& what);

// Fills output slot k (the slot exists even when the node's output is absent).
void set_output(std::vector<OutputInfo>& outputs, size_t k, DType dtype,
                std::optional<Shape> shape);

// [outer, len, inner] around `axis` (normalized) of a static shape: len = dims[axis], or
// the product of dims[axis:] when `rows` (the 2-D row view); nullopt while any dim is
// symbolic or when the element count overflows int64.
std::optional<AxisGeometry> axis_geometry(const Shape& s, int64_t axis, bool rows = false);

// An ints attribute of `size` entries, each >= `min`; `def` fills it when absent.
Result<std::vector<int64_t>> read_int_list(const Node& node, const std::string& name, size_t size,
                                           int64_t def, int64_t min);
// An int attribute that must be 0 or 1.
Result<bool> read_flag(const Node& node, const std::string& name, int64_t def);

// "[1, 2, 3]" for messages.
std::string ints_to_string(const std::vector<int64_t>& v);

}  // namespace amp::graph
