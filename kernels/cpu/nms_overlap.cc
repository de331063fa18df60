#include "kernels/cpu/nms_overlap.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu/cpu_common.h"

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kChains = NmsKeptBoxes::kMaxBuckets + 1;
constexpr int64_t kWide = NmsKeptBoxes::kMaxBuckets;

size_t blocks_for(int64_t boxes) {
  // Every kept box adds at most kMaxSpan entries; each chain has at most one block not full.
  return static_cast<size_t>(
      (NmsKeptBoxes::kMaxSpan * boxes + NmsKeptBoxes::kBlock - 1) / NmsKeptBoxes::kBlock + kChains);
}

size_t round_up_64(size_t n) {
  return (n + 63) / 64 * 64;
}

// nms_suppresses(p = candidate, q = box i) for any i < n, its early returns as masks.
AMP_ISA_CLONES bool any_suppresses(const float* __restrict x1, const float* __restrict y1,
                                   const float* __restrict x2, const float* __restrict y2,
                                   const float* __restrict area, int64_t n, float px1, float py1,
                                   float px2, float py2, float parea, float threshold) {
  int hit = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float ix1 = px1 > x1[i] ? px1 : x1[i], iy1 = py1 > y1[i] ? py1 : y1[i];
    const float ix2 = px2 < x2[i] ? px2 : x2[i], iy2 = py2 < y2[i] ? py2 : y2[i];
    const float inter = (ix2 - ix1) * (iy2 - iy1);
    const float uni = parea + area[i] - inter;
    hit |= static_cast<int>(ix2 > ix1) & static_cast<int>(iy2 > iy1) &
           static_cast<int>(area[i] > 0) & static_cast<int>(uni > 0) &
           static_cast<int>(inter / uni > threshold);
  }
  return hit != 0;
}

}  // namespace

size_t NmsKeptBoxes::workspace_bytes(int64_t boxes) {
  return round_up_64(blocks_for(boxes) * sizeof(Block)) + 2 * kChains * sizeof(int32_t);
}

NmsKeptBoxes::NmsKeptBoxes(void* memory, int64_t boxes)
    : blocks_(static_cast<Block*>(memory)),
      capacity_(static_cast<int64_t>(blocks_for(boxes))),
      head_(reinterpret_cast<int32_t*>(static_cast<char*>(memory) +
                                       round_up_64(blocks_for(boxes) * sizeof(Block)))),
      tail_(head_ + kChains) {
  std::fill(head_, head_ + kChains, -1);
}

void NmsKeptBoxes::reset(const NmsBox* boxes, const int64_t* order, int64_t n) {
  used_ = 0;
  std::fill(head_, head_ + kChains, -1);
  float lo = INFINITY, hi = -INFINITY;
  double width_sum = 0;
  int64_t counted = 0;
  for (int64_t k = 0; k < n; ++k) {
    const NmsBox& b = boxes[order[k]];
    if (!std::isfinite(b.x1) || !std::isfinite(b.x2) || !(b.x2 > b.x1)) continue;
    lo = std::min(lo, b.x1);
    hi = std::max(hi, b.x2);
    width_sum += static_cast<double>(b.x2) - b.x1;
    ++counted;
  }
  buckets_ = 1;
  lo_ = 0;
  inv_width_ = 0;
  if (counted == 0 || !(hi > lo)) return;
  const double extent = static_cast<double>(hi) - lo;
  const double width = std::max(extent / kMaxBuckets, width_sum / counted);
  buckets_ = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(extent / width)), 1, kMaxBuckets);
  lo_ = lo;
  inv_width_ = 1.0 / width;
}

int64_t NmsKeptBoxes::bucket_of(float x) const {
  if (buckets_ == 1) return 0;
  // In double (no overflow for any float x), clamped, so that boxes reaching past the
  // candidates' range (or to infinity) land in the first or last bucket; monotone in x.
  const double v = (static_cast<double>(x) - lo_) * inv_width_;
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(buckets_ - 1)) return buckets_ - 1;
  return static_cast<int64_t>(v);
}

bool NmsKeptBoxes::push(int64_t chain, const NmsBox& box, float area) {
  int32_t t = tail_[chain];
  if (head_[chain] < 0 || blocks_[t].size == kBlock) {
    if (used_ == capacity_) return false;
    const int32_t fresh = static_cast<int32_t>(used_++);
    blocks_[fresh].size = 0;
    blocks_[fresh].next = -1;
    if (head_[chain] < 0)
      head_[chain] = fresh;
    else
      blocks_[t].next = fresh;
    tail_[chain] = t = fresh;
  }
  Block& b = blocks_[t];
  b.x1[b.size] = box.x1;
  b.y1[b.size] = box.y1;
  b.x2[b.size] = box.x2;
  b.y2[b.size] = box.y2;
  b.area[b.size] = area;
  ++b.size;
  return true;
}

bool NmsKeptBoxes::add(const NmsBox& box) {
  const float area = nms_area(box);
  // A box with a NaN corner or an empty extent suppresses nothing: filing it is harmless,
  // and the wide list keeps the rule simple (every box that is not plainly in range).
  if (!std::isfinite(box.x1) || !std::isfinite(box.x2) || !(box.x2 > box.x1))
    return push(kWide, box, area);
  const int64_t first = bucket_of(box.x1), last = bucket_of(box.x2);
  if (last - first + 1 > kMaxSpan) return push(kWide, box, area);
  for (int64_t b = first; b <= last; ++b)
    if (!push(b, box, area)) return false;
  return true;
}

bool NmsKeptBoxes::chain_suppresses(int64_t chain, const NmsBox& c, float area,
                                    float threshold) const {
  for (int32_t i = head_[chain]; i >= 0; i = blocks_[i].next) {
    const Block& b = blocks_[i];
    if (any_suppresses(b.x1, b.y1, b.x2, b.y2, b.area, b.size, c.x1, c.y1, c.x2, c.y2, area,
                       threshold))
      return true;
  }
  return false;
}

bool NmsKeptBoxes::suppresses(const NmsBox& c, float threshold) const {
  const float area = nms_area(c);
  // An empty candidate, or one with a NaN corner (a NaN area), is never suppressed
  // (nms_suppresses); past this test its x corners are not NaN.
  if (!(area > 0)) return false;
  if (chain_suppresses(kWide, c, area, threshold)) return true;
  const int64_t first = bucket_of(c.x1), last = bucket_of(c.x2);
  for (int64_t b = first; b <= last; ++b)
    if (chain_suppresses(b, c, area, threshold)) return true;
  return false;
}

}  // namespace amp::kernels::cpu
