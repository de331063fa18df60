// Where(cond, X, Y) with numpy broadcasting over all three. Selection copies elements, so
// the loop depends only on the element size: one loop per 1/2/4/8-byte type serves every
// dtype of X and Y (float bits, NaN payloads included, pass through unchanged).
//
// Looked up by X's dtype when it is a float type, else by cond's (bool): registered for
// bool and each float type, and any X dtype is handled.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/elementwise_cpu.h"

namespace amp::kernels::cpu {
namespace {

template <typename U>
void where_loop(const BroadcastPlan& p, const uint8_t* c, const U* x, const U* y, U* out,
                int threads) {
  const int64_t sc = p.inner_stride(0), sx = p.inner_stride(1), sy = p.inner_stride(2);
  parallel_for(p.numel, threads, [&](int64_t begin, int64_t end) {
    for_each_row(p, begin, end, [&](int64_t o, int64_t n, const int64_t* off) {
      const uint8_t* cr = c + off[0];
      const U* xr = x + off[1];
      const U* yr = y + off[2];
      U* orow = out + o;
      if (sc == 1 && sx == 1 && sy == 1) {
        for (int64_t i = 0; i < n; ++i) orow[i] = cr[i] != 0 ? xr[i] : yr[i];
      } else {
        for (int64_t i = 0; i < n; ++i) orow[i] = cr[i * sc] != 0 ? xr[i * sx] : yr[i * sy];
      }
    });
  });
}

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
    AMP_ASSIGN_OR_RETURN(
        plan_, make_broadcast_plan({cfg.inputs[0].dims, cfg.inputs[1].dims, cfg.inputs[2].dims},
                                   cfg.outputs[0].dims));
    return Status::ok();
  }

  Status run(const KernelArgs& a) const override {
    const uint8_t* c = a.input<uint8_t>(0);
    switch (elem_size_) {
      case 1:
        where_loop(plan_, c, a.input<uint8_t>(1), a.input<uint8_t>(2), a.output<uint8_t>(0),
                   a.num_threads);
        return Status::ok();
      case 2:
        where_loop(plan_, c, a.input<uint16_t>(1), a.input<uint16_t>(2), a.output<uint16_t>(0),
                   a.num_threads);
        return Status::ok();
      case 4:
        where_loop(plan_, c, a.input<uint32_t>(1), a.input<uint32_t>(2), a.output<uint32_t>(0),
                   a.num_threads);
        return Status::ok();
      case 8:
        where_loop(plan_, c, a.input<uint64_t>(1), a.input<uint64_t>(2), a.output<uint64_t>(0),
                   a.num_threads);
        return Status::ok();
      default:
        break;
    }
    return internal_error("Where: element size " + std::to_string(elem_size_));
  }

 private:
  size_t elem_size_ = 0;
  BroadcastPlan plan_;
};

}  // namespace

void register_where_kernels(KernelRegistry& r) {
  std::vector<DType> keys = float_dtypes();
  keys.push_back(DType::kBool);
  r.add_all(graph::OpType::kWhere, Backend::kCpu, keys, make_factory<WhereKernel>());
}

}  // namespace amp::kernels::cpu
