// MaxPool and AveragePool, 1-D to 3-D: oneDNN pooling_v2 (dilated pooling) where its
// semantics equal ONNX's, a plain loop elsewhere.
//
// Window semantics (ONNX; graph/ops/window_geometry.h for sizes): output position o on an axis
// covers input positions o s - pad_begin + j d, j < k. Positions outside the input are padding:
// MaxPool ignores them; AveragePool divides by the number of positions inside the input,
// or with count_include_pad by the number inside the padded extent
// [-pad_begin, in + pad_end) -- positions that ceil_mode adds past that extent never
// count (a window that ceil_mode adds may only start inside the input or its left pad).
//
// oneDNN path: f32 and bf16 (bf16 pooling reads bf16, averages in f32, rounds once),
// MaxPool without the Indices output, AveragePool unless count_include_pad meets a
// ceil_mode extension (oneDNN would count the extension as padding). oneDNN has no
// ceil_mode: the end pad it gets is extended until its floor formula gives ONNX's size.
// Loop path: everything else -- f16 (oneDNN 2.6 has no f16 pooling on CPU), i8 / u8
// MaxPool, the Indices output (ONNX flattened indices into X, row-major, or column-major
// over the spatial axes with storage_order = 1), and the AveragePool case above. The loop
// is also the fallback whenever oneDNN declines a configuration.
//
// Layouts: oneDNN's jit pooling takes the convolutions' layout (kernels/cpu/dnnl_common.h,
// conv_activation_desc: 8-channel blocks on AVX2, channels-last on AVX-512), and on AVX2
// only that: plain NCHW gets its simple_nchw loop (measured, ppocr-cls's 1x200x2x96 MaxPool:
// 0.38 ms, a third of the model). So when the plain primitive is not a jit one, the pooling
// runs in the conv layout with reorders around it; and a tensor the runtime keeps in the
// conv layout (runtime/layout_plan.h: a MaxPool between convolutions) is read or written in
// it directly. An f32 MaxPool of an input in 8-channel blocks runs our own loop instead
// (max_pool_blocked8.h: oneDNN's jit:avx2 pooling is 2-5x slower on that layout).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/common/pool_geometry.h"
#include "kernels/common/window_op_io.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/dnnl_common.h"
#include "kernels/cpu/max_pool_blocked8.h"

namespace amp::kernels::cpu {
namespace {

using dnnl::memory;
using dt = memory::data_type;

// Max and argmax over one window; compute type C (float for float storage, int for ints).
template <typename T>
using compute_of = std::conditional_t<std::is_integral_v<T>, int, float>;

template <typename T>
compute_of<T> load_c(T v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<int>(v);
  else
    return load_f32(v);
}

template <typename T>
T store_c(compute_of<T> v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(v);
  else
    return store_as<T>(v);
}

template <typename T>
void max_pool_loop(const PoolGeometry& g, const T* x, T* y, int64_t* indices, int threads) {
  using C = compute_of<T>;
  C lowest = std::numeric_limits<C>::lowest();
  if constexpr (std::is_floating_point_v<C>) lowest = -INFINITY;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(out_plane, 1));
  parallel_for(
      g.planes, threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const T* xp = x + p * in_plane;
          int64_t o = p * out_plane;
          for (int64_t oz = 0; oz < g.out[0]; ++oz)
            for (int64_t oy = 0; oy < g.out[1]; ++oy)
              for (int64_t ox = 0; ox < g.out[2]; ++ox, ++o) {
                int64_t arg = 0;
                const C best = pool_window_max<C>(
                    g, oz, oy, ox, lowest, [&](int64_t i) { return load_c(xp[i]); }, &arg);
                y[o] = store_c<T>(best);
                if (indices) indices[o] = p * in_plane + arg;
              }
        }
      },
      grain);
}

