// The movement ops that only copy input 0's bytes into output 0, written once for every
// backend over a copy executor (as the elementwise family is):
//   Reshape, Flatten, Squeeze, Unsqueeze, Identity  the bytes unchanged under another
//       shape: one copy, none when the memory planner aliased output onto input
//   Transpose, DepthToSpace, SpaceToDepth  a strided read: the permuted view shape
//                            inference recorded
//   Expand                   a strided read: the input broadcast, stride 0 on broadcast axes
//   Tile                     output element (o_a) reads input element (o_a mod d_a)
//   Shape, Size, Constant    bytes fixed at prepare() (fixed_output.h), written out
//   ConstantOfShape          one recorded element, repeated
//   Dropout (inference)      the input unchanged, the optional mask all true
// A backend supplies Exec with
//   static constexpr int kMaxRank;                       // its plans' rank cap
//   using Plan = ...;                                    // built once in prepare()
//   static Plan make_plan(int rank, const int64_t* dims, const int64_t* src_strides);
//   static Status copy(const Plan&, const KernelArgs&, size_t elem_size);
//   static Status copy_bytes(void* dst, const void* src, size_t bytes, const KernelArgs&);
//   static Status tile(const KernelArgs&, int rank, const int64_t* in_dims,
//                      const int64_t* out_dims, size_t elem_size);
//   static Status write_bytes(void* dst, const std::vector<uint8_t>& host, const KernelArgs&);
//   static Status fill(void* dst, uint64_t bits, int64_t count, size_t elem_size,
//                      const KernelArgs&);
// and registers them all with add_copy_kernels<Exec>(registry, backend).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/common/element_access.h"
#include "kernels/common/fixed_output.h"
#include "kernels/common/kernel_checks.h"
#include "kernels/common/movement_io.h"
#include "kernels/kernel_registry.h"

namespace amp::kernels {

template <typename Exec>
class StridedCopyKernel final : public Kernel {
 public:
  explicit StridedCopyKernel(bool expand) : expand_(expand) {}

  Status prepare(const KernelConfig& cfg) override {
    std::vector<int64_t> dims, strides;
    if (expand_) {
      if (cfg.inputs.empty() || !cfg.inputs[0].present || cfg.outputs.empty() ||
          !cfg.outputs[0].present)
        return invalid_model("Expand: needs a data input and an output");
      dims = cfg.outputs[0].dims;
      strides.resize(dims.size());
      AMP_RETURN_IF_ERROR(expand_source_strides(cfg.inputs[0], cfg.outputs[0], strides.data()));
    } else {
      AMP_ASSIGN_OR_RETURN(PermutedCopy p, check_permute_io(cfg));
      dims = std::move(p.dims);
      strides = std::move(p.strides);
    }
    const int rank = static_cast<int>(dims.size());
    if (rank > Exec::kMaxRank)
      return unsupported(op_label(cfg) + ": rank " + std::to_string(rank) + " exceeds " +
                         std::to_string(Exec::kMaxRank));
    plan_ = Exec::make_plan(rank, dims.data(), strides.data());
    elem_ = dtype_size(cfg.inputs[0].dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override { return Exec::copy(plan_, a, elem_); }

 private:
  const bool expand_;
  typename Exec::Plan plan_{};
  size_t elem_ = 0;
};

template <typename Exec>
class ViewKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_and_output(cfg));
    const TensorDesc& in = cfg.inputs[0];
    const TensorDesc& out = cfg.outputs[0];
    if (in.numel() != out.numel())
      return invalid_model(op_label(cfg) + ": output shape " + dims_to_string(out.dims) +
                           " does not hold the " + std::to_string(in.numel()) +
                           " elements of input shape " + dims_to_string(in.dims));
    bytes_ = in.bytes();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return Exec::copy_bytes(a.outputs[0], a.inputs[0], bytes_, a);
  }

 private:
  size_t bytes_ = 0;
};

template <typename Exec>
class TileKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(shape_, check_tile_io(cfg));
    if (shape_.rank() > Exec::kMaxRank)
      return unsupported("Tile: rank " + std::to_string(shape_.rank()) + " exceeds " +
                         std::to_string(Exec::kMaxRank));
    elem_ = dtype_size(cfg.inputs[0].dtype);
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return Exec::tile(a, shape_.rank(), shape_.in_dims.data(), shape_.out_dims.data(), elem_);
  }

 private:
  TileShape shape_;
  size_t elem_ = 0;
};

