// Slice(data, starts, ends, axes?, steps?) and Gather(data, indices; axis).
//
// Slice is a strided view of the input (kernels/common/slice_plan.h), resolved in prepare()
// when its parameters are constant, else in run() into a stack-held view; either way the
// result must match the static output shape.
// Gather copies one inner block per (outer, index); indices are checked before any copy,
// and one out of range is an invalid_input error.
#include <algorithm>
#include <cstring>
#include <optional>

#include "kernels/common/checked_kernel.h"
#include "kernels/common/movement_io.h"
#include "kernels/common/slice_plan.h"
#include "kernels/cpu/channel_gather.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

class SliceKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(setup_, check_slice_io(cfg));
    resolved_ = setup_.all_constant;
    if (resolved_) {
      AMP_ASSIGN_OR_RETURN(const SliceView v, resolve_constant_slice(cfg, setup_.s));
      view_ = make_strided_view(setup_.s.rank, setup_.s.out_dims, v.strides, v.base);
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    StridedView v = view_;
    if (!resolved_) {
      const SliceStatic& s = setup_.s;
      int64_t base = 0, strides[kSliceMaxRank];
      int bad_axis = 0;
      const int err = slice_resolve(s, a.inputs[1], a.inputs[2], s.has_axes ? a.inputs[3] : nullptr,
                                    s.has_steps ? a.inputs[4] : nullptr, &base, strides, &bad_axis);
      if (err != kSliceOk) return invalid_input(describe_slice_error(s, err, bad_axis));
      v = make_strided_view(s.rank, s.out_dims, strides, base);
    }
    strided_copy(v, a.inputs[0], a.outputs[0], setup_.elem_size, a.num_threads);
    return Status::ok();
  }

 private:
  SliceSetup setup_;
  bool resolved_ = false;
  StridedView view_;
};

template <typename E>
void gather_elements(const E* src, const int64_t* idx, int64_t n_idx, int64_t dim, int64_t outer,
                     E* dst) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n_idx; ++j) dst[o * n_idx + j] = src[o * dim + idx[j]];
}

// Reads `n` indices and makes negative ones count from `dim`; the first one outside
// [-dim, dim), or nullopt when all are in range.
std::optional<int64_t> read_indices(const void* raw, DType dtype, int64_t n, int64_t dim,
                                    int64_t* idx) {
  read_int_param(raw, dtype, n, idx);
  for (int64_t j = 0; j < n; ++j) {
    if (idx[j] < -dim || idx[j] >= dim) return idx[j];
    if (idx[j] < 0) idx[j] += dim;
  }
  return std::nullopt;
}

std::string index_out_of_range(int64_t v, int64_t dim) {
  return "Gather: index " + std::to_string(v) + " is out of range for axis of size " +
         std::to_string(dim);
}

class GatherKernel : public SetupKernel<GatherLayout, check_gather_io> {
 public:
  // Normalized indices live in the workspace so the copy loop needs no checks.
  size_t workspace_bytes() const override {
    return static_cast<size_t>(setup_.n_idx) * sizeof(int64_t);
  }

  std::string implementation() const override {
    return channels_ ? "own loop, channels in the conv layout" : "own loop";
  }

  Status run(const KernelArgs& a) const override {
    if (setup_.outer * setup_.n_idx * setup_.inner == 0) return Status::ok();
    if (channels_) {
      channels_->run(a.inputs[0], a.outputs[0], a.num_threads);
      return Status::ok();
    }
    int64_t* idx = static_cast<int64_t*>(a.workspace);
    if (const std::optional<int64_t> bad =
            read_indices(a.inputs[1], setup_.idx_dtype, setup_.n_idx, setup_.dim, idx))
      return invalid_input(index_out_of_range(*bad, setup_.dim));
    const uint8_t* src = a.input<uint8_t>(0);
    uint8_t* dst = a.output<uint8_t>(0);
    if (setup_.inner == 1) {
      // Gathering single elements (embedding of scalars, last-axis gathers).
      switch (setup_.elem_size) {
        case 1:
          gather_elements(src, idx, setup_.n_idx, setup_.dim, setup_.outer, dst);
          return Status::ok();
        case 2:
          gather_elements(reinterpret_cast<const uint16_t*>(src), idx, setup_.n_idx, setup_.dim,
                          setup_.outer, reinterpret_cast<uint16_t*>(dst));
          return Status::ok();
        case 4:
          gather_elements(reinterpret_cast<const uint32_t*>(src), idx, setup_.n_idx, setup_.dim,
                          setup_.outer, reinterpret_cast<uint32_t*>(dst));
          return Status::ok();
        case 8:
          gather_elements(reinterpret_cast<const uint64_t*>(src), idx, setup_.n_idx, setup_.dim,
                          setup_.outer, reinterpret_cast<uint64_t*>(dst));
          return Status::ok();
      }
    }
    const size_t block = static_cast<size_t>(setup_.inner) * setup_.elem_size;
    parallel_for(
        setup_.outer * setup_.n_idx, a.num_threads,
        [&](int64_t b, int64_t e) {
          for (int64_t k = b; k < e; ++k) {
            const int64_t o = k / setup_.n_idx, j = k % setup_.n_idx;
            std::memcpy(dst + static_cast<size_t>(k) * block,
                        src + static_cast<size_t>(o * setup_.dim + idx[j]) * block, block);
          }
        },
        std::max<int64_t>(1, static_cast<int64_t>((1 << 18) / std::max<size_t>(block, 1))));
    return Status::ok();
  }

 private:
  // A Gather of the channels on conv-layout tensors (runtime/layout_plan.h admits one with
  // constant indices along axis 1 whose input and output share the layout's kind).
  Status prepare_params(const KernelConfig& cfg) override {
    const TensorDesc& x = cfg.inputs[0];
    const TensorDesc& idx = cfg.inputs[1];
    const TensorDesc& y = cfg.outputs[0];
    if (!x.conv_layout && !y.conv_layout) return Status::ok();
    const bool blocked8 = cpu_conv_layout_blocked8(x.dims);
    if (!x.conv_layout || !y.conv_layout || x.rank() < 3 || x.rank() > 5 ||
        setup_.outer != x.dims[0] || idx.constant_data == nullptr || idx.rank() != 1 ||
        blocked8 != cpu_conv_layout_blocked8(y.dims) ||
        (setup_.elem_size != 2 && setup_.elem_size != 4))
      return internal_error("Gather: a conv-layout tensor where the layout plan admits none");
    std::vector<int64_t> v(static_cast<size_t>(setup_.n_idx));
    if (const std::optional<int64_t> bad =
            read_indices(idx.constant_data, setup_.idx_dtype, setup_.n_idx, setup_.dim, v.data()))
      return invalid_model(index_out_of_range(*bad, setup_.dim));  // a constant: the model's
    channels_.emplace();
    channels_->prepare(x.dims[0], setup_.dim, setup_.inner, v, blocked8, setup_.elem_size);
    return Status::ok();
  }

  std::optional<ChannelGather> channels_;
};

}  // namespace

void register_slice_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<SliceKernel>(r, graph::OpType::kSlice, Backend::kCpu);
}

void register_gather_kernels(KernelRegistry& r) {
  add_any_dtype_kernel<GatherKernel>(r, graph::OpType::kGather, Backend::kCpu);
}

}  // namespace amp::kernels::cpu
