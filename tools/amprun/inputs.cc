#include "tools/amprun/inputs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <random>

#include "amp/tensor_io.h"
#include "runtime/common/half.h"

namespace amprun {

namespace {

// Whether an input's name says it is a mask ("attention_mask", "padding_mask", ...).
bool named_as_mask(const std::string& name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("mask") != std::string::npos;
}

// Integers are drawn from [0, 10) (token ids, indices), or from {0, 1} for a mask: an
// exported transformer turns its attention mask into a bias as (1 - mask) * -3.4e38, so a
// mask value of 2 or more makes a bias of +3.4e38 or +inf, and every score row NaN on every
// backend (a comparison of NaN with NaN then says nothing).
amp::Tensor random_tensor(amp::DType dtype, const std::vector<int64_t>& dims, bool mask,
                          std::mt19937& rng) {
  amp::Tensor t = amp::Tensor::empty(dtype, dims);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(0, mask ? 1 : 9);
  void* p = t.raw_data();
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case amp::DType::kF32:
        static_cast<float*>(p)[i] = u(rng);
        break;
      case amp::DType::kF64:
        static_cast<double*>(p)[i] = u(rng);
        break;
      case amp::DType::kF16:
        static_cast<uint16_t*>(p)[i] = amp::float_to_half_bits(u(rng));
        break;
      case amp::DType::kBF16:
        static_cast<uint16_t*>(p)[i] = amp::float_to_bf16_bits(u(rng));
        break;
      case amp::DType::kI64:
        static_cast<int64_t*>(p)[i] = small(rng);
        break;
      case amp::DType::kI32:
        static_cast<int32_t*>(p)[i] = small(rng);
        break;
      case amp::DType::kI16:
        static_cast<int16_t*>(p)[i] = static_cast<int16_t>(small(rng));
        break;
      case amp::DType::kI8:
        static_cast<int8_t*>(p)[i] = static_cast<int8_t>(small(rng));
        break;
      case amp::DType::kU8:
        static_cast<uint8_t*>(p)[i] = static_cast<uint8_t>(small(rng));
        break;
      case amp::DType::kBool:
        static_cast<uint8_t*>(p)[i] = small(rng) & 1;
        break;
      case amp::DType::kUndefined:
        break;
    }
  }
  return t;
}

}  // namespace

std::vector<amp::NamedTensor> make_inputs(const amp::Engine& engine, const std::string& dir,
                                          const std::map<std::string, std::vector<int64_t>>& shapes,
                                          int seed, std::vector<std::string>& notes) {
  std::vector<amp::NamedTensor> out;
  const auto& infos = engine.inputs();
  if (!dir.empty()) {
    for (size_t i = 0; i < infos.size(); ++i) {
      const std::string path =
          (std::filesystem::path(dir) / ("input_" + std::to_string(i) + ".pb")).string();
      out.push_back({infos[i].name, amp::load_tensor_pb(path)});
    }
    return out;
  }
  std::mt19937 rng(static_cast<unsigned>(seed));
  for (const auto& info : infos) {
    std::vector<int64_t> dims = info.shape;
    auto it = shapes.find(info.name);
    if (it != shapes.end()) {
      if (it->second.size() != dims.size())
        throw amp::Error(amp::ErrorCode::kInvalidArgument,
                         "--shape " + info.name + " has " + std::to_string(it->second.size()) +
                             " dims, the input has rank " + std::to_string(dims.size()));
      dims = it->second;
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] >= 0) continue;
      dims[d] = 1;
      notes.push_back("input '" + info.name + "' dim " + std::to_string(d) + " ('" +
                      info.symbols[d] + "') is symbolic: using 1 (bind it with --shape)");
    }
    out.push_back({info.name, random_tensor(info.dtype, dims, named_as_mask(info.name), rng)});
  }
  return out;
}

}  // namespace amprun