template <typename Exec>
class FixedOutputKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(bytes_, fixed_output_bytes(cfg));
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    return Exec::write_bytes(a.outputs[0], bytes_, a);
  }

 private:
  std::vector<uint8_t> bytes_;  // immutable after prepare(): run() stays const and shareable
};

template <typename Exec>
class ConstantOfShapeKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(fill_, constant_of_shape_fill(cfg));
    return Status::ok();
  }
  Status run(const KernelArgs& a) const override {
    return Exec::fill(a.outputs[0], fill_.bits, fill_.numel, fill_.elem_size, a);
  }

 private:
  FillElement fill_;
};

// Dropout at inference: Y = X and mask = true. Training mode (input 2) draws random numbers,
// which an inference runtime does not: a constant true with a ratio that may be non-zero,
// or a training mode computed at run time, is unsupported. (Before opset 12 there is no
// training mode: Dropout is always this.)
template <typename Exec>
class DropoutKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_data_and_output(cfg));
    const TensorDesc& in = cfg.inputs[0];
    if (cfg.outputs[0].dims != in.dims)
      return invalid_model(op_label(cfg) + ": output 0 must have the input's shape");
    if (cfg.inputs.size() > 2 && cfg.inputs[2].present) {
      const TensorDesc& training = cfg.inputs[2];
      if (training.constant_data == nullptr)
        return unsupported(op_label(cfg) +
                           ": training_mode is computed at run time; an inference runtime "
                           "needs it to be a constant false");
      const bool on = *static_cast<const uint8_t*>(training.constant_data) != 0;
      const bool zero_ratio =
          cfg.inputs.size() > 1 && cfg.inputs[1].present &&
          cfg.inputs[1].constant_data != nullptr &&
          load_as_double(cfg.inputs[1].constant_data, cfg.inputs[1].dtype, 0) == 0.0;
      if (on && !zero_ratio)
        return unsupported(op_label(cfg) +
                           ": training_mode is true, which drops random elements; an "
                           "inference runtime does not");
    }
    bytes_ = in.bytes();
    mask_ = cfg.outputs.size() > 1 && cfg.outputs[1].present;
    if (mask_ && (cfg.outputs[1].dtype != DType::kBool || cfg.outputs[1].dims != in.dims))
      return invalid_model(op_label(cfg) + ": the mask must be bool of the input's shape");
    numel_ = in.numel();
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    AMP_RETURN_IF_ERROR(Exec::copy_bytes(a.outputs[0], a.inputs[0], bytes_, a));
    if (mask_ && numel_ > 0) return Exec::fill(a.outputs[1], 1, numel_, 1, a);
    return Status::ok();
  }

 private:
  size_t bytes_ = 0;
  bool mask_ = false;
  int64_t numel_ = 0;
};

template <typename Exec>
void add_copy_kernels(KernelRegistry& r, Backend backend) {
  using graph::OpType;
  // in_place_input 0: a view's output may be the input's own buffer.
  for (OpType op : {OpType::kReshape, OpType::kFlatten, OpType::kSqueeze, OpType::kUnsqueeze,
                    OpType::kIdentity})
    r.add_all(
        op, backend, all_dtypes(), [] { return std::make_unique<ViewKernel<Exec>>(); }, 0);
  for (OpType op : {OpType::kTranspose, OpType::kDepthToSpace, OpType::kSpaceToDepth})
    r.add_all(op, backend, all_dtypes(),
              [] { return std::make_unique<StridedCopyKernel<Exec>>(false); });
  r.add_all(OpType::kExpand, backend, all_dtypes(),
            [] { return std::make_unique<StridedCopyKernel<Exec>>(true); });
  r.add_all(OpType::kTile, backend, all_dtypes(),
            [] { return std::make_unique<TileKernel<Exec>>(); });
  for (OpType op : {OpType::kShape, OpType::kSize, OpType::kConstant})
    r.add_all(op, backend, all_dtypes(),
              [] { return std::make_unique<FixedOutputKernel<Exec>>(); });
  r.add_all(OpType::kConstantOfShape, backend, {DType::kI64},
            [] { return std::make_unique<ConstantOfShapeKernel<Exec>>(); });
  r.add_all(
      OpType::kDropout, backend, float_dtypes(),
      [] { return std::make_unique<DropoutKernel<Exec>>(); }, 0);
}

}  // namespace amp::kernels
