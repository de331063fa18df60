// Plumbing shared by the oneDNN-backed CPU kernels (dnnl_conv.cc, dnnl_matmul.cc,
// dnnl_pool.cc): the engine, per-thread streams, dtype and dims mapping, the fused
// activation epilogue, workspace layout, storage conversions, and exception fencing.
//
// Concurrency contract (kernel.h: run() is const and may be called from several threads
// at once on one prepared kernel):
//   - every primitive is created in prepare() with scratchpad_mode::user, so a primitive
//     holds no mutable scratch: its scratchpad lives in the run's workspace, and oneDNN
//     documents concurrent execution of one primitive as safe under that mode;
//   - each calling thread executes on its own dnnl::stream (a thread_local created on the
//     thread's first run), so no stream is shared between threads;
//   - oneDNN's OpenMP runtime sizes its parallel regions by omp_get_max_threads(), a
//     per-thread ICV, so run() sets it to args.num_threads on the calling thread only.
// run() allocates no tensor-sized buffers (all scratch is workspace), but wrapping
// pointers in dnnl::memory handles and the execute() argument map does allocate a few
// small objects: the oneDNN C++ API offers no allocation-free way to bind pointers, and
// caching handles per kernel would break concurrent runs.
//
// Errors: oneDNN reports failures by throwing dnnl::error. No exception may leave a
// kernel, so prepare() and run() bodies go through dnnl_guard(), which maps dnnl::error
// (and std::bad_alloc & co.) to a backend_failure / out_of_memory Status.
//
//   Status run(const KernelArgs& a) const override {
//     return dnnl_guard("Conv", [&] { return run_impl(a); });
//   }
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include "amp/dtype.h"
#include "graph/ir/graph.h"
#include "kernels/common/elementwise_functors.h"
#include "kernels/common/workspace_layout.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels::cpu {

// The process-wide oneDNN CPU engine, created on first use (thread-safe static).
const dnnl::engine& dnnl_engine();

// oneDNN's data type for a storage dtype the primitives take natively (f32, bf16, f16,
// i8, u8); data_type::undef otherwise.
dnnl::memory::data_type dnnl_type(DType t);

dnnl::memory::dims to_dnnl_dims(const std::vector<int64_t>& dims);

// Dense row-major strides of `dims`.
dnnl::memory::dims dense_strides(const dnnl::memory::dims& dims);

// A plain (row-major, dense) memory descriptor.
dnnl::memory::desc plain_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type dt);
// Dense channels-last: logical dims N, C, spatial... stored N, spatial..., C (nwc, nhwc, ndhwc).
dnnl::memory::desc channels_last_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type dt);
// The dense layout oneDNN 2.6's f32 convolutions take on this CPU, for an activation kept
// between two of them (runtime/layout_plan.h): 8-channel blocks (nChw8c) on a CPU without
// AVX-512 when C is a multiple of 8 (so no padding: the size stays N*C*spatial), else
// channels-last, which AVX-512's brgconv takes.
dnnl::memory::desc conv_activation_desc(const dnnl::memory::dims& dims, dnnl::memory::data_type dt);
// Whether conv_activation_desc stores these logical dims in 8-channel blocks (else
// channels-last): the one rule the kernels that read such a tensor without oneDNN share.
bool conv_layout_blocked8(const std::vector<int64_t>& dims);
// Whether oneDNN runs AVX-512 code on this CPU (its effective ISA: ONEDNN_MAX_CPU_ISA and
// the CPUID mask of tools/bench/as_avx2_cpu.cc apply).
bool dnnl_isa_avx512();

// Status for a failed oneDNN call: backend_failure naming `what` and oneDNN's message.
Status dnnl_failure(const std::string& what, const dnnl::error& e);

// Runs fn() (returning Status) and converts any exception into a Status, so nothing
// escapes a kernel.
template <typename Fn>
Status dnnl_guard(const std::string& what, Fn&& fn) {
  try {
    return fn();
  } catch (const dnnl::error& e) {
    return dnnl_failure(what, e);
  } catch (const std::bad_alloc&) {
    return out_of_memory(what + ": allocation failed");
  } catch (const std::exception& e) {
    return internal_error(what + ": unexpected exception: " + e.what());
  }
}

// Executes `p` on this thread's stream with `threads` OpenMP threads and waits.
// Throws dnnl::error (call inside dnnl_guard).
void dnnl_execute(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args,
                  int threads);

// A convolution or matmul primitive, built for the engine's thread count and, when that is
// more than one, again for one thread. oneDNN's jit kernels fix their team size when the
// primitive is created (jcp.nthr = omp_get_max_threads() then), so a run that the thread
// governor (runtime/thread_governor.h) gives one thread would otherwise still start a full
// team. The twin is kept only when it lays src, weights and dst out exactly as the first
// and needs no more scratchpad (the kernel's prepacked weights, reorders and workspace then
// serve both); otherwise every run uses the first.
class DnnlPrimitivePair {
 public:
  // Calls `create` under max-threads `threads` (and again under 1); returns the first
  // descriptor, which the kernel queries for layouts. Throws what `create` throws.
  dnnl::primitive_desc build(int threads, const std::function<dnnl::primitive_desc()>& create);
  // The primitive for a run with `threads` threads.
  const dnnl::primitive& for_threads(int threads) const {
    return threads <= 1 && has_single_ ? single_ : full_;
  }

