// Attention (opset 23/24) on the CPU, the algorithm of kernels/common/attention_plan.h: one
// query row at a time, its T scores and Dv accumulators in a per-thread slice of the
// workspace, fp32 arithmetic (f64 for f64). A first version: plain loops, no blocking, no oneDNN;
// the scores of one row stay in L1/L2 for the usual lengths.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/common/attention_plan.h"
#include "kernels/common/checked_kernel.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cpu/cpu_common.h"
#include "kernels/cpu/reduce_util.h"

namespace amp::kernels::cpu {
namespace {

template <typename T>
class AttentionKernel : public SetupKernel<AttentionPlan, check_attention_io> {
  using C = compute_t<T>;

 public:
  Status prepare_params(const KernelConfig& cfg) override {
    threads_ = std::max(1, cfg.num_threads);
    return Status::ok();
  }

  size_t workspace_bytes() const override {
    return static_cast<size_t>(threads_) * static_cast<size_t>(row_scratch()) * sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    const T* q = a.input<T>(0);
    const T* k = a.input<T>(1);
    const T* v = a.input<T>(2);
    const void* mask = setup_.has_mask ? a.inputs[3] : nullptr;
    const T* past_k = setup_.has_past ? a.input<T>(4) : nullptr;
    const T* past_v = setup_.has_past ? a.input<T>(5) : nullptr;
    const int64_t* nonpad = setup_.has_nonpad ? a.input<int64_t>(6) : nullptr;
    if (setup_.want_present) {
      write_present(past_k, k, setup_.k, setup_.head_size, a.output<T>(1));
      write_present(past_v, v, setup_.v, setup_.v_head_size, a.output<T>(2));
    }
    T* y = a.output<T>(0);
    T* qk = setup_.want_qk ? a.output<T>(3) : nullptr;
    const int64_t rows = setup_.batch * setup_.q_heads * setup_.q_len;
    const int chunks = static_cast<int>(std::min<int64_t>({threads_, a.num_threads, rows}));
    C* scratch = static_cast<C*>(a.workspace);
    parallel_for(
        std::max(chunks, 1), chunks,
        [&](int64_t c0, int64_t c1) {
          for (int64_t c = c0; c < c1; ++c) {
            C* s = scratch + c * row_scratch();
            for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r)
              row(r, q, k, v, past_k, past_v, mask, nonpad, y, qk, s);
          }
        },
        /*grain=*/1);
    return Status::ok();
  }

 private:
  // One row's scores, then its output accumulators.
  int64_t row_scratch() const { return setup_.total + setup_.v_head_size; }

  // present = past (if any) then the new keys/values, [B, Hkv, T, size].
  void write_present(const T* past, const T* now, const HeadStrides& st, int64_t size,
                     T* out) const {
    for (int64_t b = 0; b < setup_.batch; ++b)
      for (int64_t h = 0; h < setup_.kv_heads; ++h) {
        T* dst = out + (b * setup_.kv_heads + h) * setup_.total * size;
        if (setup_.past_len > 0)
          std::memcpy(dst, past + (b * setup_.kv_heads + h) * setup_.past_len * size,
                      static_cast<size_t>(setup_.past_len * size) * sizeof(T));
        for (int64_t j = 0; j < setup_.kv_len; ++j)
          std::memcpy(dst + (setup_.past_len + j) * size, now + st.at(b, h, j),
                      static_cast<size_t>(size) * sizeof(T));
      }
  }

  // Key or value row j of kv head h: from the past, else from the new tensor.
  const T* kv_row(const T* past, const T* now, const HeadStrides& st, int64_t size, int64_t b,
                  int64_t h, int64_t j) const {
    if (j < setup_.past_len) return past + ((b * setup_.kv_heads + h) * setup_.past_len + j) * size;
    return now + st.at(b, h, j - setup_.past_len);
  }

  void row(int64_t r, const T* q, const T* k, const T* v, const T* past_k, const T* past_v,
           const void* mask, const int64_t* nonpad, T* y, T* qk, C* s) const {
    const int64_t i = r % setup_.q_len;
    const int64_t h = (r / setup_.q_len) % setup_.q_heads;
    const int64_t b = r / (setup_.q_len * setup_.q_heads);
    const int64_t kvh = h / setup_.group();
    const T* qr = q + setup_.q.at(b, h, i);
    const C scale = static_cast<C>(setup_.scale);
    T* qk_row = qk ? qk + r * setup_.total : nullptr;
    C max = -C(INFINITY);
    for (int64_t j = 0; j < setup_.total; ++j) {
      const T* kr = kv_row(past_k, k, setup_.k, setup_.head_size, b, kvh, j);
      C dot = C(0);
      for (int64_t d = 0; d < setup_.head_size; ++d) dot += to_compute(qr[d]) * to_compute(kr[d]);
      C sj = attention_softcap(dot * scale, setup_.softcap);
      if (qk_row && setup_.qk_output_mode <= 1) qk_row[j] = from_compute<T>(sj);
      sj += attention_bias<C>(setup_, mask, nonpad, b, h, i, j);
      if (qk_row && setup_.qk_output_mode == 2) qk_row[j] = from_compute<T>(sj);
      s[j] = sj;
      max = std::max(max, sj);
    }
    const bool none = max == -C(INFINITY);  // every key masked: the row attends to nothing
    C sum = C(0);
    for (int64_t j = 0; j < setup_.total; ++j) {
      s[j] = none ? C(0) : std::exp(s[j] - max);
      sum += s[j];
    }
    const C inv = none ? C(0) : C(1) / sum;
    for (int64_t j = 0; j < setup_.total; ++j) {
      s[j] *= inv;
      if (qk_row && setup_.qk_output_mode == 3) qk_row[j] = from_compute<T>(s[j]);
    }
    C* acc = s + setup_.total;
    std::fill(acc, acc + setup_.v_head_size, C(0));
    for (int64_t j = 0; j < setup_.total; ++j) {
      const T* vr = kv_row(past_v, v, setup_.v, setup_.v_head_size, b, kvh, j);
      const C w = s[j];
      for (int64_t d = 0; d < setup_.v_head_size; ++d) acc[d] += w * to_compute(vr[d]);
    }
    T* yr = y + setup_.y.at(b, h, i);
    for (int64_t d = 0; d < setup_.v_head_size; ++d) yr[d] = from_compute<T>(acc[d]);
  }

  int64_t threads_ = 1;
};

}  // namespace

void register_attention_kernels(KernelRegistry& r) {
  add_typed_kernels<AttentionKernel>(r, graph::OpType::kAttention, Backend::kCpu,
                                     reduction::FloatTypes{});
}

}  // namespace amp::kernels::cpu
