// Mixed precision in practice: load the same model in fp32, fp16 and bf16, with a policy
// file that pins the classifier head to fp32; print the precision report and the accuracy
// of each low-precision run against fp32.
// Usage: sample_mixed_precision MODEL.amp [POLICY.json]
#include <amp/engine.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

amp::Tensor random_input(const amp::TensorInfo& in) {
  std::vector<int64_t> shape = in.shape;
  for (int64_t& d : shape) d = d < 0 ? 2 : d;
  amp::Tensor t = amp::Tensor::empty(in.dtype, shape);
  std::mt19937 rng(7);
  if (in.dtype == amp::DType::kF32) {
    std::normal_distribution<float> n(0.0f, 1.0f);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = n(rng);
  } else if (in.dtype == amp::DType::kI64) {
    for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = static_cast<int64_t>(rng() % 64);
  }
  return t;
}

void compare(const char* label, const std::vector<float>& ref, const std::vector<float>& got) {
  double dot = 0, a = 0, b = 0, max_rel = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    dot += double(ref[i]) * got[i];
    a += double(ref[i]) * ref[i];
    b += double(got[i]) * got[i];
    max_rel =
        std::max(max_rel, std::fabs(ref[i] - got[i]) / std::max(1e-6, std::fabs(double(ref[i]))));
  }
  std::printf("  %-5s cosine %.6f  max rel err %.2e\n", label, dot / std::sqrt(a * b), max_rel);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: %s MODEL [POLICY.json]\n", argv[0]), 2;
  try {
    amp::Options fp32;
    amp::Engine ref = amp::Engine::load(argv[1], fp32);
    const amp::TensorInfo& in = ref.inputs()[0];
    amp::Tensor x = random_input(in);
    std::vector<float> want = ref.run({{in.name, x}})[0].to_float_vector();

    std::printf("accuracy against fp32:\n");
    for (amp::Precision p : {amp::Precision::kFp16, amp::Precision::kBf16}) {
      amp::Options opt;
      opt.precision = p;
      opt.emulate_low_precision = true;  // the AMP plan, even on a CPU without AMX
      if (argc > 2) opt.policy_file = argv[2];
      amp::Engine engine = amp::Engine::load(argv[1], opt);
      compare(amp::precision_name(p), want, engine.run({{in.name, x}})[0].to_float_vector());
      if (p == amp::Precision::kFp16)
        std::printf("fp16 precision report:\n%s\n", engine.precision_report_json().c_str());
    }
    return 0;
  } catch (const amp::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