template <typename T>
void avg_pool_loop(const PoolGeometry& g, bool include_pad, const T* x, T* y, int threads) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(out_plane, 1));
  parallel_for(
      g.planes, threads,
      [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const T* xp = x + p * in_plane;
          int64_t o = p * out_plane;
          for (int64_t oz = 0; oz < g.out[0]; ++oz)
            for (int64_t oy = 0; oy < g.out[1]; ++oy)
              for (int64_t ox = 0; ox < g.out[2]; ++ox, ++o)
                y[o] = store_as<T>(pool_window_average(g, include_pad, oz, oy, ox,
                                                       [&](int64_t i) { return load_f32(xp[i]); }));
        }
      },
      grain);
}

class PoolKernel final : public Kernel {
 public:
  explicit PoolKernel(bool max) : max_(max) {}

  Status prepare(const KernelConfig& cfg) override {
    return dnnl_guard(op(), [&] { return prepare_impl(cfg); });
  }
  size_t workspace_bytes() const override { return ws_.total(); }
  Status run(const KernelArgs& a) const override {
    return dnnl_guard(op(), [&] { return run_impl(a); });
  }
  std::string implementation() const override { return impl_; }

 private:
  std::string op() const { return max_ ? "MaxPool" : "AveragePool"; }
  Status prepare_impl(const KernelConfig& cfg);
  // Creates the oneDNN primitive when it applies; false when the loop must run instead.
  // `x_conv` / `y_conv`: the caller's tensors are in the conv layout.
  bool try_dnnl(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& y_dims,
                const graph::Window& w, const std::vector<int64_t>& pad_r, bool x_conv, bool y_conv,
                int threads);
  Status run_impl(const KernelArgs& a) const;
  // The plain loop (no oneDNN) from x to y.
  Status run_loop(const KernelArgs& a, const void* x, void* y, int64_t* indices) const;

  const bool max_;
  PoolSetup pool_;  // the record, dtype and window walk (common/window_op_io.h)
  bool empty_ = false;
  bool use_dnnl_ = false;
  // MaxPool of an f32 input in 8-channel blocks by our loop (max_pool_blocked8.h).
  bool use_blocked8_ = false, y_plain_ = false;
  int64_t blocks_ = 0;
  std::string impl_;  // implementation(); empty when the loop runs
  DnnlPrimitivePair prims_;
  memory::desc src_md_, dst_md_, scratch_md_;
  DnnlReorder src_reorder_, dst_reorder_;  // caller layout <-> the primitive's
  WorkspaceLayout ws_;
  size_t off_scratch_ = WorkspaceLayout::kNone;
  size_t off_src_blk_ = WorkspaceLayout::kNone, off_dst_blk_ = WorkspaceLayout::kNone;
};

bool PoolKernel::try_dnnl(const std::vector<int64_t>& x_dims, const std::vector<int64_t>& y_dims,
                          const graph::Window& w, const std::vector<int64_t>& pad_r, bool x_conv,
                          bool y_conv, int threads) {
  const dt type = pool_.dtype == DType::kF32 ? dt::f32 : dt::bf16;
  memory::dims dil(w.rank()), pl(w.pad_begin.begin(), w.pad_begin.end());
  for (size_t i = 0; i < w.rank(); ++i) dil[i] = w.dilations[i] - 1;
  const memory::dims xd = to_dnnl_dims(x_dims), yd = to_dnnl_dims(y_dims);
  const memory::desc x_plain = plain_desc(xd, type), y_plain = plain_desc(yd, type);
  const memory::desc x_conv_md = conv_activation_desc(xd, type);
  const memory::desc y_conv_md = conv_activation_desc(yd, type);
  const dnnl::algorithm alg = max_ ? dnnl::algorithm::pooling_max
                              : pool_.attrs.count_include_pad
                                  ? dnnl::algorithm::pooling_avg_include_padding
                                  : dnnl::algorithm::pooling_avg_exclude_padding;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto describe = [&](const memory::desc& src, const memory::desc& dst) {
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, src, dst,
                                     memory::dims(w.strides.begin(), w.strides.end()),
                                     memory::dims(w.kernel.begin(), w.kernel.end()), dil, pl,
                                     memory::dims(pad_r.begin(), pad_r.end()));
    return dnnl::pooling_v2_forward::primitive_desc(d, attr, dnnl_engine());
  };
  auto jit = [](const dnnl::primitive_desc& pd) {
    return std::string(pd.impl_info_str()).rfind("jit", 0) == 0;
  };
  dnnl::primitive_desc pd;
  try {
    // Which layouts the primitive runs in (decided on descriptors, then built once).
    bool conv_layouts = x_conv || y_conv;
    if (!conv_layouts && xd.size() >= 3 && xd.size() <= 5 && !jit(describe(x_plain, y_plain)))
      conv_layouts = jit(describe(x_conv_md, y_conv_md));  // the faster jit, with reorders
    const memory::desc& src = conv_layouts ? x_conv_md : x_plain;
    const memory::desc& dst = conv_layouts ? y_conv_md : y_plain;
    pd = prims_.build(threads, [&]() -> dnnl::primitive_desc { return describe(src, dst); });
  } catch (const dnnl::error&) {
    return false;  // oneDNN declines: the loop handles it
  }
  src_md_ = pd.query_md(dnnl::query::src_md);
  dst_md_ = pd.query_md(dnnl::query::dst_md);
  scratch_md_ = pd.query_md(dnnl::query::scratchpad_md);
  off_scratch_ = ws_.add(scratch_md_.get_size());
  src_reorder_.prepare(x_conv ? x_conv_md : x_plain, src_md_, ws_, threads);
  dst_reorder_.prepare(dst_md_, y_conv ? y_conv_md : y_plain, ws_, threads);
  if (src_reorder_.active()) off_src_blk_ = ws_.add(src_md_.get_size());
  if (dst_reorder_.active()) off_dst_blk_ = ws_.add(dst_md_.get_size());
  impl_ = dnnl_implementation("pool", pd, false, src_reorder_.active(), dst_reorder_.active());
  return true;
}

