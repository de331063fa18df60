// amp::Engine: a loaded, planned model, immutable and shared by any number of threads.
// amp::ExecutionContext: the per-thread (per-stream) state of a run: activation arena,
// bound shapes, and on CUDA a stream.
//
//   amp::Engine engine = amp::Engine::load("model.amp", amp::Options{});
//   std::vector<amp::Tensor> out = engine.run({{"input", amp::Tensor::from(x, {1, 3, 224, 224})}});
//
//   // A server: one Engine, one context per worker thread.
//   amp::ExecutionContext ctx = engine.create_context();
//   auto y = ctx.run({{"input", x}});
//
// Thread safety: every const method of Engine may be called concurrently. Engine::run
// borrows a context from a small internal pool, so it is safe from many threads; a
// ExecutionContext must be used by one thread at a time. Contexts keep the engine's
// internals alive, so they may outlive the Engine object they came from.
// Errors are thrown as amp::Error (amp/error.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "amp/error.h"
#include "amp/options.h"
#include "amp/tensor.h"

namespace amp {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// A graph input or output: dims are -1 where symbolic, with the symbol's name in `symbols`.
struct TensorInfo {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  std::vector<std::string> symbols;  // per dim; empty string for static dims
};

struct MemoryReport {
  size_t weights_bytes = 0;       // after precision planning (low-type copies included)
  size_t weights_bytes_fp32 = 0;  // the model's weights as stored in the file
  size_t arena_bytes = 0;         // activation arena of one context (last bound shapes)
  size_t lower_bound_bytes = 0;   // max over steps of live activation bytes
  // Graph inputs and outputs the CPU keeps outside the arena: inputs read where the caller
  // keeps them (from a copy of the context's own when not 64-byte aligned), outputs written
  // straight into the tensors run() returns.
  size_t io_outside_arena_bytes = 0;
  size_t workspace_bytes = 0;  // largest kernel workspace inside the arena
  // Weights the kernels keep repacked for this CPU besides the model's own (oneDNN's
  // layouts, packed GEMM panels, Winograd filter transforms: up to 4x the weights), over
  // every plan the engine holds, each buffer once however many plans share it.
  size_t packed_weights_bytes = 0;
  // Of a model loaded from an .amp file (read in place from a read-only mapping): the bytes
  // of the file handed back to the OS after the plans were built, because no kernel reads
  // them at run time (they read the packed, converted or device copies). Not resident; read
  // from the file again if ever needed. 0 for a model imported from ONNX (on the heap).
  size_t model_file_released_bytes = 0;
};

struct LoadTimings {  // milliseconds
  double total = 0, verify = 0, passes = 0, amp = 0, memory = 0, upload = 0;
};

// Where the time of one run went (ExecutionContext::last_run_timings), milliseconds. On
// CUDA measured with events on the context's stream (h2d: inputs to the device, compute:
// every node, d2h: outputs back); on the CPU with the host clock (h2d: the copies into the
// arena; d2h: allocating the returned tensors and copying out those the steps did not write
// directly).
struct RunTimings {
  double total = 0, h2d = 0, compute = 0, d2h = 0;
  bool cuda_graph = false;  // the run replayed a captured CUDA graph
  // CUDA: why the run did or did not replay a graph ("eager: capture failed (...): ...").
  std::string cuda_graph_note;
};

// One node's share of a profiled run (ExecutionContext::set_profiling). Nodes inside an
// If/Loop/Scan body appear once per time they ran, after a span for the control-flow node
// itself (depth counts the bodies around a node; a span's time includes its bodies').
struct NodeProfile {
  std::string name;
  std::string op;
  // The kernel chosen: "oneDNN conv brgconv:avx512_core_bf16", "own loop",
  // "cuDNN convolution algo 1", "cuBLASLt", "runs its bodies", ...
  std::string implementation;
  std::string dtype;   // of its first output
  std::string shapes;  // "1x3x32x32 16x3x3x3 -> 1x16x32x32" (absent inputs as "-")
  double start_ms = 0, duration_ms = 0;  // from the start of the run's compute
  int depth = 0;
  bool control_flow = false;  // a span around bodies' nodes
};

struct RunProfile {
  std::vector<NodeProfile> nodes;  // in execution order
  double total_ms = 0;             // the run's wall time, copies in and out included
};

class EngineImpl;
class ContextImpl;

class ExecutionContext {
 public:
  ExecutionContext(ExecutionContext&&) noexcept;
  ExecutionContext& operator=(ExecutionContext&&) noexcept;
  ~ExecutionContext();

  std::vector<Tensor> run(const std::vector<NamedTensor>& inputs);
  // The breakdown of this context's most recent successful run.
  RunTimings last_run_timings() const;
  // Per-node timing of the following runs: host clock around each kernel on the CPU, CUDA
  // events around each node on its stream (which turns CUDA graph replay off while on).
  void set_profiling(bool on);
  // The per-node times of this context's most recent successful profiled run.
  RunProfile last_run_profile() const;

 private:
  friend class Engine;
  explicit ExecutionContext(std::unique_ptr<ContextImpl> impl);
  std::unique_ptr<ContextImpl> impl_;
};

class Engine {
 public:
  // Loads a .amp file, or an .onnx file (converted in memory).
  static Engine load(const std::string& path, const Options& options = {});

  std::vector<Tensor> run(const std::vector<NamedTensor>& inputs) const;
  ExecutionContext create_context() const;

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  BackendKind backend() const;  // the backend actually chosen (never kAuto)
  // Why that backend: "GPU 0 visible", or with kAuto on a machine without a usable GPU the
  // driver's reason ("no usable GPU: cudaGetDeviceCount returned ... (error 35 ...)").
  std::string backend_note() const;
  // The precision the engine runs: Options::precision, or kFp32 where the device runs the
  // low type no faster (precision_note() then says why; Options::emulate_low_precision).
  Precision precision() const;
  std::string precision_note() const;  // "" when precision() is what was asked for
  std::string device_name() const;     // "CPU: AMD EPYC ... (avx512f, avx512_bf16)" or GPU
  MemoryReport memory() const;
  LoadTimings load_timings() const;
  // The planned graph, one node per line: name, op, dtype, inputs -> outputs.
  std::string plan_summary() const;
  // The AMP precision report (JSON text; see README "Precision report"). "{}" for fp32.
  std::string precision_report_json() const;
  // The AMP policy the engine was planned with, as a policy file (README "Policy file"): the
  // overrides, plus each node's dtype that calibration and the accuracy search decided
  // ("node_dtypes"). Loading with it as Options::policy_file gives the same plan without
  // calibration data. "{}" for an fp32 engine.
  std::string policy_json() const;
  // The planned graph as Graphviz DOT, nodes colored by precision.
  std::string precision_report_dot() const;

 private:
  explicit Engine(std::shared_ptr<EngineImpl> impl);
  std::shared_ptr<EngineImpl> impl_;
};

}  // namespace amp
