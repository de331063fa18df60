#include "tools/serve/model_repository.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>

namespace amp::serve {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, where + ": " + what);
}

int64_t integer(const json& v, const std::string& where, const std::string& key, int64_t lo,
                int64_t hi) {
  if (!v.is_number_integer()) fail(where, "'" + key + "' must be an integer");
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    fail(where, "'" + key + "' is " + std::to_string(x) + ", expected " + std::to_string(lo) +
                    ".." + std::to_string(hi));
  return x;
}

std::string text(const json& v, const std::string& where, const std::string& key) {
  if (!v.is_string()) fail(where, "'" + key + "' must be a string");
  return v.get<std::string>();
}

// The enum value named by the string `v` among `choices`.
template <typename E>
E one_of(const json& v, const std::string& where, const std::string& key,
         std::initializer_list<std::pair<const char*, E>> choices) {
  const std::string s = text(v, where, key);
  std::string names;
  for (const auto& [name, value] : choices) {
    if (s == name) return value;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  fail(where, "'" + key + "' must be one of " + names + ", got '" + s + "'");
}

// A path from config.json: relative ones are the model folder's, and must stay inside it.
std::string inside(const std::string& model_dir, const std::string& p, const std::string& where,
                   const std::string& key) {
  const fs::path path(p);
  if (path.is_absolute()) return path.string();
  const fs::path joined = (fs::path(model_dir) / path).lexically_normal();
  const fs::path base = fs::path(model_dir).lexically_normal();
  const auto [end, _] = std::mismatch(base.begin(), base.end(), joined.begin(), joined.end());
  if (end != base.end()) fail(where, "'" + key + "' leaves the model's folder: '" + p + "'");
  return joined.string();
}

bool url_safe(const std::string& name) {
  return !name.empty() && name[0] != '.' &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '_' || c == '-' || c == '.';
         });
}

}  // namespace

void parse_model_config(const std::string& content, const std::string& where,
                        const std::string& model_dir, ModelConfig& config) {
  const json j = json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) fail(where, "not valid JSON");
  if (!j.is_object()) fail(where, "the top level must be an object");
  constexpr int64_t kIntMax = std::numeric_limits<int>::max();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    if (key == "backend") {
      config.options.backend = one_of<BackendKind>(
          v, where, key,
          {{"auto", BackendKind::kAuto}, {"cpu", BackendKind::kCpu}, {"cuda", BackendKind::kCuda}});
    } else if (key == "precision") {
      config.options.precision = one_of<Precision>(v, where, key,
                                                   {{"fp32", Precision::kFp32},
                                                    {"fp16", Precision::kFp16},
                                                    {"bf16", Precision::kBf16},
                                                    {"auto", Precision::kAuto}});
    } else if (key == "policy") {
      config.options.policy_file = inside(model_dir, text(v, where, key), where, key);
    } else if (key == "calibration") {
      config.options.calibration_dirs = {inside(model_dir, text(v, where, key), where, key)};
    } else if (key == "threads") {
      config.options.threads = static_cast<int>(integer(v, where, key, 0, 1024));
    } else if (key == "instances") {
      config.batching.instances = static_cast<int>(integer(v, where, key, 1, 256));
    } else if (key == "max_batch_size") {
      config.batching.max_batch_size = static_cast<int>(integer(v, where, key, 0, 1 << 20));
    } else if (key == "max_queue_delay_us") {
      config.batching.max_queue_delay =
          std::chrono::microseconds(integer(v, where, key, 0, 60'000'000));
    } else if (key == "max_queue") {
      config.batching.max_queue = static_cast<size_t>(integer(v, where, key, 1, 1 << 24));
    } else if (key == "preferred_batch_size") {
      if (!v.is_array()) fail(where, "'preferred_batch_size' must be an array of integers");
      config.batching.preferred_batch_sizes.clear();
      for (const json& x : v)
        config.batching.preferred_batch_sizes.push_back(
            static_cast<int>(integer(x, where, key, 1, kIntMax)));
    } else if (key == "input_shapes") {
      if (!v.is_object()) fail(where, "'input_shapes' must be an object of name: [dims]");
      for (auto s = v.begin(); s != v.end(); ++s) {
        if (!s.value().is_array()) fail(where, "'input_shapes." + s.key() + "' must be an array");
        std::vector<int64_t> dims;
        for (const json& d : s.value())
          dims.push_back(integer(d, where, "input_shapes." + s.key(), 0, 1LL << 40));
        config.options.input_shapes[s.key()] = std::move(dims);
      }
    } else {
      fail(where, "unknown key '" + key +
                      "' (expected backend, precision, policy, calibration, threads, instances, "
                      "max_batch_size, "
                      "max_queue_delay_us, preferred_batch_size, max_queue, input_shapes)");
    }
  }
  for (int p : config.batching.preferred_batch_sizes)
    if (config.batching.max_batch_size > 0 && p > config.batching.max_batch_size)
      fail(where, "preferred_batch_size " + std::to_string(p) + " exceeds max_batch_size " +
                      std::to_string(config.batching.max_batch_size));
}

