// Gather of the channels in the conv layouts (kernels/cpu/channel_gather.h): shuffles and the
// parts of a shuffle (the two-block permute), arbitrary indices (element by element), 2- and
// 4-byte elements, 8-channel blocks and channels-last, against the definition on plain
// tensors. Copies: results must be equal.
#include "kernels/cpu/channel_gather.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace amp::kernels::cpu {
namespace {

// Plain [N, C, S] in 8-channel blocks ([N, C/8, S, 8]) or channels-last ([N, S, C]).
std::vector<uint32_t> to_layout(const std::vector<uint32_t>& plain, int64_t n, int64_t c, int64_t s,
                                bool blocked8) {
  std::vector<uint32_t> out(plain.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < s; ++p) {
        const int64_t at =
            blocked8 ? ((b * c / 8 + ch / 8) * s + p) * 8 + ch % 8 : (b * s + p) * c + ch;
        out[static_cast<size_t>(at)] = plain[static_cast<size_t>((b * c + ch) * s + p)];
      }
  return out;
}

std::vector<int64_t> shuffle(int64_t c, int64_t groups) {
  std::vector<int64_t> idx(static_cast<size_t>(c));
  const int64_t per = c / groups;
  for (int64_t k = 0; k < per; ++k)
    for (int64_t j = 0; j < groups; ++j) idx[static_cast<size_t>(k * groups + j)] = j * per + k;
  return idx;
}

TEST(ChannelGather, MatchesThePlainGatherInBothLayouts) {
  std::mt19937 rng(5);
  struct Case {
    const char* what;
    int64_t c_in;
    std::vector<int64_t> idx;
  };
  std::vector<int64_t> random(24);
  std::iota(random.begin(), random.end(), 0);
  std::shuffle(random.begin(), random.end(), rng);
  const std::vector<int64_t> s48 = shuffle(48, 2);
  const std::vector<Case> cases = {
      {"shuffle 48 in 2 groups", 48, s48},
      {"first half of a shuffle", 48, std::vector<int64_t>(s48.begin(), s48.begin() + 24)},
      {"second half of a shuffle", 48, std::vector<int64_t>(s48.begin() + 24, s48.end())},
      {"shuffle 24 in 3 groups", 24, shuffle(24, 3)},
      {"a random permutation", 24, random},
      {"repeats, fewer channels", 24, {5, 5, 0, 23, 16, 8, 9, 1}},
  };
  for (const Case& c : cases)
    for (bool blocked8 : {true, false})
      for (size_t elem : {size_t{4}, size_t{2}})
        for (int threads : {1, 3}) {
          SCOPED_TRACE(std::string(c.what) + (blocked8 ? ", blocks" : ", channels-last") +
                       ", elem " + std::to_string(elem) + ", threads " + std::to_string(threads));
          const int64_t n = 2, s = 37, c_out = static_cast<int64_t>(c.idx.size());
          std::vector<uint32_t> x(static_cast<size_t>(n * c.c_in * s));
          for (uint32_t& v : x) v = rng() & (elem == 2 ? 0xffffu : 0xffffffffu);
          std::vector<uint32_t> want(static_cast<size_t>(n * c_out * s));
          for (int64_t b = 0; b < n; ++b)
            for (int64_t o = 0; o < c_out; ++o)
              for (int64_t p = 0; p < s; ++p)
                want[static_cast<size_t>((b * c_out + o) * s + p)] =
                    x[static_cast<size_t>((b * c.c_in + c.idx[static_cast<size_t>(o)]) * s + p)];
          const std::vector<uint32_t> in = to_layout(x, n, c.c_in, s, blocked8);
          const std::vector<uint32_t> expected = to_layout(want, n, c_out, s, blocked8);
          ChannelGather g;
          g.prepare(n, c.c_in, s, c.idx, blocked8, elem);
          if (elem == 4) {
            std::vector<uint32_t> got(expected.size());
            g.run(in.data(), got.data(), threads);
            EXPECT_EQ(got, expected);
          } else {
            std::vector<uint16_t> in16(in.begin(), in.end()), got(expected.size());
            g.run(in16.data(), got.data(), threads);
            EXPECT_EQ(std::vector<uint32_t>(got.begin(), got.end()), expected);
          }
        }
}

}  // namespace
}  // namespace amp::kernels::cpu
