// NonMaxSuppression's index of kept boxes (kernels/cpu/nms_overlap.h) against testing every
// kept box with nms_suppresses(): one image's boxes, PyTorch's class-shifted layout, boxes
// wider than the index's span, and boxes with NaN, infinite, empty or inverted corners. The
// run mirrors NMS: a candidate is kept when nothing suppresses it.
#include "kernels/cpu/nms_overlap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace amp::kernels::cpu {
namespace {

// Runs NMS over `boxes` (already in rank order) with the index and with the plain loop and
// returns how many were kept; every candidate's verdict must agree.
int64_t expect_same_verdicts(const std::vector<NmsBox>& boxes, float threshold) {
  const auto n = static_cast<int64_t>(boxes.size());
  std::vector<int64_t> order(boxes.size());
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  std::vector<std::max_align_t> memory(NmsKeptBoxes::workspace_bytes(n) / sizeof(std::max_align_t) +
                                       1);
  NmsKeptBoxes index(memory.data(), n);
  index.reset(boxes.data(), order.data(), n);
  std::vector<NmsBox> kept;
  for (int64_t i = 0; i < n; ++i) {
    const NmsBox& c = boxes[static_cast<size_t>(i)];
    bool want = false;
    for (const NmsBox& k : kept) want = want || nms_suppresses(c, k, threshold);
    EXPECT_EQ(index.suppresses(c, threshold), want)
        << "candidate " << i << " [" << c.x1 << "," << c.y1 << "," << c.x2 << "," << c.y2
        << "] at threshold " << threshold;
    if (want) continue;
    EXPECT_TRUE(index.add(c)) << "workspace full after " << kept.size() << " boxes";
    kept.push_back(c);
  }
  return static_cast<int64_t>(kept.size());
}

std::vector<NmsBox> image_boxes(std::mt19937& rng, int n, float image, float max_side) {
  std::uniform_real_distribution<float> at(0, image), side(1, max_side);
  std::vector<NmsBox> boxes;
  for (int i = 0; i < n; ++i) {
    const float x = at(rng), y = at(rng);
    boxes.push_back(NmsBox{x, y, x + side(rng), y + side(rng)});
  }
  return boxes;
}

TEST(NmsKeptBoxes, OneImageAgreesWithTestingEveryKeptBox) {
  std::mt19937 rng(3);
  for (float threshold : {0.0f, 0.3f, 0.5f, 0.7f, 0.95f}) {
    const int64_t kept = expect_same_verdicts(image_boxes(rng, 2000, 640, 120), threshold);
    EXPECT_GT(kept, 10);
    if (threshold < 0.9f) {
      EXPECT_LT(kept, 2000);  // some are suppressed
    }
  }
  // Tiny boxes (thousands of buckets' worth) and boxes as wide as the image.
  expect_same_verdicts(image_boxes(rng, 1500, 640, 2), 0.5f);
  expect_same_verdicts(image_boxes(rng, 500, 640, 640), 0.5f);
}

TEST(NmsKeptBoxes, ClassShiftedBoxesAgree) {
  // torchvision's batched_nms as exported: each class's boxes shifted by class x (max + 1).
  std::mt19937 rng(11);
  std::vector<NmsBox> boxes;
  for (int c = 0; c < 90; ++c)
    for (NmsBox b : image_boxes(rng, 60, 320, 80)) {
      const float shift = static_cast<float>(c) * 401.0f;
      boxes.push_back(NmsBox{b.x1 + shift, b.y1 + shift, b.x2 + shift, b.y2 + shift});
    }
  std::shuffle(boxes.begin(), boxes.end(), rng);
  expect_same_verdicts(boxes, 0.5f);
}

TEST(NmsKeptBoxes, OddBoxesAgree) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(17);
  std::vector<NmsBox> boxes = image_boxes(rng, 300, 100, 30);
  const std::vector<NmsBox> odd = {
      {nan, 0, 10, 10},       {0, nan, 10, 10},  {-inf, 0, 10, 10},  {0, 0, inf, 10},
      {-inf, -inf, inf, inf}, {5, 5, 5, 20},     {5, 5, 20, 5},      {20, 20, 5, 5},
      {30, 30, 10, 10},       {0, 0, 1e30f, 50}, {-1e30f, 0, 0, 50}, {50, 50, 50.0001f, 50.0001f}};
  for (size_t i = 0; i < odd.size(); ++i)
    boxes.insert(boxes.begin() + static_cast<std::ptrdiff_t>(i * 25), odd[i]);
  for (float threshold : {-0.5f, 0.0f, 0.5f}) expect_same_verdicts(boxes, threshold);
  // Candidates that all share one x: one bucket.
  std::vector<NmsBox> column;
  for (int i = 0; i < 700; ++i) column.push_back(NmsBox{1, 2.0f * i, 3, 2.0f * i + 1.5f});
  EXPECT_EQ(expect_same_verdicts(column, 0.5f), 700);
}

}  // namespace
}  // namespace amp::kernels::cpu
