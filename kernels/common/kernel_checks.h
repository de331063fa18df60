// prepare()-time helpers every backend's kernels use alike: the node's typed record, arity
// and dtype checks, integer parameter tensors, axis normalization, messages, and the
// part sizes of a Split. Host code only (compiles as C++17 for nvcc too).
//
//   AMP_RETURN_IF_ERROR(check_arity(cfg, 1, 2));
//   AMP_ASSIGN_OR_RETURN(const graph::SoftmaxAttrs* a, resolved_attrs<graph::SoftmaxAttrs>(cfg));
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

// The op name of the node being prepared, for messages ("Slice").
std::string op_label(const KernelConfig& cfg);

// The node's typed record (graph/ops/op_attrs.h), which shape inference filled: kernels
// read attributes there, never from the raw attribute map. internal_error when the node
// was not inferred (a runner that skipped infer_node) or holds another op's record.
template <typename A>
Result<const A*> resolved_attrs(const KernelConfig& cfg) {
  const A* a = cfg.node != nullptr ? std::get_if<A>(&cfg.node->resolved) : nullptr;
  if (a == nullptr)
    return internal_error(op_label(cfg) +
                          ": the node has no resolved attributes (shape inference did not run)");
  return a;
}

// resolved_attrs for ops whose output has the input's shape (Softmax, the norms), after
// checking output 0's dims against input 0's.
template <typename A>
Result<const A*> same_shape_attrs(const KernelConfig& cfg) {
  if (cfg.inputs.empty() || cfg.outputs.empty() || cfg.outputs[0].dims != cfg.inputs[0].dims)
    return invalid_model(op_label(cfg) + ": output shape differs from input");
  return resolved_attrs<A>(cfg);
}

// Requires between min_inputs and max_inputs inputs, the first min_inputs present, and
// a present output 0.
Status check_arity(const KernelConfig& cfg, size_t min_inputs, size_t max_inputs);

// The common preconditions of single-input kernels: input 0 and output 0 present with
// dtype `t` (output 0 dtype `out` when given), rank <= kReduceMaxRank (reduce_plan.h).
Status check_io(const KernelConfig& cfg, DType t, DType out = DType::kUndefined);

// The data-in, data-out ops whose output keeps the input's rank and dtype (Slice, Pad,
// Resize): input 0 and output 0 present, rank at most max_rank (unsupported beyond),
// output of the input's rank and dtype; messages name the op.
Status check_same_rank_io(const KernelConfig& cfg, int max_rank);

// Product of dims[begin, end).
inline int64_t dims_product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

// Requires cfg.inputs[i].dtype (cfg.outputs[0].dtype) == want.
Status check_input_dtype(const KernelConfig& cfg, size_t i, DType want);
Status check_output_dtype(const KernelConfig& cfg, DType want);

// Integer parameter tensors (axes, starts, pads, ...) of dtype i32 or i64 widened to
// int64. False for other dtypes.
bool read_int_param(const void* data, DType dtype, int64_t count, int64_t* out);

// Row-major strides of dims[0..rank).
void contiguous_strides(int rank, const int64_t* dims, int64_t* strides);
// The same, as a vector.
inline std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Strides to read an input of dims `in` broadcast to `out` (numpy rules): 0 on broadcast
// axes. `in` is right-aligned against `out`.
inline std::vector<int64_t> broadcast_strides(const std::vector<int64_t>& in,
                                              const std::vector<int64_t>& out) {
  const std::vector<int64_t> in_strides = contiguous_strides(in);
  std::vector<int64_t> s(out.size(), 0);
  const size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) s[offset + i] = in[i] == 1 ? 0 : in_strides[i];
  return s;
}

// axis in [-rank, rank) -> [0, rank); -1 when out of range.
inline int64_t normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return -1;
  return axis < 0 ? axis + rank : axis;
}

// "[2,3,4]" for messages.
std::string dims_to_string(const std::vector<int64_t>& dims);
std::string dims_to_string(int rank, const int64_t* dims);

// Expand: the element strides that read `in` broadcast to `out` (0 on broadcast axes),
// written to strides[0..out.rank()); invalid_model naming both shapes when `in` does not
// broadcast to `out` or their dtypes differ.
Status expand_source_strides(const TensorDesc& in, const TensorDesc& out, int64_t* strides);

// The sizes of a Split's parts along `axis`: from a constant 'split' input; else from the
// outputs' static shapes (shape inference applied the opset's rules); else, with an
// unused output, by the equal-split rule (opset 18 lets the last part be smaller:
// ceil-sized chunks).
Result<std::vector<int64_t>> split_part_sizes(const KernelConfig& cfg, size_t axis);

}  // namespace amp::kernels
