// LSTM, GRU and RNN on the GPU, mirroring kernels/cpu/recurrent.cc (same plan, offsets,
// activations and numerics, kernels/common/recurrent_plan.h): one block per (direction, batch
// entry) walks the time steps; its threads split the hidden units, and the block synchronizes
// between the gates, the state update and the next step. The state lives in the workspace in
// the compute type. Not tuned: cuDNN's RNN API or one cuBLASLt GEMM of X * W^T over all steps
// plus this cell kernel is the next step for large hidden sizes.
#include "kernels/common/checked_kernel.h"
#include "kernels/common/recurrent_plan.h"
#include "kernels/common/reduction_family.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_util.h"

namespace amp::kernels::cuda {
namespace {

struct RecurrentArgs {
  const void* x;
  const void* w;
  const void* r;
  const void* bias;
  const void* lens;
  const void* h0;
  const void* c0;
  const void* peep;
  void* y;
  void* yh;
  void* yc;
};

template <typename T, typename X, typename C>
__device__ C row_dot(const T* w, const X* x, int64_t n) {
  C s = C(0);
  for (int64_t k = 0; k < n; ++k) s += to_compute(w[k]) * static_cast<C>(to_compute(x[k]));
  return s;
}

template <typename T>
__global__ void recurrent_kernel(RecurrentArgs args, RecurrentPlan p,
                                 compute_t<T>* __restrict__ ws) {
  using C = compute_t<T>;
  const int d = static_cast<int>(blockIdx.x / p.batch);
  const int64_t b = blockIdx.x % p.batch;
  const int64_t H = p.hidden;
  C* h = ws + blockIdx.x * (4 + p.gates) * H;
  C* c = h + H;
  C* h_next = c + H;
  C* rh = h_next + H;
  C* pre = rh + H;
  const T* x = static_cast<const T*>(args.x);
  const T* w = static_cast<const T*>(args.w);
  const T* r = static_cast<const T*>(args.r);
  const T* bias = static_cast<const T*>(args.bias);
  const T* peep = static_cast<const T*>(args.peep);
  const int64_t so = rnn_state_offset(p, d, b);
  for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
    h[j] = p.has_h0 ? to_compute(static_cast<const T*>(args.h0)[so + j]) : C(0);
    c[j] = p.has_c0 ? to_compute(static_cast<const T*>(args.c0)[so + j]) : C(0);
  }
  __syncthreads();
  const graph::RnnActivation* act = p.act[d];
  const bool reverse = p.reverse_only || d == 1;
  const int64_t len = rnn_length(p, args.lens, b);
  const bool gru = p.kind == graph::RecurrentAttrs::kGru;
  for (int64_t s = 0; s < len; ++s) {
    const int64_t t = reverse ? len - 1 - s : s;
    const T* xt = x + rnn_x_offset(p, t, b);
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
      for (int g = 0; g < p.gates; ++g) {
        C v = row_dot<T, T, C>(w + rnn_w_row(p, d, g, j), xt, p.input);
        if (bias) v += to_compute(bias[rnn_wb(p, d, g, j)]);
        if (!(gru && g == kGateH)) {
          v += row_dot<T, C, C>(r + rnn_r_row(p, d, g, j), h, H);
          if (bias) v += to_compute(bias[rnn_rb(p, d, g, j)]);
        }
        pre[g * H + j] = v;
      }
    }
    __syncthreads();
    if (p.kind == graph::RecurrentAttrs::kRnn) {
      for (int64_t j = threadIdx.x; j < H; j += blockDim.x)
        h_next[j] = rnn_activate(act[0], rnn_clip(pre[j], p.clip));
    } else if (p.kind == graph::RecurrentAttrs::kLstm) {
      for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
        const C pi = peep ? to_compute(peep[d * 3 * H + j]) : C(0);
        const C po = peep ? to_compute(peep[d * 3 * H + H + j]) : C(0);
        const C pf = peep ? to_compute(peep[d * 3 * H + 2 * H + j]) : C(0);
        h_next[j] = lstm_unit(p, act, pre, j, pi, po, pf, &c[j]);
      }
    } else {
      C* z = pre + kGateZ * H;
      C* rg = pre + kGateR * H;
      for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
        z[j] = rnn_activate(act[0], rnn_clip(z[j], p.clip));
        rg[j] = rnn_activate(act[0], rnn_clip(rg[j], p.clip));
        rh[j] = rg[j] * h[j];
      }
      __syncthreads();
      for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
        const T* rrow = r + rnn_r_row(p, d, kGateH, j);
        const C rb = bias ? to_compute(bias[rnn_rb(p, d, kGateH, j)]) : C(0);
        const C rec = p.linear_before_reset ? rg[j] * (row_dot<T, C, C>(rrow, h, H) + rb)
                                            : row_dot<T, C, C>(rrow, rh, H) + rb;
        h_next[j] = gru_unit(p, act, pre, j, z[j], rec, h[j]);
      }
    }
    __syncthreads();
    for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
      h[j] = h_next[j];
      if (args.y) static_cast<T*>(args.y)[rnn_y_offset(p, t, d, b) + j] = from_compute<T>(h[j]);
    }
    __syncthreads();
  }
  for (int64_t j = threadIdx.x; j < H; j += blockDim.x) {
    if (args.yh) static_cast<T*>(args.yh)[so + j] = from_compute<T>(h[j]);
    if (args.yc) static_cast<T*>(args.yc)[so + j] = from_compute<T>(c[j]);
  }
}