Status PoolKernel::prepare_impl(const KernelConfig& cfg) {
  AMP_ASSIGN_OR_RETURN(pool_, check_pool_io(cfg));
  const TensorDesc& x = cfg.inputs[0];
  const graph::Window& w = pool_.attrs.window;
  const size_t sp = w.rank();
  std::vector<int64_t> pad_r(sp);
  bool extended = false;  // ceil_mode reaches past the end pad
  for (size_t i = 0; i < sp; ++i) {
    const int64_t need = (w.out_spatial[i] - 1) * w.strides[i] + w.effective_kernel(i) -
                         w.in_spatial[i] - w.pad_begin[i];
    extended = extended || need > w.pad_end[i];
    pad_r[i] = std::max(need, w.pad_end[i]);
  }
  if (cfg.outputs[0].numel() == 0) {
    empty_ = true;
    return Status::ok();
  }
  const bool dnnl_fits = (pool_.dtype == DType::kF32 || pool_.dtype == DType::kBF16) &&
                         !pool_.attrs.with_indices && !(pool_.attrs.count_include_pad && extended);
  const bool x_conv = x.conv_layout, y_conv = cfg.outputs[0].conv_layout;
  if (max_ && pool_.dtype == DType::kF32 && !pool_.attrs.with_indices && x_conv &&
      conv_layout_blocked8(x.dims)) {
    use_blocked8_ = true;
    y_plain_ = !y_conv;
    blocks_ = x.dims[0] * x.dims[1] / 8;
    impl_ = y_plain_ ? "own loop, 8-channel blocks in, plain out" : "own loop, 8-channel blocks";
    return Status::ok();
  }
  use_dnnl_ =
      dnnl_fits && try_dnnl(x.dims, cfg.outputs[0].dims, w, pad_r, x_conv, y_conv, cfg.num_threads);
  if (!use_dnnl_ && (x_conv || y_conv)) {
    // The loop reads and writes plain tensors: where oneDNN declines a pooling the layout
    // plan kept in the conv layout, reorder around the loop.
    const dt type = pool_.dtype == DType::kF32 ? dt::f32 : dt::bf16;
    const memory::dims xd = to_dnnl_dims(x.dims), yd = to_dnnl_dims(cfg.outputs[0].dims);
    if (x_conv) {
      src_reorder_.prepare(conv_activation_desc(xd, type), plain_desc(xd, type), ws_,
                           cfg.num_threads);
      off_src_blk_ = ws_.add(plain_desc(xd, type).get_size());
    }
    if (y_conv) {
      dst_reorder_.prepare(plain_desc(yd, type), conv_activation_desc(yd, type), ws_,
                           cfg.num_threads);
      off_dst_blk_ = ws_.add(plain_desc(yd, type).get_size());
    }
  }
  return Status::ok();
}

