// Regions of one kernel's run workspace, each aligned to kAlign bytes: prepare() reserves
// them with add() (kNone for no region) and sizes the workspace with total(); run() turns
// an offset back into a pointer with at(). Each backend picks its alignment (the CPU a
// cache line, CUDA the 256 bytes cuBLASLt/cuDNN want).
//
//   off_bias_ = ws_.add(n * sizeof(float));            // prepare()
//   float* bias = reinterpret_cast<float*>(Layout::at(a.workspace, off_bias_));  // run()
#pragma once

#include <cstddef>
#include <cstdint>

namespace amp::kernels {

template <size_t kAlign>
class AlignedWorkspaceLayout {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  size_t add(size_t bytes) {
    if (bytes == 0) return kNone;
    const size_t off = total_;
    total_ += (bytes + kAlign - 1) / kAlign * kAlign;
    return off;
  }
  size_t total() const { return total_; }
  static uint8_t* at(void* workspace, size_t offset) {
    return offset == kNone ? nullptr : static_cast<uint8_t*>(workspace) + offset;
  }

 private:
  size_t total_ = 0;
};

}  // namespace amp::kernels
