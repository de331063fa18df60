// CUDA Where(cond, X, Y) with numpy broadcasting. Mirrors kernels/cpu/elementwise_where.cc.
// Where copies elements, so one kernel per element size (1/2/4/8 bytes) serves every dtype
// of X and Y, float bits and NaN payloads unchanged. (Comparisons and And are the family
// table's, elementwise_family.cu.)
#include <type_traits>

#include "kernels/cuda/elementwise_device.h"

namespace amp::kernels::cuda {
namespace {

using graph::OpType;

template <typename U>
struct WhereF {
  __device__ __forceinline__ U operator()(ew::Bool c, U x, U y) const { return c.v != 0 ? x : y; }
};

// Where's 8-byte element: an aligned 64-bit integer (tensors of 8-byte types are 8-aligned).
class WhereKernel final : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) override {
    AMP_RETURN_IF_ERROR(check_arity(cfg, 3, 3));
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 0, DType::kBool));
    const DType t = cfg.inputs[1].dtype;
    elem_size_ = dtype_size(t);
    if (elem_size_ == 0) return invalid_model("input 1 has no dtype");
    AMP_RETURN_IF_ERROR(check_input_dtype(cfg, 2, t));
    AMP_RETURN_IF_ERROR(check_output_dtype(cfg, t));
    AMP_ASSIGN_OR_RETURN(plan_,
                         make_plan3({cfg.inputs[0].dims, cfg.inputs[1].dims, cfg.inputs[2].dims},
                                    cfg.outputs[0].dims, true));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const cudaStream_t s = static_cast<cudaStream_t>(a.stream);
    const ew::Bool* c = a.input<ew::Bool>(0);
    switch (elem_size_) {
      case 1:
        return launch_map3(plan_, c, a.input<uint8_t>(1), a.input<uint8_t>(2), a.output<uint8_t>(0),
                           WhereF<uint8_t>{}, s);
      case 2:
        return launch_map3(plan_, c, a.input<uint16_t>(1), a.input<uint16_t>(2),
                           a.output<uint16_t>(0), WhereF<uint16_t>{}, s);
      case 4:
        return launch_map3(plan_, c, a.input<uint32_t>(1), a.input<uint32_t>(2),
                           a.output<uint32_t>(0), WhereF<uint32_t>{}, s);
      case 8:
        return launch_map3(plan_, c, a.input<uint64_t>(1), a.input<uint64_t>(2),
                           a.output<uint64_t>(0), WhereF<uint64_t>{}, s);
      default:
        break;
    }
    return internal_error("Where: element size " + std::to_string(elem_size_));
  }

 private:
  size_t elem_size_ = 0;
  DevicePlan<3> plan_;
};

}  // namespace

void register_where_kernels(KernelRegistry& r) {
  const Backend kCuda = Backend::kCuda;
  // Looked up by X's dtype when it is a float type, else by cond's (bool): registered for
  // bool and each float type, and any X dtype is handled.
  std::vector<DType> where_keys = float_dtypes();
  where_keys.push_back(DType::kBool);
  r.add_all(OpType::kWhere, kCuda, where_keys, make_factory<WhereKernel>());
}

}  // namespace amp::kernels::cuda
