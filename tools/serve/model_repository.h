// The model repository of amp-serve (issue 16), as Triton lays one out: each subdirectory
// <name>/ of the repository holds model.amp or model.onnx and an optional config.json:
//
//   {
//     "backend": "auto",                 // auto | cpu | cuda
//     "precision": "fp16",               // fp32 | fp16 | bf16 | auto
//     "policy": "policy.json",           // AMP policy file, relative to the model's folder
//     "calibration": "calib",            // calibration samples (folder, relative)
//     "threads": 1,                      // CPU threads per run (default: cores / instances)
//     "instances": 2,                    // execution contexts, one worker thread each
//     "max_batch_size": 8,               // 0: the model has no batch dim (no merging)
//     "max_queue_delay_us": 100,
//     "preferred_batch_size": [4, 8],
//     "max_queue": 1024,
//     "input_shapes": { "input": [1, 3, 224, 224] }   // binds symbolic dims at load
//   }
//
// Every key is optional; an unknown key, a wrong type or an out-of-range value is an
// amp::Error (invalid argument) naming the model, the file and the key, so a server refuses
// to start on a typo rather than serving something else. Folders without a model file are
// skipped (Triton keeps version folders and notes beside models); a folder name that cannot
// be a URL path segment is an error.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "tools/serve/dynamic_batcher.h"

namespace amp::serve {

struct ModelConfig {
  std::string name;        // the folder's name: /v2/models/<name>
  std::string model_path;  // .../<name>/model.amp or model.onnx
  Options options;         // backend, precision, policy, calibration, input shapes
  BatcherConfig batching;
};

// Reads `repository`: one ModelConfig per model folder, sorted by name. Throws amp::Error.
std::vector<ModelConfig> scan_model_repository(const std::string& repository);

// Parses one config.json's text into `config` (fields not in the text keep their values).
// `where` names the file in errors; relative paths are resolved against `model_dir`.
void parse_model_config(const std::string& text, const std::string& where,
                        const std::string& model_dir, ModelConfig& config);

// A loaded model: its Engine, one ExecutionContext per instance, and the batcher in front.
// A model whose inputs do not all start with a symbolic dim has no batch dim to merge on:
// its max_batch_size becomes 0 (requests run one by one) and note() says why. Without a
// "threads" key, each run gets cores / instances CPU threads (at least one).
class ServedModel {
 public:
  explicit ServedModel(const ModelConfig& config);  // loads; throws amp::Error
  // The configuration in effect (max_batch_size possibly lowered to 0, see above).
  const ModelConfig& config() const { return config_; }
  const std::string& note() const { return note_; }
  const Engine& engine() const { return engine_; }
  DynamicBatcher& batcher() { return *batcher_; }

 private:
  ModelConfig config_;
  Engine engine_;
  std::string note_;
  std::vector<ExecutionContext> contexts_;
  std::unique_ptr<DynamicBatcher> batcher_;  // last: stopped (drained) before the contexts go
};

}  // namespace amp::serve
