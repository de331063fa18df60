// amp-bench: median latency of every model in a models folder (default ../shared/models),
// at 1 and 2 threads, CPU backend, after warm-up. `cmake --build build --target bench` runs
// it. Inputs are each model's test_data_set_0 inputs when present, else seeded random data
// of the model's input shape with symbolic dims set to 1.
//
// Usage: amp-bench [MODELS_DIR] [--runs N] [--precision fp32|fp16|bf16]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "amp/tensor_io.h"

namespace fs = std::filesystem;

namespace {

amp::Tensor random_input(const amp::TensorInfo& info, unsigned seed) {
  std::vector<int64_t> dims;
  for (int64_t d : info.shape) dims.push_back(d < 0 ? 1 : d);
  amp::Tensor t = amp::Tensor::empty(info.dtype, dims);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  if (info.dtype == amp::DType::kF32) {
    float* p = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = u(rng);
  }
  return t;
}

double median_ms(amp::Engine& engine, const std::vector<amp::NamedTensor>& in, int runs) {
  for (int i = 0; i < 5; ++i) engine.run(in);  // warm-up: plans, caches, page faults
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    engine.run(in);
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = "../shared/models";
  int runs = 50;
  amp::Precision precision = amp::Precision::kFp32;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--precision" && i + 1 < argc) {
      std::string p = argv[++i];
      precision = p == "fp16"   ? amp::Precision::kFp16
                  : p == "bf16" ? amp::Precision::kBf16
                                : amp::Precision::kFp32;
    } else
      dir = a;
  }
  if (!fs::is_directory(dir)) {
    std::cout << "amp-bench: no models folder at " << dir << " (skipped)\n";
    return 0;
  }
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(dir))
    if (fs::exists(e.path() / "model.onnx")) models.push_back(e.path());
  std::sort(models.begin(), models.end());
  std::printf("%-34s %14s %14s\n", "model", "1 thread (ms)", "2 threads (ms)");
  int failures = 0;
  for (const fs::path& m : models) {
    double t[2] = {0, 0};
    try {
      for (int threads : {1, 2}) {
        amp::Options opt;
        opt.backend = amp::BackendKind::kCpu;
        opt.threads = threads;
        opt.precision = precision;
        amp::Engine engine = amp::Engine::load((m / "model.onnx").string(), opt);
        std::vector<amp::NamedTensor> in;
        unsigned seed = 1;
        for (size_t k = 0; k < engine.inputs().size(); ++k) {
          const auto& info = engine.inputs()[k];
          const fs::path pb = m / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb");
          in.push_back({info.name, fs::exists(pb) ? amp::load_tensor_pb(pb.string())
                                                  : random_input(info, seed++)});
        }
        t[threads - 1] = median_ms(engine, in, runs);
      }
      std::printf("%-34s %14.3f %14.3f\n", m.filename().c_str(), t[0], t[1]);
    } catch (const amp::Error& e) {
      std::printf("%-34s FAILED: %s\n", m.filename().c_str(), e.what());
      ++failures;
    }
  }
  return failures ? 1 : 0;
}
