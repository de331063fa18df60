// Arena: one aligned host allocation holding every activation of a context, laid out by
// the memory planner. Grows (never shrinks) when re-bound shapes need more.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "runtime/common/status.h"

namespace amp::runtime {

class Arena {
 public:
  Status reserve(size_t bytes, size_t alignment = 64) {
    if (bytes <= capacity_) return Status::ok();
    const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded);
    if (!p)
      return out_of_memory("cannot allocate a " + std::to_string(rounded) +
                           "-byte activation arena");
    data_.reset(static_cast<uint8_t*>(p));
    capacity_ = rounded;
    return Status::ok();
  }
  uint8_t* data() const { return data_.get(); }
  size_t capacity() const { return capacity_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t capacity_ = 0;
};

}  // namespace amp::runtime
