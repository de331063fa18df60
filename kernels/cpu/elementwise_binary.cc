// The variadic Max and Min with numpy broadcasting, on float and integer storage. Output 0
// may overwrite input 0 when their shapes match. (Two-input arithmetic is the family table's,
// elementwise_family.cc.)
#include <cstring>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

using graph::OpType;

template <typename T>
inline constexpr bool kNumeric = ew::kIsFloatStorage<T> || std::is_integral_v<T>;

Status check_numeric(DType t) {
  if (is_float(t) || is_integer(t)) return Status::ok();
  return unsupported("dtype " + std::string(dtype_name(t)) + " is not supported");
}

// out = Op(a, b) over a plan; T is the storage type of a, b and out.
template <typename T, typename Op>
void run_binary(const BroadcastPlan& p, const void* a, const void* b, void* out, int threads) {
  binary_loop(p, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), threads,
              [](T x, T y) { return ew::store<T>(Op{}(ew::load(x), ew::load(y))); });
}

// Max / Min over 1..N inputs, folded pairwise into the output: out = Op(in0, in1), then
// out = Op(out, in_k). Exact in any storage type (the result is always one of the inputs).
template <typename Op>
class VariadicKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    if (cfg.inputs.empty()) return invalid_model("takes at least 1 input, has 0");
    const size_t n = cfg.inputs.size();
    AMP_RETURN_IF_ERROR(check_arity(cfg, n, n));
    dtype_ = cfg.inputs[0].dtype;
    AMP_RETURN_IF_ERROR(check_numeric(dtype_));
    for (size_t i = 1; i < n; ++i) AMP_RETURN_IF_ERROR(check_input_dtype(cfg, i, dtype_));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, dtype_));
    std::vector<std::vector<int64_t>> all;
    for (const TensorDesc& d : cfg.inputs) all.push_back(d.dims);
    AMP_ASSIGN_OR_RETURN(std::vector<int64_t> out_dims, broadcast_dims(all));
    if (out_dims != cfg.outputs[0].dims)
      return invalid_model("output shape is not the broadcast of the inputs");
    num_inputs_ = n;
    plans_.clear();
    // Step 0 pairs input 0 with input 1 (with itself when alone: Op(x, x) = x).
    AMP_ASSIGN_OR_RETURN(BroadcastPlan first,
                         make_broadcast_plan_to({all[0], all[n > 1 ? 1 : 0]}, out_dims));
    plans_.push_back(first);
    for (size_t i = 2; i < n; ++i) {
      AMP_ASSIGN_OR_RETURN(BroadcastPlan p, make_broadcast_plan({out_dims, all[i]}, out_dims));
      plans_.push_back(p);
    }
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    return visit_dtype(dtype_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      if constexpr (kNumeric<T>) {
        void* out = a.outputs[0];
        const void* second = a.inputs[num_inputs_ > 1 ? 1 : 0];
        run_binary<T, Op>(plans_[0], a.inputs[0], second, out, a.num_threads);
        for (size_t i = 2; i < num_inputs_; ++i)
          run_binary<T, Op>(plans_[i - 1], out, a.inputs[i], out, a.num_threads);
        return Status::ok();
      } else {
        return unexpected_dtype(dtype_);
      }
    });
  }

 private:
  DType dtype_ = DType::kUndefined;
  size_t num_inputs_ = 0;
  std::vector<BroadcastPlan> plans_;  // plans_[0]: (in0, in1); plans_[i - 1]: (out, in_i)
};

}  // namespace

void register_binary_kernels(KernelRegistry& r) {
  const std::vector<DType>& numeric = numeric_dtypes();
  r.add_all(OpType::kMax, Backend::kCpu, numeric, make_factory<VariadicKernel<ew::Max>>(), 0);
  r.add_all(OpType::kMin, Backend::kCpu, numeric, make_factory<VariadicKernel<ew::Min>>(), 0);
}

}  // namespace amp::kernels::cpu
