// kernels/cpu/transpose_tiles.h through strided_copy, which takes it for every view whose
// two innermost axes are a transpose: element for element against the view read one index
// at a time, for each element size, at sizes around the 8x8 blocks and 16-row tasks (whole,
// partial and single blocks), with slabs from one and two axes further out (a batch, a
// broadcast, a reversed axis), on 1 and 2 threads. The 2-byte cases take the SSE2 blocks,
// the 4-byte ones the AVX2 blocks on a CPU that has them (and run under
// tools/bench/as_avx2_cpu.cc's AVX2-only CPUID too).
#include "kernels/cpu/transpose_tiles.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu/movement_common.h"

namespace amp::kernels::cpu {
namespace {

// The view of `src` read index by index, in row-major order of its dims.
template <typename E>
std::vector<E> read_view(const StridedView& v, const std::vector<E>& src) {
  std::vector<E> out(static_cast<size_t>(v.numel));
  std::vector<int64_t> idx(static_cast<size_t>(v.rank), 0);
  for (int64_t i = 0; i < v.numel; ++i) {
    int64_t off = v.base;
    for (int a = 0; a < v.rank; ++a) off += idx[static_cast<size_t>(a)] * v.strides[a];
    out[static_cast<size_t>(i)] = src[static_cast<size_t>(off)];
    for (int a = v.rank - 1; a >= 0; --a) {
      if (++idx[static_cast<size_t>(a)] < v.dims[a]) break;
      idx[static_cast<size_t>(a)] = 0;
    }
  }
  return out;
}

// A view of the given dims and source strides (no axis merges: the strides keep them apart).
StridedView view_of(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t base = 0) {
  return make_strided_view(static_cast<int>(dims.size()), dims.data(), strides.data(), base);
}

template <typename E>
void check(const StridedView& v, size_t src_size, int threads, const std::string& what) {
  std::vector<E> src(src_size);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<E>(i * 2654435761u + 7);
  std::vector<E> got(static_cast<size_t>(v.numel), E{0});
  strided_copy(v, src.data(), got.data(), sizeof(E), threads);
  EXPECT_EQ(got, read_view(v, src)) << what << " elem " << sizeof(E) << " threads " << threads;
}

TEST(TransposeTiles, MatchesTheViewReadElementByElement) {
  struct Case {
    std::vector<int64_t> dims, strides;
    int64_t base;
    size_t src_size;
  };
  std::vector<Case> cases;
  // [rows, n] from a [n, rows] source: whole blocks, partial ones, one block, one row.
  for (auto [rows, n] : std::vector<std::pair<int64_t, int64_t>>{
           {128, 4096 / 8}, {16, 16}, {8, 8}, {3, 5}, {17, 33}, {40, 7}, {9, 200}, {2, 9}})
    cases.push_back({{rows, n}, {1, rows}, 0, static_cast<size_t>(rows * n)});
  // A batch of 3 such slabs; a broadcast batch (stride 0); a reversed batch axis.
  cases.push_back({{3, 24, 19}, {24 * 19, 1, 24}, 0, 3 * 24 * 19});
  cases.push_back({{2, 24, 19}, {0, 1, 24}, 0, 24 * 19});
  cases.push_back({{3, 24, 19}, {-24 * 19, 1, 24}, 2 * 24 * 19, 3 * 24 * 19});
  // Two axes further out ([2, 3, C, HW] -> [2, 3, HW, C] with C = 20, HW = 12).
  cases.push_back({{2, 3, 12, 20}, {3 * 240, 240, 1, 12}, 0, 2 * 3 * 240});
  for (const Case& c : cases) {
    const StridedView v = view_of(c.dims, c.strides, c.base);
    std::ostringstream what;
    for (int a = 0; a < v.rank; ++a) what << v.dims[a] << "/" << v.strides[a] << " ";
    ASSERT_GE(v.rank, 2) << what.str();
    ASSERT_EQ(v.strides[v.rank - 2], 1) << what.str() << ": not a transpose view";
    for (int threads : {1, 2}) {
      check<uint8_t>(v, c.src_size, threads, what.str());
      check<uint16_t>(v, c.src_size, threads, what.str());
      check<uint32_t>(v, c.src_size, threads, what.str());
      check<uint64_t>(v, c.src_size, threads, what.str());
    }
  }
}

TEST(TransposeTiles, TakesOnlyTransposeViews) {
  std::vector<uint32_t> src(64), dst(64);
  // Innermost contiguous (a row copy), innermost broadcast, next-to-innermost not contiguous.
  for (const StridedView& v :
       {view_of({8, 8}, {8, 1}), view_of({8, 8}, {1, 0}), view_of({8, 8}, {2, 16})}) {
    EXPECT_FALSE(transpose_tiles(v, reinterpret_cast<const uint8_t*>(src.data()),
                                 reinterpret_cast<uint8_t*>(dst.data()), 4, 1));
  }
  EXPECT_FALSE(transpose_tiles(view_of({8, 8}, {1, 8}),
                               reinterpret_cast<const uint8_t*>(src.data()),
                               reinterpret_cast<uint8_t*>(dst.data()), 3, 1));
}

}  // namespace
}  // namespace amp::kernels::cpu
