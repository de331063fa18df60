#include "kernels/cpu/dnnl_common.h"

#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cstring>
#include <memory>
#include <mutex>

#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/shared_constants.h"

namespace amp::kernels::cpu {

using dnnl::memory;

const dnnl::engine& dnnl_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::data_type dnnl_type(DType t) {
  switch (t) {
    case DType::kF32:
      return memory::data_type::f32;
    case DType::kBF16:
      return memory::data_type::bf16;
    case DType::kF16:
      return memory::data_type::f16;
    case DType::kI8:
      return memory::data_type::s8;
    case DType::kU8:
      return memory::data_type::u8;
    case DType::kI32:
      return memory::data_type::s32;
    case DType::kUndefined:
    case DType::kI16:
    case DType::kI64:
    case DType::kBool:
    case DType::kF64:
      return memory::data_type::undef;
  }
  return memory::data_type::undef;
}

memory::dims to_dnnl_dims(const std::vector<int64_t>& dims) {
  return memory::dims(dims.begin(), dims.end());
}

memory::dims dense_strides(const memory::dims& dims) {
  memory::dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * std::max<memory::dim>(dims[i], 1);
  return s;
}

memory::desc plain_desc(const memory::dims& dims, memory::data_type dt) {
  return memory::desc(dims, dt, dense_strides(dims));
}

memory::desc channels_last_desc(const memory::dims& dims, memory::data_type dt) {
  memory::dims strides(dims.size(), 1);
  const memory::dim c = std::max<memory::dim>(dims[1], 1);
  memory::dim step = c;  // C is innermost; the spatial dims follow in order, N outermost
  for (size_t i = dims.size(); i-- > 2;) {
    strides[i] = step;
    step *= std::max<memory::dim>(dims[i], 1);
  }
  strides[0] = step;
  return memory::desc(dims, dt, strides);
}

bool dnnl_isa_avx512() {
  using isa = dnnl::cpu_isa;
  const isa cpu = dnnl::get_effective_cpu_isa();
  return cpu == isa::avx512_core || cpu == isa::avx512_core_vnni || cpu == isa::avx512_core_bf16 ||
         cpu == isa::avx512_core_amx;
}

bool conv_layout_blocked8(const std::vector<int64_t>& dims) {
  return !dnnl_isa_avx512() && dims.size() >= 3 && dims.size() <= 5 && dims[1] % 8 == 0;
}

memory::desc conv_activation_desc(const memory::dims& dims, memory::data_type dt) {
  if (conv_layout_blocked8(std::vector<int64_t>(dims.begin(), dims.end()))) {
    using tag = memory::format_tag;
    const tag blocked = dims.size() == 3   ? tag::nCw8c
                        : dims.size() == 4 ? tag::nChw8c
                                           : tag::nCdhw8c;
    return memory::desc(dims, dt, blocked);
  }
  return channels_last_desc(dims, dt);
}

Status dnnl_failure(const std::string& what, const dnnl::error& e) {
  return backend_failure("oneDNN " + what + ": " + e.what() + " (dnnl_status " +
                         std::to_string(static_cast<int>(e.status)) + ")");
}

namespace {

// One stream per calling thread: streams are not meant to be shared between threads, and
// a thread_local avoids creating one per run. Destroyed at thread exit, before the engine
// (a function-local static) at process exit.
dnnl::stream& thread_stream() {
  thread_local dnnl::stream stream(dnnl_engine());
  return stream;
}

}  // namespace

void dnnl_execute(const dnnl::primitive& p, const std::unordered_map<int, memory>& args,
                  int threads) {
  // oneDNN's OpenMP regions use omp_get_max_threads(): a per-thread ICV, so this affects
  // only the calling thread (each ExecutionContext thread sets its own).
  omp_set_num_threads(std::max(1, threads));
  dnnl::stream& s = thread_stream();
  p.execute(s, args);
  s.wait();
}

std::string dnnl_implementation(const char* primitive, const dnnl::primitive_desc_base& pd,
                                bool via_f32, bool reorders_in, bool reorders_out) {
  std::string s = std::string("oneDNN ") + primitive + " " + pd.impl_info_str();
  if (via_f32) s += " via f32";
  if (reorders_in || reorders_out)
    s += reorders_in && reorders_out ? " +reorder in/out"
         : reorders_in               ? " +reorder in"
                                     : " +reorder out";
  return s;
}

namespace {

// Sets this thread's max-threads ICV (what oneDNN reads when it creates a primitive) for a
// scope, and restores it even when creation throws.
class ScopedMaxThreads {
 public:
  explicit ScopedMaxThreads(int n) : previous_(omp_get_max_threads()) {
    omp_set_num_threads(std::max(1, n));
  }
  ~ScopedMaxThreads() { omp_set_num_threads(previous_); }
  ScopedMaxThreads(const ScopedMaxThreads&) = delete;
  ScopedMaxThreads& operator=(const ScopedMaxThreads&) = delete;

