// NonMaxSuppression's inner test on the CPU: does any box kept so far suppress a candidate?
//
// Algorithm. A kept box can only suppress a candidate whose x extent overlaps its own
// (nms_suppresses() needs a strictly positive intersection), so the kept boxes of a class are
// filed in buckets along x: B equal buckets over the x range of the class's candidates, each
// as wide as the candidates' mean width (at most kMaxBuckets). A kept box goes into every
// bucket its [x1, x2] touches, or into one "wide" list when it touches more than kMaxSpan
// buckets or has a corner that is not finite. A candidate is tested against the wide list and
// the buckets its own [x1, x2] touches. If two boxes overlap in x, the bucket of the larger x1
// lies in both boxes' spans (the bucket of x is monotone in x), so no box that could suppress
// is skipped: the answer is that of testing every kept box. A detector exported from PyTorch
// runs one NMS over all classes with each class's boxes shifted to a region of its own
// (torchvision's batched_nms), so a candidate meets only its own class's kept boxes:
// SSDlite's 27,000 candidates cost 1.4 ms instead of 360.
//
// Each bucket is a chain of blocks of kBlock boxes stored as columns (corners, area), tested
// without branches (8 or 16 boxes a vector step); the arithmetic is nms_suppresses()'s
// (kernels/common/selection_plan.h) operation for operation. All memory is the kernel's
// workspace: at most kMaxSpan entries per kept box, plus one partly filled block per bucket.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/common/selection_plan.h"

namespace amp::kernels::cpu {

class NmsKeptBoxes {
 public:
  static constexpr int64_t kBlock = 32;
  static constexpr int64_t kMaxBuckets = 256;
  static constexpr int64_t kMaxSpan = 4;

  // Workspace for a class of up to `boxes` candidates.
  static size_t workspace_bytes(int64_t boxes);

  // `memory`: workspace_bytes(boxes) bytes, aligned to 64.
  NmsKeptBoxes(void* memory, int64_t boxes);

  // Empties the set for a class whose candidates are boxes[order[0..n)].
  void reset(const NmsBox* boxes, const int64_t* order, int64_t n);

  // Whether some kept box suppresses `candidate` at IoU `threshold`: nms_suppresses(candidate,
  // kept box, threshold) for some kept box.
  bool suppresses(const NmsBox& candidate, float threshold) const;

  // Keeps `box`. False only when the workspace is full, which its size rules out.
  bool add(const NmsBox& box);

 private:
  struct Block {
    float x1[kBlock], y1[kBlock], x2[kBlock], y2[kBlock], area[kBlock];
    int32_t size;
    int32_t next;  // the chain's next block, -1 at its end
  };

  int64_t bucket_of(float x) const;
  bool push(int64_t chain, const NmsBox& box, float area);
  bool chain_suppresses(int64_t chain, const NmsBox& c, float area, float threshold) const;

  Block* blocks_ = nullptr;
  int64_t capacity_ = 0, used_ = 0;
  int32_t* head_ = nullptr;  // kMaxBuckets + 1 chains (the last: wide boxes); -1 when empty
  int32_t* tail_ = nullptr;
  int64_t buckets_ = 1;
  double lo_ = 0, inv_width_ = 0;
};

}  // namespace amp::kernels::cpu