template <typename T>
void pool_loop(bool max, bool include_pad, const PoolGeometry& g, const void* x, void* y,
               int64_t* indices, int threads) {
  if (max)
    max_pool_loop(g, static_cast<const T*>(x), static_cast<T*>(y), indices, threads);
  else
    avg_pool_loop(g, include_pad, static_cast<const T*>(x), static_cast<T*>(y), threads);
}

Status PoolKernel::run_impl(const KernelArgs& a) const {
  if (empty_) return Status::ok();
  if (use_blocked8_) {
    max_pool_blocked8(pool_.geom, blocks_, static_cast<const float*>(a.inputs[0]),
                      static_cast<float*>(a.outputs[0]), y_plain_, a.num_threads);
    return Status::ok();
  }
  if (use_dnnl_) {
    const dnnl::engine& eng = dnnl_engine();
    const void* src = a.inputs[0];
    if (src_reorder_.active()) {
      void* blk = WorkspaceLayout::at(a.workspace, off_src_blk_);
      src_reorder_.run(src, blk, a.workspace, a.num_threads);
      src = blk;
    }
    void* dst =
        dst_reorder_.active() ? WorkspaceLayout::at(a.workspace, off_dst_blk_) : a.outputs[0];
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, memory(src_md_, eng, const_cast<void*>(src))},
        {DNNL_ARG_DST, memory(dst_md_, eng, dst)}};
    add_scratchpad(args, scratch_md_, a.workspace, off_scratch_);
    dnnl_execute(prims_.for_threads(a.num_threads), args, a.num_threads);
    if (dst_reorder_.active()) dst_reorder_.run(dst, a.outputs[0], a.workspace, a.num_threads);
    return Status::ok();
  }
  int64_t* indices = pool_.attrs.with_indices ? static_cast<int64_t*>(a.outputs[1]) : nullptr;
  const void* x = a.inputs[0];
  void* y = a.outputs[0];
  if (src_reorder_.active()) {  // a conv-layout input, read plain (prepare_impl)
    void* plain = WorkspaceLayout::at(a.workspace, off_src_blk_);
    src_reorder_.run(x, plain, a.workspace, a.num_threads);
    x = plain;
  }
  if (dst_reorder_.active()) y = WorkspaceLayout::at(a.workspace, off_dst_blk_);
  AMP_RETURN_IF_ERROR(run_loop(a, x, y, indices));
  if (dst_reorder_.active()) dst_reorder_.run(y, a.outputs[0], a.workspace, a.num_threads);
  return Status::ok();
}

Status PoolKernel::run_loop(const KernelArgs& a, const void* x, void* y, int64_t* indices) const {
  switch (pool_.dtype) {
    case DType::kF32:
      pool_loop<float>(max_, pool_.attrs.count_include_pad, pool_.geom, x, y, indices,
                       a.num_threads);
      break;
    case DType::kF16:
      pool_loop<Half>(max_, pool_.attrs.count_include_pad, pool_.geom, x, y, indices,
                      a.num_threads);
      break;
    case DType::kBF16:
      pool_loop<BFloat16>(max_, pool_.attrs.count_include_pad, pool_.geom, x, y, indices,
                          a.num_threads);
      break;
    case DType::kI8:
      max_pool_loop(pool_.geom, static_cast<const int8_t*>(x), static_cast<int8_t*>(y), indices,
                    a.num_threads);
      break;
    case DType::kU8:
      max_pool_loop(pool_.geom, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), indices,
                    a.num_threads);
      break;
    default:
      return internal_error(op() + ": dtype not prepared");
  }
  return Status::ok();
}

}  // namespace

void register_pool_kernels(KernelRegistry& registry) {
  add_kernel_family<PoolKernel>(registry, Backend::kCpu, pool_family());
}

}  // namespace amp::kernels::cpu
