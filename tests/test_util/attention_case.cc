#include "tests/test_util/attention_case.h"

#include <cmath>
#include <random>

#include "graph/ir/graph_builder.h"
#include "runtime/common/half.h"

namespace amp::test {
namespace {

using graph::TensorData;

int64_t count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// `v` rounded to `t` (f32, f64, f16, bf16).
TensorData float_tensor(DType t, const std::vector<int64_t>& dims, const std::vector<double>& v) {
  if (t == DType::kF64) return TensorData::from_vector<double>(t, dims, v);
  if (t == DType::kF32) return TensorData::from_vector<float>(t, dims, {v.begin(), v.end()});
  std::vector<uint16_t> bits(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    bits[i] = t == DType::kF16 ? float_to_half_bits(static_cast<float>(v[i]))
                               : float_to_bf16_bits(static_cast<float>(v[i]));
  return TensorData::from_vector<uint16_t>(t, dims, bits);
}

TensorData random_from(DType t, const std::vector<int64_t>& dims, std::mt19937& gen, float range) {
  std::uniform_real_distribution<float> u(-range, range);
  std::vector<double> v(static_cast<size_t>(count(dims)));
  for (double& x : v) x = u(gen);
  return float_tensor(t, dims, v);
}

}  // namespace

TensorData random_float_tensor(DType t, const std::vector<int64_t>& dims, unsigned seed,
                               float range) {
  std::mt19937 gen(seed);
  return random_from(t, dims, gen, range);
}

AttentionGraph attention_graph(const AttentionCase& c, DType t, unsigned seed, float range) {
  std::mt19937 gen(seed);
  graph::GraphBuilder b;
  AttentionGraph out;
  auto input = [&](const std::string& name, TensorData data) {
    const graph::ValueId id = b.input(name, data.dtype(), graph::Shape::from_static(data.dims()));
    out.inputs[name] = std::move(data);
    return id;
  };
  std::vector<graph::ValueId> ins = {input("q", random_from(t, c.q, gen, range)),
                                     input("k", random_from(t, c.k, gen, range)),
                                     input("v", random_from(t, c.v, gen, range))};
  if (!c.mask.empty()) {
    const size_t n = static_cast<size_t>(count(c.mask_dims));
    if (c.mask == "bool") {
      std::vector<uint8_t> m(n);
      for (size_t i = 0; i < n; ++i) m[i] = (i * 7 + 3) % 5 != 0;  // some keys hidden
      ins.push_back(input("mask", TensorData::from_vector<uint8_t>(DType::kBool, c.mask_dims, m)));
    } else {
      std::vector<double> m(n);
      for (size_t i = 0; i < n; ++i) m[i] = (i % 4 == 1) ? -INFINITY : 0.25 * (i % 3);
      if (c.mask == "float_all_masked_row")
        for (int64_t j = 0; j < c.mask_dims.back(); ++j) m[static_cast<size_t>(j)] = -INFINITY;
      ins.push_back(input("mask", float_tensor(t, c.mask_dims, m)));
    }
  }
  if (c.past) {
    if (c.mask.empty()) ins.push_back(graph::kNoValue);
    const std::vector<int64_t> pk = {c.k[0], c.k[1], 3, c.k[3]}, pv = {c.v[0], c.v[1], 3, c.v[3]};
    ins.push_back(input("past_k", random_from(t, pk, gen, range)));
    ins.push_back(input("past_v", random_from(t, pv, gen, range)));
  }
  if (!c.nonpad.empty()) {
    ins.resize(6, graph::kNoValue);
    ins.push_back(input("nonpad_kv_seqlen",
                        TensorData::from_vector<int64_t>(
                            DType::kI64, {static_cast<int64_t>(c.nonpad.size())}, c.nonpad)));
  }
  graph::Attributes at;
  if (c.q_heads) at.set("q_num_heads", c.q_heads);
  if (c.kv_heads) at.set("kv_num_heads", c.kv_heads);
  if (c.causal) at.set("is_causal", int64_t{1});
  if (c.softcap > 0) at.set("softcap", c.softcap);
  if (c.scale > 0) at.set("scale", c.scale);
  if (c.qk_mode >= 0) {
    at.set("qk_matmul_output_mode", int64_t{c.qk_mode});
    for (graph::ValueId v : b.node_multi(graph::OpType::kAttention, ins, 4, at)) b.output(v);
  } else if (c.present) {
    for (graph::ValueId v : b.node_multi(graph::OpType::kAttention, ins, 3, at)) b.output(v);
  } else {
    b.output(b.node(graph::OpType::kAttention, ins, at));
  }
  out.graph = b.build();
  return out;
}

}  // namespace amp::test