 private:
  int previous_;
};

bool same_layouts(const dnnl::primitive_desc& a, const dnnl::primitive_desc& b) {
  using q = dnnl::query;
  return a.query_md(q::src_md) == b.query_md(q::src_md) &&
         a.query_md(q::weights_md) == b.query_md(q::weights_md) &&
         a.query_md(q::weights_md, 1) == b.query_md(q::weights_md, 1) &&
         a.query_md(q::dst_md) == b.query_md(q::dst_md) &&
         b.query_md(q::scratchpad_md).get_size() <= a.query_md(q::scratchpad_md).get_size();
}

}  // namespace

dnnl::primitive_desc DnnlPrimitivePair::build(int threads,
                                              const std::function<dnnl::primitive_desc()>& create) {
  // Both the descriptor and the primitive are created under the thread count they will run
  // with: a primitive's init reads omp_get_max_threads() again (per-thread kernel and buffer
  // counts), and one built under another count than its descriptor computes wrong results.
  dnnl::primitive_desc pd;
  {
    ScopedMaxThreads scope(threads);
    pd = create();
    full_ = dnnl::primitive(pd);
  }
  has_single_ = false;
  if (threads > 1) {
    ScopedMaxThreads scope(1);
    dnnl::primitive_desc single;
    try {
      single = create();
    } catch (const dnnl::error&) {
      return pd;  // no twin: one-thread runs use the full primitive
    }
    if (same_layouts(pd, single)) {
      single_ = dnnl::primitive(single);
      has_single_ = true;
    }
  }
  return pd;
}

// ---- Fused activation ---------------------------------------------------------------------

Status append_activation(dnnl::post_ops& po, const ew::Activation& act) {
  using dnnl::algorithm;
  switch (act.kind) {
    case ew::ActivationKind::kNone:
      return Status::ok();
    case ew::ActivationKind::kRelu:
      po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kLeakyRelu:
      po.append_eltwise(1.0f, algorithm::eltwise_relu, act.alpha, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kSigmoid:
      po.append_eltwise(1.0f, algorithm::eltwise_logistic, 0.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kTanh:
      po.append_eltwise(1.0f, algorithm::eltwise_tanh, 0.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kHardSigmoid:
      // max(0, min(1, alpha x + beta)): oneDNN 2.6 has no hardsigmoid.
      po.append_eltwise(1.0f, algorithm::eltwise_linear, act.alpha, act.beta);
      po.append_eltwise(1.0f, algorithm::eltwise_clip, 0.0f, 1.0f);
      return Status::ok();
    case ew::ActivationKind::kHardSwish:
      // oneDNN 2.6: x * relu6(x + 3) / 6, i.e. ONNX HardSwish (alpha 1/6, beta 1/2).
      po.append_eltwise(1.0f, algorithm::eltwise_hardswish, 0.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kGeluErf:
      po.append_eltwise(1.0f, algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kGeluTanh:
      po.append_eltwise(1.0f, algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kSwish:
      // x / (1 + exp(-alpha x)) with alpha 1.
      po.append_eltwise(1.0f, algorithm::eltwise_swish, 1.0f, 0.0f);
      return Status::ok();
    case ew::ActivationKind::kClip:
      // ONNX: min > max clips everything to max; oneDNN rejects alpha > beta.
      po.append_eltwise(1.0f, algorithm::eltwise_clip, std::min(act.alpha, act.beta), act.beta);
      return Status::ok();
  }
  return internal_error("unknown activation kind");
}

// ---- Conversions ----------------------------------------------------------------------------

namespace {

// The bulk converters of runtime/common/half.h (F16C / AVX-512, bit-equal to the scalar
// ones) on each thread's range: staging a low-precision operand through f32 is what an
// emulated fp16 / bf16 plan spends its time on otherwise (the accuracy search runs many).
void widen(const uint16_t* src, float* dst, int64_t n, int threads, bool bf16) {
  parallel_for(n, threads, [&](int64_t b, int64_t e) {
    const size_t count = static_cast<size_t>(e - b);
    if (bf16)
      convert_bf16_to_f32(src + b, dst + b, count);
    else
      convert_f16_to_f32(src + b, dst + b, count);
  });
}

void narrow(const float* src, uint16_t* dst, int64_t n, int threads, bool bf16) {
  parallel_for(n, threads, [&](int64_t b, int64_t e) {
    const size_t count = static_cast<size_t>(e - b);
    if (bf16)
      convert_f32_to_bf16(src + b, dst + b, count);
    else
      convert_f32_to_f16(src + b, dst + b, count);
  });
}

}  // namespace

void convert_to_f32(DType src_type, const void* src, float* dst, int64_t n, int threads) {
  switch (src_type) {
    case DType::kF32:
      std::memcpy(dst, src, static_cast<size_t>(n) * 4);
      return;
    case DType::kF16:
    case DType::kBF16:
      widen(static_cast<const uint16_t*>(src), dst, n, threads, src_type == DType::kBF16);
      return;
    default:
      return;  // prepare() admits only float storage
  }
}

void store_from_f32(DType dst_type, const float* src, void* dst, int64_t n, int threads) {
  switch (dst_type) {
    case DType::kF32:
      std::memcpy(dst, src, static_cast<size_t>(n) * 4);
      return;
    case DType::kF16:
    case DType::kBF16:
      narrow(src, static_cast<uint16_t*>(dst), n, threads, dst_type == DType::kBF16);
      return;
    default:
      return;  // prepare() admits only float storage
  }
}

void load_scaled_f32(DType storage, const void* src, float scale, float* dst, int64_t n) {
  switch (storage) {
    case DType::kF32: {
      const float* s = static_cast<const float*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = s[i] * scale;
      return;
    }
    case DType::kF16: {
      const Half* s = static_cast<const Half*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = load_f32(s[i]) * scale;
      return;
    }
    case DType::kBF16: {
      const BFloat16* s = static_cast<const BFloat16*>(src);
      for (int64_t i = 0; i < n; ++i) dst[i] = load_f32(s[i]) * scale;
      return;
    }
    default:
      return;  // prepare() admits only float storage
  }
}

// ---- DnnlReorder ----------------------------------------------------------------------------

void DnnlReorder::prepare(const memory::desc& from, const memory::desc& to, WorkspaceLayout& ws,
                          int threads) {
  active_ = !(from == to);
  if (!active_) return;
  from_ = from;
  to_ = to;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto make = [&](int n, dnnl::reorder& prim, memory::desc& scratch) {
    ScopedMaxThreads scope(n);  // the team size is fixed here (class comment)
    dnnl::reorder::primitive_desc pd(dnnl_engine(), from, dnnl_engine(), to, attr);
    prim = dnnl::reorder(pd);
    scratch = pd.scratchpad_desc();
  };
  make(std::max(1, threads), prim_, scratch_);
  if (threads > 1) make(1, single_, scratch_single_);
  off_scratch_ = ws.add(std::max(scratch_.get_size(), scratch_single_.get_size()));
}

void DnnlReorder::run(const void* src, void* dst, void* workspace, int threads) const {
  const bool single = threads <= 1 && single_;
  std::unordered_map<int, memory> args = {
      {DNNL_ARG_SRC, memory(from_, dnnl_engine(), const_cast<void*>(src))},
      {DNNL_ARG_DST, memory(to_, dnnl_engine(), dst)}};
  add_scratchpad(args, single ? scratch_single_ : scratch_, workspace, off_scratch_);
  dnnl_execute(single ? single_ : prim_, args, threads);
}

// ---- DnnlWeights ----------------------------------------------------------------------------

void add_scratchpad(std::unordered_map<int, memory>& args, const memory::desc& d, void* workspace,
                    size_t offset) {
  if (offset == WorkspaceLayout::kNone) return;
  args.emplace(DNNL_ARG_SCRATCHPAD,
               memory(d, dnnl_engine(), WorkspaceLayout::at(workspace, offset)));
}

namespace {

// How DnnlWeights packed a constant: equal recipes of the same bytes give equal packings.
struct WeightsRecipe {
  DType storage;
  memory::dims dims, strides;
  memory::desc target;
  bool operator==(const WeightsRecipe&) const = default;
};

using PackedWeights = SharedConstants<WeightsRecipe, memory>;

}  // namespace

Status DnnlWeights::prepare(DType storage, const memory::dims& dims, const memory::dims& strides,
                            const void* constant, const std::shared_ptr<const void>& owner,
                            const memory::desc& target, WorkspaceLayout& ws, int threads) {
  storage_ = storage;
  target_ = target;
  compute_ = target.data_type();
  numel_ = 1;
  for (memory::dim d : dims) numel_ *= d;
  const memory::data_type storage_dt = dnnl_type(storage);
  convert_ = storage_dt != compute_;
  if (convert_ && compute_ != memory::data_type::f32)
    return internal_error("weights conversion is only to f32");
  user_desc_ = memory::desc(dims, compute_, strides);
  reorder_ = !(user_desc_ == target);

  if (constant != nullptr) {
    // Reorder in a primitive of its own, with its own scratchpad: this runs once, at load.
    auto pack = [&]() -> std::shared_ptr<const memory> {
      std::vector<float> widened;
      const void* src = constant;
      if (convert_) {
        widened.resize(static_cast<size_t>(numel_));
        convert_to_f32(storage, constant, widened.data(), numel_, threads);
        src = widened.data();
      }
      auto packed = std::make_shared<memory>(target, dnnl_engine());  // library-allocated
      if (!reorder_) {
        std::memcpy(packed->get_data_handle(), src, target.get_size());
        return packed;
      }
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      dnnl::reorder::primitive_desc pd(dnnl_engine(), user_desc_, dnnl_engine(), target, attr);
      std::vector<uint8_t> scratch(pd.scratchpad_desc().get_size() + 64);
      std::unordered_map<int, memory> args = {
          {DNNL_ARG_SRC, memory(user_desc_, dnnl_engine(), const_cast<void*>(src))},
          {DNNL_ARG_DST, *packed}};
      if (pd.scratchpad_desc().get_size() > 0)
        args.emplace(DNNL_ARG_SCRATCHPAD,
                     memory(pd.scratchpad_desc(), dnnl_engine(), scratch.data()));
      dnnl_execute(dnnl::reorder(pd), args, threads);
      return packed;
    };
    constant_ = PackedWeights::instance().get(constant, owner,
                                              WeightsRecipe{storage, dims, strides, target}, pack);
    return Status::ok();
  }
  if (convert_) converted_ = ws.add(static_cast<size_t>(numel_) * sizeof(float));
  if (reorder_) {
    packed_ = ws.add(target.get_size());
    run_reorder_.prepare(user_desc_, target, ws, threads);
  }
  return Status::ok();
}

const void* DnnlWeights::get(const void* user, void* workspace, int threads) const {
  if (constant_) return constant_->get_data_handle();
  const void* src = user;
  if (convert_) {
    float* buf = reinterpret_cast<float*>(WorkspaceLayout::at(workspace, converted_));
    convert_to_f32(storage_, user, buf, numel_, threads);
    src = buf;
  }
  if (!reorder_) return src;
  void* packed = WorkspaceLayout::at(workspace, packed_);
  run_reorder_.run(src, packed, workspace, threads);
  return packed;
}

void DnnlWeights::held_constants(std::vector<HeldConstant>& out) const {
  if (constant_) out.push_back({constant_.get(), constant_->get_desc().get_size()});
}

}  // namespace amp::kernels::cpu
