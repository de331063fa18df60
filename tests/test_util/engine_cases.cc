#include "tests/test_util/engine_cases.h"

#include <algorithm>
#include <cmath>

#include "tests/test_util/node_tests.h"

namespace amp::test {

Tensor to_tensor(const graph::TensorData& t) {
  return Tensor::from_bytes(t.dtype(), t.dims(), t.bytes(), t.byte_size());
}

graph::TensorData to_data(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  return graph::TensorData::from_bytes(t.dtype(), t.shape(),
                                       std::vector<uint8_t>(p, p + t.byte_size()))
      .value();
}

std::string run_case(const std::filesystem::path& dir, const Options& opt, double rtol,
                     double atol) {
  try {
    Engine engine = Engine::load((dir / "model.onnx").string(), opt);
    auto inputs = load_case_tensors(dir, "input");
    auto expected = load_case_tensors(dir, "output");
    if (!inputs.is_ok()) return inputs.status().to_string();
    if (!expected.is_ok()) return expected.status().to_string();
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < engine.inputs().size() && i < inputs->size(); ++i)
      named.push_back({engine.inputs()[i].name, to_tensor((*inputs)[i])});
    std::vector<Tensor> outs = engine.run(named);
    if (outs.size() != expected->size()) return "output count differs";
    for (size_t i = 0; i < outs.size(); ++i) {
      std::string why = compare_tensors((*expected)[i], to_data(outs[i]), rtol, atol);
      if (!why.empty()) return "output " + std::to_string(i) + ": " + why;
    }
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

Agreement agreement(const graph::TensorData& expected, const Tensor& actual) {
  Agreement r;
  const std::vector<double> e = expected.to_f64_vector();
  const std::vector<float> a = actual.to_float_vector();
  if (e.size() != a.size()) return r;
  double dot = 0, ne = 0, na = 0;
  for (size_t k = 0; k < e.size(); ++k) {
    dot += e[k] * a[k];
    ne += e[k] * e[k];
    na += double(a[k]) * a[k];
    r.max_abs = std::max(r.max_abs, std::fabs(e[k] - a[k]));
    r.scale = std::max(r.scale, std::fabs(e[k]));
    r.max_rel = std::max(r.max_rel, std::fabs(e[k] - a[k]) / std::max(std::fabs(e[k]), 1e-3));
  }
  r.cosine = ne == 0 && na == 0 ? 1.0 : ne == 0 || na == 0 ? 0.0 : dot / std::sqrt(ne * na);
  const auto& dims = expected.dims();
  if (dims.size() == 2 && dims[1] > 1) {
    for (int64_t row = 0; row < dims[0]; ++row) {
      auto eb = e.begin() + row * dims[1];
      auto ab = a.begin() + row * dims[1];
      r.argmax_same = r.argmax_same && (std::max_element(eb, eb + dims[1]) - eb ==
                                        std::max_element(ab, ab + dims[1]) - ab);
    }
  }
  return r;
}

double cosine(const Tensor& expected, const Tensor& actual) {
  return agreement(to_data(expected), actual).cosine;
}

}  // namespace amp::test