template <typename T>
class RecurrentKernel : public CheckedKernel<T, RecurrentPlan, check_recurrent_io> {
  using C = compute_t<T>;

 public:
  size_t workspace_bytes() const override {
    const RecurrentPlan& p = this->shape_;
    return static_cast<size_t>(p.directions * p.batch * (4 + p.gates) * p.hidden) * sizeof(C);
  }

  Status run(const KernelArgs& a) const override {
    const RecurrentPlan& p = this->shape_;
    const cudaStream_t st = static_cast<cudaStream_t>(a.stream);
    if (p.has_y) {
      // Steps past a sequence's length stay zero (0 bits are 0 in every float type).
      const size_t bytes =
          static_cast<size_t>(p.seq * p.directions * p.batch * p.hidden) * sizeof(T);
      AMP_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(a.outputs[0], 0, bytes, st));
    }
    if (p.batch == 0) return Status::ok();
    RecurrentArgs args{a.inputs[0],
                       a.inputs[1],
                       a.inputs[2],
                       p.has_bias ? a.inputs[3] : nullptr,
                       p.has_lens ? a.inputs[4] : nullptr,
                       p.has_h0 ? a.inputs[5] : nullptr,
                       p.has_c0 ? a.inputs[6] : nullptr,
                       p.has_p ? a.inputs[7] : nullptr,
                       p.has_y ? a.outputs[0] : nullptr,
                       p.has_yh ? a.outputs[1] : nullptr,
                       p.has_yc ? a.outputs[2] : nullptr};
    const unsigned blocks = static_cast<unsigned>(p.directions * p.batch);
    const int threads =
        p.hidden >= kThreads ? kThreads : static_cast<int>((p.hidden + 31) / 32 * 32);
    recurrent_kernel<T><<<blocks, threads, 0, st>>>(args, p, static_cast<C*>(a.workspace));
    return launch_status("recurrent_kernel");
  }
};

}  // namespace

void register_recurrent_kernels(KernelRegistry& r) {
  for (graph::OpType op : {graph::OpType::kLSTM, graph::OpType::kGRU, graph::OpType::kRNN})
    add_typed_kernels<RecurrentKernel>(r, op, Backend::kCuda, reduction::FloatTypes{});
}

}  // namespace amp::kernels::cuda
