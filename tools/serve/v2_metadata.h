// What amp-serve tells clients about itself and its models, in the REST (JSON) forms of the
// Open Inference Protocol: server metadata, model metadata, and the model configuration of
// Triton's model_configuration extension (the protobuf ModelConfig's JSON form, which
// tritonclient and Triton's tools read). The gRPC frontend fills the same facts into its
// messages through the same helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "tools/serve/model_repository.h"

namespace amp::serve {

inline constexpr const char* kServerName = "amprt";
inline constexpr const char* kPlatform = "amprt";
// The protocol extensions amp-serve implements.
std::vector<std::string> server_extensions();

// Model metadata shapes: -1 for symbolic dims.
std::vector<int64_t> metadata_shape(const TensorInfo& t);
// Model configuration dims: as metadata_shape, without the batch dim when the model batches
// (Triton's convention: max_batch_size > 0 implies a leading batch dim).
std::vector<int64_t> config_dims(const TensorInfo& t, int max_batch_size);
// "KIND_GPU" or "KIND_CPU", from the backend the engine chose.
std::string instance_kind(const Engine& engine);

std::string server_metadata_json();
std::string model_metadata_json(const ServedModel& model);
std::string model_config_json(const ServedModel& model);
// POST /v2/repository/index: [{"name","version","state"}...]
std::string repository_index_json(const std::vector<std::string>& names);

}  // namespace amp::serve
