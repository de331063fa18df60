#include "runtime/common/status.h"

#include <gtest/gtest.h>

#include "amp/dtype.h"

namespace amp {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return invalid_argument("value must be positive, got " + std::to_string(v));
  return v;
}

Result<int> doubled(int v) {
  AMP_ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

TEST(Status, PropagatesCodeAndMessage) {
  EXPECT_EQ(*doubled(4), 8);
  auto r = doubled(-1);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "value must be positive, got -1");
  EXPECT_EQ(r.status().with_context("option 'x'").message(),
            "option 'x': value must be positive, got -1");
}

TEST(Status, ThrowsAmpErrorAtTheBoundary) {
  try {
    value_or_throw(doubled(0));
    FAIL() << "expected amp::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "invalid argument: value must be positive, got 0");
  }
}

TEST(DType, NamesAndOnnxCodesRoundTrip) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI64, DType::kI32,
                  DType::kI16, DType::kI8, DType::kU8, DType::kBool}) {
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
    EXPECT_EQ(dtype_from_onnx(static_cast<int32_t>(t)), t);
    EXPECT_GT(dtype_size(t), 0u);
  }
  EXPECT_FALSE(dtype_from_onnx(8).has_value());   // STRING
  EXPECT_FALSE(dtype_from_onnx(12).has_value());  // UINT32
}

}  // namespace
}  // namespace amp