 private:
  dnnl::primitive full_, single_;
  bool has_single_ = false;
};

// ---- Fused activation epilogue -----------------------------------------------------------

// Appends `act` to `po` as oneDNN eltwise post-ops (HardSigmoid as linear + clip, since
// oneDNN 2.6 has no hardsigmoid). No-op for kNone.
// "oneDNN conv brgconv:avx512_core +reorder in/out": the primitive, oneDNN's implementation
// (impl_info_str: the kernel and ISA it picked),
// with what the kernel does around the primitive: widening low-precision data to f32 for
// lack of a native implementation, reorders from and to plain layouts.
std::string dnnl_implementation(const char* primitive, const dnnl::primitive_desc_base& pd,
                                bool via_f32, bool reorders_in, bool reorders_out);

Status append_activation(dnnl::post_ops& po, const ew::Activation& act);

// ---- Workspace layout ---------------------------------------------------------------------

// 64-byte (cache line) aligned regions of the run's workspace (common/workspace_layout.h).
using WorkspaceLayout = AlignedWorkspaceLayout<64>;

// Adds a DNNL_ARG_SCRATCHPAD argument at `offset` of the workspace (none for kNone).
void add_scratchpad(std::unordered_map<int, dnnl::memory>& args, const dnnl::memory::desc& d,
                    void* workspace, size_t offset);

// ---- Storage conversions -----------------------------------------------------------------

// Widens n elements of a float storage type (f32, f16, bf16) to f32, in parallel.
void convert_to_f32(DType src_type, const void* src, float* dst, int64_t n, int threads);
// Rounds n f32 values to `dst_type` (f32, f16, bf16), nearest even, in parallel.
void store_from_f32(DType dst_type, const float* src, void* dst, int64_t n, int threads);

// ---- Layout reorders -------------------------------------------------------------------------

// A reorder between two layouts of one tensor (a plain activation and the blocked layout
// a primitive prefers), created in prepare() with its scratchpad in the workspace.
// Inactive when the layouts are equal.
// Like DnnlPrimitivePair, it is built for `threads` and again for one thread: oneDNN's jit
// reorder fixes its team size when it is created, and a reorder that starts a team of two
// in a run the thread governor gives one thread leaves a spinning OpenMP worker fighting a
// busy neighbour for the core (measured: ppocr-cls at 1 thread, 0.9 -> 4-8 ms).
class DnnlReorder {
 public:
  // Throws dnnl::error (call inside dnnl_guard).
  void prepare(const dnnl::memory::desc& from, const dnnl::memory::desc& to, WorkspaceLayout& ws,
               int threads);
  bool active() const { return active_; }
  // Throws dnnl::error.
  void run(const void* src, void* dst, void* workspace, int threads) const;

 private:
  bool active_ = false;
  dnnl::reorder prim_, single_;  // for the prepared thread count, and for one thread
  dnnl::memory::desc from_, to_, scratch_, scratch_single_;
  size_t off_scratch_ = static_cast<size_t>(-1);
};

// ---- Weights ------------------------------------------------------------------------------

// A primitive's weights in the layout and dtype it chose (memory format_tag::any).
// Constant weights are converted and reordered once in prepare() and owned here;
// variable weights are converted / reordered on every run() into workspace regions
// reserved in prepare(). The caller's buffer is a dense tensor of `storage` dtype whose
// logical oneDNN dims are `dims`, laid out with `strides` (so a transposed or regrouped
// view needs no copy).
class DnnlWeights {
 public:
  // `constant`: the caller's bytes when the weights are a constant, else nullptr; `owner`
  // (may be null) what keeps them alive. Packed constants are shared between kernels that
  // pack the same bytes of the same owner the same way (shared_constants.h).
  // Throws dnnl::error (call inside dnnl_guard).
  Status prepare(DType storage, const dnnl::memory::dims& dims, const dnnl::memory::dims& strides,
                 const void* constant, const std::shared_ptr<const void>& owner,
                 const dnnl::memory::desc& target, WorkspaceLayout& ws, int threads);
  // Pointer to the weights in `target` layout: the packed constant, or `user` converted
  // and reordered into the workspace. Throws dnnl::error.
  const void* get(const void* user, void* workspace, int threads) const;
  // The packed constant, for the memory report (nothing for variable weights).
  void held_constants(std::vector<HeldConstant>& out) const;
  // Whether get() returns the packed constant (and never reads the caller's buffer).
  bool holds_constant() const { return constant_ != nullptr; }

 private:
  DType storage_ = DType::kUndefined;
  dnnl::memory::data_type compute_ = dnnl::memory::data_type::undef;
  int64_t numel_ = 0;
  dnnl::memory::desc user_desc_;  // the (converted) caller layout, compute dtype
  dnnl::memory::desc target_;
  bool convert_ = false;     // storage dtype != compute dtype
  bool reorder_ = false;     // user layout != target layout
  DnnlReorder run_reorder_;  // variable weights, on every run
  size_t converted_ = WorkspaceLayout::kNone;
  size_t packed_ = WorkspaceLayout::kNone;
  std::shared_ptr<const dnnl::memory> constant_;  // packed constant weights (shared)
};

// Converts `n` elements of a float `storage` tensor (f32, f16, bf16) to f32 scaled by
// `scale`, into `dst`.
void load_scaled_f32(DType storage, const void* src, float scale, float* dst, int64_t n);

}  // namespace amp::kernels::cpu
