// The demo-model generators' random numbers: splitmix64 from a fixed seed per model, so
// every machine writes the same weights. No dependencies (amp-make-demo-onnx links only
// protobuf).
#pragma once

#include <cstdint>

namespace amp::demo {

class Rng {  // splitmix64
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  float uniform(float lo, float hi) {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + (hi - lo) * static_cast<float>(z >> 40) / static_cast<float>(1ull << 24);
  }

 private:
  uint64_t s_;
};

}  // namespace amp::demo