std::vector<ModelConfig> scan_model_repository(const std::string& repository) {
  std::error_code ec;
  if (!fs::is_directory(repository, ec))
    throw Error(ErrorCode::kNotFound, "model repository '" + repository + "' is not a directory");
  std::vector<ModelConfig> models;
  for (const fs::directory_entry& e : fs::directory_iterator(repository, ec)) {
    if (!e.is_directory()) continue;
    const fs::path dir = e.path();
    fs::path model;
    for (const char* f : {"model.amp", "model.onnx"})
      if (model.empty() && fs::exists(dir / f)) model = dir / f;
    if (model.empty()) continue;  // not a model folder
    ModelConfig c;
    c.name = dir.filename().string();
    if (!url_safe(c.name))
      throw Error(ErrorCode::kInvalidArgument,
                  "model folder '" + c.name +
                      "': names must be letters, digits, '_', '-' or '.' (they are URL paths)");
    c.model_path = model.string();
    const fs::path cfg = dir / "config.json";
    if (fs::exists(cfg)) {
      std::ifstream f(cfg);
      std::stringstream ss;
      ss << f.rdbuf();
      parse_model_config(ss.str(), "model '" + c.name + "': " + cfg.string(), dir.string(), c);
    }
    models.push_back(std::move(c));
  }
  std::sort(models.begin(), models.end(),
            [](const ModelConfig& a, const ModelConfig& b) { return a.name < b.name; });
  return models;
}

namespace {

std::vector<std::string> output_names(const Engine& e) {
  std::vector<std::string> names;
  for (const TensorInfo& o : e.outputs()) names.push_back(o.name);
  return names;
}

}  // namespace

namespace {

// Without a "threads" key, N instances share the cores: each run gets cores / N threads
// (at least one), so that N concurrent runs do not oversubscribe the CPU and spin-wait on
// each other's cores (OpenMP's barriers). The CUDA backend ignores it.
ModelConfig with_instance_threads(ModelConfig config) {
  const int instances = std::max(1, config.batching.instances);
  if (config.options.threads == 0 && instances > 1) {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    config.options.threads = std::max(1, cores / instances);
  }
  return config;
}

}  // namespace

ServedModel::ServedModel(const ModelConfig& config)
    : config_(with_instance_threads(config)),
      engine_(Engine::load(config_.model_path, config_.options)) {
  if (config_.batching.max_batch_size > 0)
    for (const TensorInfo& in : engine_.inputs())
      if (in.shape.empty() || in.shape[0] >= 0) {
        note_ = "input '" + in.name + "' has no symbolic first dim to batch on: max_batch_size 0";
        config_.batching.max_batch_size = 0;
        break;
      }
  const int n = std::max(1, config_.batching.instances);
  for (int i = 0; i < n; ++i) contexts_.push_back(engine_.create_context());
  batcher_ = std::make_unique<DynamicBatcher>(
      config_.batching, output_names(engine_),
      [this](int instance, const std::vector<NamedTensor>& inputs) {
        return contexts_[static_cast<size_t>(instance)].run(inputs);
      });
}

}  // namespace amp::serve
