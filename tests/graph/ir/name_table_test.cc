// NameTable: O(1) unique names for passes that name one value per node.
#include "graph/ir/name_table.h"

#include <gtest/gtest.h>

namespace amp::graph {
namespace {

TEST(NameTable, FreshNamesAvoidTheGraphAndEachOther) {
  Graph g;
  for (const char* name : {"a", "a_1", "b"}) {
    Value v;
    v.name = name;
    g.add_value(std::move(v));
  }
  NameTable names = NameTable::values_of(g);
  EXPECT_TRUE(names.contains("a_1"));
  EXPECT_EQ(names.fresh("a"), "a_2");
  EXPECT_EQ(names.fresh("a"), "a_3");
  EXPECT_EQ(names.fresh("c"), "c");
  EXPECT_EQ(names.fresh("c"), "c_1");
  EXPECT_FALSE(names.claim("b"));
  EXPECT_TRUE(names.claim("d"));
  EXPECT_EQ(names.fresh("d"), "d_1");
}

// Asking for one base many times is linear: 100,000 requests finish at once.
TEST(NameTable, RepeatedBaseIsLinear) {
  NameTable names;
  std::string last;
  for (int i = 0; i < 100000; ++i) last = names.fresh("cast");
  EXPECT_EQ(last, "cast_99999");
}

}  // namespace
}  // namespace amp::graph
