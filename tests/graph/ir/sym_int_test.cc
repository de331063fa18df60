// SymInt (graph/ir/sym_int.h): polynomials in named dims, printed canonically so that two
// derivations of one size name the same dim.
#include "graph/ir/sym_int.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace amp::graph {
namespace {

SymInt named(const char* s) {
  return SymInt::of(Dim::symbolic(s));
}
SymInt c(int64_t v) {
  return SymInt::constant(v);
}

TEST(SymInt, ArithmeticPrintsCanonically) {
  const SymInt past = named("past");
  EXPECT_EQ((past + c(1)).to_string(), "past + 1");
  EXPECT_EQ((c(1) + past).to_string(), "past + 1");
  EXPECT_EQ((past * c(8)).to_string(), "8*past");
  EXPECT_EQ((named("seq") * named("batch")).to_string(), "batch*seq");
  EXPECT_EQ(((past + c(1)) * named("b")).to_string(), "b*past + b");
  EXPECT_EQ((c(5) - past).to_string(), "-past + 5");
  EXPECT_EQ((past - past).to_dim(), Dim(0));
  EXPECT_EQ((past + c(1) - c(1)).to_dim(), Dim::symbolic("past"));
  // Two paths to one size give one dim.
  EXPECT_EQ(((past + c(2)) + c(-1)).to_dim(), (c(1) + past).to_dim());
}

TEST(SymInt, NamesParseBackIntoTheirPolynomials) {
  for (const char* s : {"past + 1", "8*past", "b*past + b", "-past + 5", "batch*seq - 3"}) {
    const SymInt x = named(s);
    EXPECT_TRUE(x.known()) << s;
    EXPECT_EQ(x.to_string(), s);
  }
  // The importer's names are atoms, whatever they hold; a name that is only a number is a
  // name too, not that constant.
  EXPECT_EQ(named("sequence_length").to_string(), "sequence_length");
  EXPECT_EQ(named("a*").to_string(), "a*");
  EXPECT_EQ(named("2*3").to_string(), "2*3");
  EXPECT_EQ(named("7").to_dim(), Dim::symbolic("7"));
  EXPECT_FALSE(SymInt::of(Dim()).known());
  EXPECT_EQ(SymInt::of(Dim(12)).constant_value(), 12);
}

TEST(SymInt, ExactDivisionOnly) {
  const SymInt s = named("s"), b = named("b");
  EXPECT_EQ(exact_div((s + c(1)) * b * c(512), b * c(8)).to_string(), "64*s + 64");
  EXPECT_EQ(exact_div(c(768), c(12)).constant_value(), 64);
  EXPECT_FALSE(exact_div(s + c(1), c(2)).known());   // 1 is not a multiple of 2
  EXPECT_FALSE(exact_div(s * b, s + c(1)).known());  // not a monomial divisor
  EXPECT_FALSE(exact_div(s, c(0)).known());
  EXPECT_FALSE(exact_div(c(-7), c(2)).known());
}

TEST(SymInt, OverflowAndRunawayGrowthAreUnknown) {
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE((c(big) + c(1)).known());
  EXPECT_FALSE((named("s") * c(big) * c(2)).known());
  SymInt x = named("s") + c(1);
  for (int i = 0; i < 10; ++i) x = x * x;  // degree 1024
  EXPECT_FALSE(x.known());
  EXPECT_EQ(SymInt().to_dim(), Dim());
  EXPECT_EQ(c(-1).to_dim(), Dim());  // a negative size names no dim
}

}  // namespace
}  // namespace amp::graph
