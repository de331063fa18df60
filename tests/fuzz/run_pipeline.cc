#include "tests/fuzz/run_pipeline.h"

#include <unistd.h>

#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <vector>

#include "amp/engine.h"
#include "graph/serialize/amp_format.h"
#include "runtime/common/half.h"

namespace amp::fuzz {
namespace {

constexpr size_t kMemoryCap = size_t{64} << 20;
// Inputs larger than this are not made: the model is loaded but not run (a run that large
// says nothing the memory cap does not).
constexpr int64_t kMaxInputElements = int64_t{1} << 20;

uint64_t fnv1a(const uint8_t* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

// splitmix64: a deterministic stream of values from the model's hash.
struct Stream {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(next() >> 40) / static_cast<float>(1 << 24);
  }
  int64_t integer(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

bool is_onnx(const uint8_t* data, size_t size) {
  return !(size >= graph::kAmpIdentifierOffset + 4 &&
           std::memcmp(data + graph::kAmpIdentifierOffset, graph::kAmpFileIdentifier, 4) == 0);
}

template <typename T>
void fill_ints(Tensor& t, Stream& s) {
  T* p = static_cast<T*>(t.raw_data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(s.integer(-2, 5));
}

// One input as the model declares it, symbolic dims bound to `symbolic_dim`. False when it
// cannot be made (undefined dtype, or too large).
bool make_input(const TensorInfo& info, int64_t symbolic_dim, Stream& s, Tensor& out) {
  if (dtype_size(info.dtype) == 0) return false;
  std::vector<int64_t> shape = info.shape;
  int64_t count = 1;
  for (int64_t& d : shape) {
    if (d < 0) d = symbolic_dim;
    if (d > kMaxInputElements) return false;
    count *= d;
    if (count > kMaxInputElements) return false;
  }
  out = Tensor::empty(info.dtype, shape);
  const size_t n = static_cast<size_t>(out.numel());
  if (n == 0) return true;  // nothing to fill (and memcpy may not take an empty vector's null)
  std::vector<float> f(n);
  for (float& v : f) v = s.uniform(-3.0f, 3.0f);
  switch (info.dtype) {
    case DType::kF32:
      std::memcpy(out.raw_data(), f.data(), n * sizeof(float));
      break;
    case DType::kF64: {
      double* p = static_cast<double*>(out.raw_data());
      for (size_t i = 0; i < n; ++i) p[i] = f[i];
      break;
    }
    case DType::kF16:
      convert_f32_to_f16(f.data(), static_cast<uint16_t*>(out.raw_data()), n);
      break;
    case DType::kBF16:
      convert_f32_to_bf16(f.data(), static_cast<uint16_t*>(out.raw_data()), n);
      break;
    case DType::kBool: {
      bool* p = static_cast<bool*>(out.raw_data());
      for (size_t i = 0; i < n; ++i) p[i] = (s.next() & 1) != 0;
      break;
    }
    case DType::kU8:
      fill_ints<uint8_t>(out, s);
      break;
    case DType::kI8:
      fill_ints<int8_t>(out, s);
      break;
    case DType::kI16:
      fill_ints<int16_t>(out, s);
      break;
    case DType::kI32:
      fill_ints<int32_t>(out, s);
      break;
    case DType::kI64:
      fill_ints<int64_t>(out, s);
      break;
    case DType::kUndefined:
      return false;
  }
  return true;
}

// Runs `ctx` once with every input made at `symbolic_dim`. False when an input cannot be
// made (then nothing ran).
bool run_once(ExecutionContext& ctx, const Engine& engine, int64_t symbolic_dim, uint64_t seed) {
  Stream s{seed};
  std::vector<NamedTensor> inputs;
  for (const TensorInfo& info : engine.inputs()) {
    Tensor t;
    if (!make_input(info, symbolic_dim, s, t)) return false;
    inputs.push_back({info.name, std::move(t)});
  }
  (void)ctx.run(inputs);
  return true;
}

bool has_symbolic_input(const Engine& engine) {
  for (const TensorInfo& info : engine.inputs())
    for (int64_t d : info.shape)
      if (d < 0) return true;
  return false;
}

}  // namespace

RunOutcome load_and_run_untrusted(const uint8_t* data, size_t size,
                                  const std::string& scratch_dir) {
  RunOutcome outcome;
  const uint64_t hash = fnv1a(data, size);
  const std::filesystem::path path =
      std::filesystem::path(scratch_dir) /
      ("untrusted_" + std::to_string(::getpid()) + (is_onnx(data, size) ? ".onnx" : ".amp"));
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!f) {
      outcome.code = ErrorCode::kNotFound;
      outcome.message = "cannot write " + path.string();
      return outcome;
    }
  }

  Options opt;
  opt.backend = BackendKind::kCpu;
  opt.threads = 1;
  opt.adaptive_threads = false;
  opt.memory_limit_bytes = kMemoryCap;
  opt.precision_timing = PrecisionTimingMode::kOff;
  switch (hash % 3) {
    case 0:
      opt.precision = Precision::kFp32;
      break;
    case 1:
      opt.precision = Precision::kFp16;
      opt.emulate_low_precision = true;
      break;
    default:
      opt.precision = Precision::kBf16;
      opt.emulate_low_precision = true;
      break;
  }

  try {
    Engine engine = Engine::load(path.string(), opt);
    ExecutionContext ctx = engine.create_context();
    if (run_once(ctx, engine, 2, hash)) {
      ++outcome.runs;
      if (has_symbolic_input(engine)) {
        // Another size, one element, or none (empty tensors through every kernel).
        const int64_t second[] = {3, 1, 0};
        if (run_once(ctx, engine, second[(hash / 3) % 3], hash + 1)) ++outcome.runs;
        if (run_once(ctx, engine, 2, hash + 2)) ++outcome.runs;
      }
    }
  } catch (const Error& e) {
    outcome.code = e.code();
    outcome.message = e.message();
  } catch (const std::exception& e) {
    outcome.escaped = true;
    outcome.code = ErrorCode::kInternal;
    outcome.message = std::string("an exception other than amp::Error: ") + e.what();
  } catch (...) {
    outcome.escaped = true;
    outcome.code = ErrorCode::kInternal;
    outcome.message = "an exception of unknown type left the API";
  }
  std::error_code ec;
  std::filesystem::remove(path, ec);
  return outcome;
}

}  // namespace amp::fuzz
