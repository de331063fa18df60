// Input tensors for amprun: from an ONNX test-data folder (input_N.pb, matched to the
// model's inputs in order) or seeded random data shaped by the model and --shape.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "amp/engine.h"

namespace amprun {

// Throws amp::Error when a file is missing/bad or a symbolic dim has no --shape binding
// (those default to 1, with `notes` saying so).
std::vector<amp::NamedTensor> make_inputs(const amp::Engine& engine, const std::string& dir,
                                          const std::map<std::string, std::vector<int64_t>>& shapes,
                                          int seed, std::vector<std::string>& notes);

}  // namespace amprun
