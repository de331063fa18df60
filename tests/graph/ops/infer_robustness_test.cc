// Every op's rule sees hostile nodes: random arity within the schema, random dtypes,
// ranks and dims (0, huge, symbolic), constant inputs with extreme values and extreme
// attributes. A rule may reject them, but must never crash, hang or overflow (run under
// -fsanitize=address,undefined to check the last).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "graph/ops/op_schema.h"
#include "tests/graph/ops/infer_test_util.h"

namespace amp::graph {
namespace {

constexpr int64_t kBig = std::numeric_limits<int64_t>::max();
constexpr int64_t kSmall = std::numeric_limits<int64_t>::min();

class Fuzzer {
 public:
  explicit Fuzzer(uint32_t seed) : rng_(seed) {}

  int64_t pick_int() {
    static const int64_t kValues[] = {0, 1, 2, 3, -1, -2, 5, 7, kBig, kSmall, kBig / 2, -kBig / 3};
    return kValues[uniform(std::size(kValues))];
  }
  std::vector<int64_t> pick_ints() {
    std::vector<int64_t> v(uniform(6));
    for (int64_t& x : v) x = pick_int();
    return v;
  }
  DType pick_dtype() {
    static const DType kTypes[] = {DType::kF32,  DType::kF16, DType::kI64, DType::kI32,
                                   DType::kBool, DType::kU8,  DType::kF32, DType::kI64};
    return kTypes[uniform(std::size(kTypes))];
  }
  Dim pick_dim() {
    switch (uniform(8)) {
      case 0:
        return Dim(0);
      case 1:
        return Dim(1);
      case 2:
        return Dim(kBig);
      case 3:
        return Dim::symbolic("N");
      case 4:
        return Dim();
      default:
        return Dim(static_cast<int64_t>(1 + uniform(8)));
    }
  }
  ValueId pick_input(InferCase& t) {
    switch (uniform(4)) {
      case 0:
        return t.ints(pick_ints());
      case 1:
        return t.unknown(pick_dtype());
      case 2:
        return t.scalar_i64(pick_int());
      default: {
        std::vector<Dim> dims(uniform(6));
        for (Dim& d : dims) d = pick_dim();
        return t.input(pick_dtype(), dims);
      }
    }
  }
  Attributes pick_attrs() {
    static const char* const kInts[] = {"axis",
                                        "keepdims",
                                        "group",
                                        "to",
                                        "blocksize",
                                        "num_outputs",
                                        "transA",
                                        "transB",
                                        "allowzero",
                                        "ceil_mode",
                                        "start",
                                        "end",
                                        "noop_with_empty_axes",
                                        "stash_type",
                                        "training_mode"};
    static const char* const kLists[] = {"perm",         "kernel_shape",  "strides",
                                         "pads",         "dilations",     "axes",
                                         "output_shape", "output_padding"};
    static const char* const kStrings[] = {"auto_pad", "mode", "keep_aspect_ratio_policy"};
    static const char* const kStringValues[] = {"SAME_UPPER", "VALID",  "reflect", "edge",
                                                "not_larger", "linear", "nearest", "bogus"};
    Attributes a;
    for (size_t i = uniform(5); i > 0; --i) {
      switch (uniform(3)) {
        case 0:
          a.set(kInts[uniform(std::size(kInts))], pick_int());
          break;
        case 1:
          a.set(kLists[uniform(std::size(kLists))], pick_ints());
          break;
        default:
          a.set(kStrings[uniform(std::size(kStrings))],
                std::string(kStringValues[uniform(std::size(kStringValues))]));
      }
    }
    return a;
  }
  size_t uniform(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

 private:
  std::mt19937 rng_;
};

TEST(InferRobustness, RandomNodesNeverCrash) {
  Fuzzer f(12345);  // fixed: a failure must be reproducible
  int accepted = 0;
  for (int op_index = 0; op_index < kOpCount; ++op_index) {
    const OpType op = static_cast<OpType>(op_index);
    const OpSchema& schema = op_schema(op);
    for (int trial = 0; trial < 400; ++trial) {
      InferCase t;
      const int max_in = schema.max_inputs == kAnyCount ? schema.min_inputs + 3 : schema.max_inputs;
      const int n_in =
          schema.min_inputs +
          static_cast<int>(f.uniform(static_cast<size_t>(max_in - schema.min_inputs + 1)));
      std::vector<ValueId> inputs;
      for (int i = 0; i < n_in; ++i)
        inputs.push_back(i >= schema.min_inputs && f.uniform(3) == 0 ? kNoValue : f.pick_input(t));
      const int max_out = std::min(schema.max_outputs, schema.min_outputs + 3);
      const int n_out =
          schema.min_outputs +
          static_cast<int>(f.uniform(static_cast<size_t>(max_out - schema.min_outputs + 1)));
      Status s = t.run(op, inputs, f.pick_attrs(), n_out);
      if (s.is_ok()) {
        ++accepted;
        for (int k = 0; k < n_out; ++k)
          EXPECT_NE(t.dtype(static_cast<size_t>(k)), DType::kUndefined);
      } else {
        EXPECT_FALSE(s.message().empty()) << op_name(op);
        EXPECT_NE(s.code(), ErrorCode::kInternal) << op_name(op) << ": " << s.message();
      }
    }
  }
  // Not everything may be rejected, or the fuzzer tests nothing.
  EXPECT_GT(accepted, kOpCount * 20);
}

}  // namespace
}  // namespace amp::graph
