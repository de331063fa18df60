// The recurrent layers' thread schedule (kernels/cpu/recurrent_schedule.h): which entries step
// together, the team sizes and the waves, for the layer shapes its header measured. The
// kernels' results under each schedule are checked by recurrent_test.cc.
#include "kernels/cpu/recurrent_schedule.h"

#include <gtest/gtest.h>

namespace amp::kernels::cpu {
namespace {

constexpr int64_t kL2 = 2 << 20;  // 2 MiB, as the Xeon the header measured

// An LSTM of `hidden` units: R is 4 hidden^2 floats a direction.
RecurrentLayerSize lstm(int64_t hidden, int64_t directions, int64_t batch, bool lockstep) {
  return {.directions = directions,
          .batch = batch,
          .lockstep = lockstep,
          .unit_blocks = (hidden + 63) / 64,
          .r_bytes = 4 * hidden * hidden * 4};
}

TEST(RecurrentSchedule, OneSequenceSplitsItsUnitsBetweenTheThreads) {
  const RecurrentSchedule s = schedule_recurrence(lstm(256, 1, 1, false), 2, kL2);
  EXPECT_EQ(s.groups, 1);
  EXPECT_EQ(s.team, 2);
  EXPECT_EQ(s.concurrent, 1);
}

TEST(RecurrentSchedule, DirectionsRunAtOnceWhileRFitsInL2) {
  const RecurrentSchedule s = schedule_recurrence(lstm(256, 2, 4, true), 2, kL2);
  EXPECT_EQ(s.per_direction, 1);  // 4 rows: too few to cut further
  EXPECT_EQ(s.groups, 2);
  EXPECT_EQ(s.team, 1);
  EXPECT_EQ(s.concurrent, 2);
  EXPECT_EQ(s.direction(1), 1);
  EXPECT_EQ(s.entries(1, 4), std::make_pair(int64_t{0}, int64_t{4}));
}

TEST(RecurrentSchedule, DirectionsRunInTurnWithEveryThreadWhenRExceedsL2) {
  // LSTM-512: 4 MiB of R a direction.
  const RecurrentSchedule s = schedule_recurrence(lstm(512, 2, 1, false), 2, kL2);
  EXPECT_EQ(s.groups, 2);
  EXPECT_EQ(s.team, 2);
  EXPECT_EQ(s.concurrent, 1);
  // The same layer on one thread: nothing to share.
  const RecurrentSchedule one = schedule_recurrence(lstm(512, 2, 1, false), 1, kL2);
  EXPECT_EQ(one.team, 1);
  EXPECT_EQ(one.concurrent, 1);
}

TEST(RecurrentSchedule, ALockstepBatchIsCutIntoGroupsOfAtLeastFourRows) {
  const RecurrentSchedule s = schedule_recurrence(lstm(256, 1, 9, true), 2, kL2);
  EXPECT_EQ(s.per_direction, 2);
  EXPECT_EQ(s.team, 1);
  EXPECT_EQ(s.entries(0, 9), std::make_pair(int64_t{0}, int64_t{4}));
  EXPECT_EQ(s.entries(1, 9), std::make_pair(int64_t{4}, int64_t{9}));
  // 7 rows would leave a group of 3: kept whole, its units split instead.
  const RecurrentSchedule seven = schedule_recurrence(lstm(256, 1, 7, true), 2, kL2);
  EXPECT_EQ(seven.per_direction, 1);
  EXPECT_EQ(seven.team, 2);
  // R past L2: the batch stays one group, so R streams once a step for all its rows.
  const RecurrentSchedule big = schedule_recurrence(lstm(512, 1, 8, true), 2, kL2);
  EXPECT_EQ(big.per_direction, 1);
  EXPECT_EQ(big.team, 2);
}

TEST(RecurrentSchedule, EntriesOfDifferentLengthsAreGroupsOfOne) {
  const RecurrentSchedule s = schedule_recurrence(lstm(64, 2, 3, false), 4, kL2);
  EXPECT_EQ(s.per_direction, 3);
  EXPECT_EQ(s.groups, 6);
  EXPECT_EQ(s.team, 1);  // one block of units: nothing to split
  EXPECT_EQ(s.concurrent, 4);
  EXPECT_EQ(s.direction(4), 1);
  EXPECT_EQ(s.entries(4, 3), std::make_pair(int64_t{1}, int64_t{2}));
}

}  // namespace
}  // namespace amp::kernels::cpu
