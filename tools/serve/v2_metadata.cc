#include "tools/serve/v2_metadata.h"

#include <nlohmann/json.hpp>

#include "amp/version.h"
#include "tools/serve/infer_request.h"

namespace amp::serve {
namespace {

using json = nlohmann::json;

json tensor_metadata(const TensorInfo& t) {
  return {{"name", t.name},
          {"datatype", std::string(v2_datatype(t.dtype))},
          {"shape", metadata_shape(t)}};
}

}  // namespace

std::vector<std::string> server_extensions() {
  return {"binary_tensor_data", "model_configuration", "model_repository"};
}

std::vector<int64_t> metadata_shape(const TensorInfo& t) {
  std::vector<int64_t> s;
  for (int64_t d : t.shape) s.push_back(d < 0 ? -1 : d);
  return s;
}

std::vector<int64_t> config_dims(const TensorInfo& t, int max_batch_size) {
  std::vector<int64_t> s = metadata_shape(t);
  if (max_batch_size > 0 && !s.empty()) s.erase(s.begin());
  return s;
}

std::string instance_kind(const Engine& engine) {
  return engine.backend() == BackendKind::kCuda ? "KIND_GPU" : "KIND_CPU";
}

std::string server_metadata_json() {
  return json{
      {"name", kServerName}, {"version", amp::version()}, {"extensions", server_extensions()}}
      .dump();
}

std::string model_metadata_json(const ServedModel& model) {
  json inputs = json::array(), outputs = json::array();
  for (const TensorInfo& t : model.engine().inputs()) inputs.push_back(tensor_metadata(t));
  for (const TensorInfo& t : model.engine().outputs()) outputs.push_back(tensor_metadata(t));
  return json{{"name", model.config().name},
              {"versions", {"1"}},
              {"platform", kPlatform},
              {"inputs", inputs},
              {"outputs", outputs}}
      .dump();
}

std::string model_config_json(const ServedModel& model) {
  const ModelConfig& c = model.config();
  const int mbs = c.batching.max_batch_size;
  json inputs = json::array(), outputs = json::array();
  for (const TensorInfo& t : model.engine().inputs())
    inputs.push_back({{"name", t.name},
                      {"data_type", std::string(triton_config_type(t.dtype))},
                      {"format", "FORMAT_NONE"},
                      {"dims", config_dims(t, mbs)}});
  for (const TensorInfo& t : model.engine().outputs())
    outputs.push_back({{"name", t.name},
                       {"data_type", std::string(triton_config_type(t.dtype))},
                       {"dims", config_dims(t, mbs)}});
  json config = {{"name", c.name},
                 {"platform", kPlatform},
                 {"backend", kPlatform},
                 {"max_batch_size", mbs},
                 {"input", inputs},
                 {"output", outputs},
                 {"instance_group",
                  {{{"name", c.name},
                    {"kind", instance_kind(model.engine())},
                    {"count", c.batching.instances}}}}};
  if (mbs > 0)
    config["dynamic_batching"] = {
        {"preferred_batch_size", c.batching.preferred_batch_sizes},
        {"max_queue_delay_microseconds", c.batching.max_queue_delay.count()}};
  return config.dump();
}

std::string repository_index_json(const std::vector<std::string>& names) {
  json index = json::array();
  for (const std::string& n : names)
    index.push_back({{"name", n}, {"version", "1"}, {"state", "READY"}});
  return index.dump();
}

}  // namespace amp::serve
