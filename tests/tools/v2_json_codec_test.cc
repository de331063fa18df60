// The REST codec of amp-serve: requests parsed into tensors exactly, every malformed part
// refused with a message naming it, responses encoded as the binary tensor data extension
// says. (tests/serve/ drives the same code through tritonclient.)
#include "tools/serve/v2_json_codec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tests/fuzz/v2_request_pipeline.h"

#include "tools/serve/infer_request.h"
#include "tools/serve/serve_error.h"

namespace amp::serve {
namespace {

using json = nlohmann::json;

const std::vector<TensorInfo> kInputs = {
    {"x", DType::kF32, {-1, 2}, {"N", ""}},
    {"ids", DType::kI64, {-1, 3}, {"N", ""}},
};

std::string message_of(std::string_view body, std::optional<size_t> header_length = {}) {
  try {
    parse_infer_request(body, header_length, kInputs, 8);
  } catch (const ServeError& e) {
    EXPECT_EQ(e.status(), ServeStatus::kBadRequest);
    return e.what();
  }
  return "(accepted)";
}

TEST(V2JsonCodec, ParsesNestedJsonDataRowMajor) {
  const std::string body = R"({"id":"r1","inputs":[
      {"name":"x","datatype":"FP32","shape":[2,2],"data":[[1,2],[3,4.5]]},
      {"name":"ids","datatype":"INT64","shape":[1,3],"data":[7,-8,9000000000]}],
      "outputs":[{"name":"y","parameters":{"binary_data":true}}],
      "parameters":{"timeout":250}})";
  const InferRequest r = parse_infer_request(body, std::nullopt, kInputs, 8);
  EXPECT_EQ(r.id, "r1");
  ASSERT_EQ(r.inputs.size(), 2u);
  EXPECT_EQ(r.inputs[0].tensor.to_vector<float>(), (std::vector<float>{1, 2, 3, 4.5f}));
  EXPECT_EQ(r.inputs[1].tensor.to_vector<int64_t>(), (std::vector<int64_t>{7, -8, 9000000000}));
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].binary);
  EXPECT_EQ(r.timeout_us, 250);
}

TEST(V2JsonCodec, ParsesBinaryTensorData) {
  const float x[4] = {1.5f, -2, 3, 4};
  const int64_t ids[3] = {1, 2, 3};
  const std::string header = R"({"inputs":[
      {"name":"x","datatype":"FP32","shape":[2,2],"parameters":{"binary_data_size":16}},
      {"name":"ids","datatype":"INT64","shape":[1,3],"parameters":{"binary_data_size":24}}]})";
  std::string body = header;
  body.append(reinterpret_cast<const char*>(x), sizeof x);
  body.append(reinterpret_cast<const char*>(ids), sizeof ids);
  const InferRequest r = parse_infer_request(body, header.size(), kInputs, 8);
  EXPECT_EQ(r.inputs[0].tensor.to_vector<float>(), (std::vector<float>{1.5f, -2, 3, 4}));
  EXPECT_EQ(r.inputs[1].tensor.to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3}));
}

TEST(V2JsonCodec, RefusesMalformedRequestsNamingTheProblem) {
  EXPECT_NE(message_of("{").find("malformed"), std::string::npos);
  EXPECT_NE(message_of("{}").find("\"inputs\" array"), std::string::npos);
  EXPECT_NE(message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2]}]})")
                .find("needs \"data\" or parameters.binary_data_size"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],"data":[1]}]})")
                .find("holds 1 elements, its shape needs 2"),
            std::string::npos);
  EXPECT_NE(
      message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],"data":[1,2,3]}]})")
          .find("more elements than its shape"),
      std::string::npos);
  EXPECT_NE(
      message_of(R"({"inputs":[{"name":"ids","datatype":"INT64","shape":[1,3],"data":[1,2.5,3]}]})")
          .find("element 1 (2.5) is not an integer"),
      std::string::npos);
  EXPECT_NE(message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,-2],"data":[]}]})")
                .find("has a negative dim"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[-1,2],"data":[]}]})")
                .find("has a negative dim"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"inputs":[{"name":"x","datatype":"STRING","shape":[1,2],"data":[]}]})")
                .find("'STRING' is not supported"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1,2],
                           "parameters":{"binary_data_size":8}}]})",
                       std::nullopt)
                .find("only 0 bytes"),
            std::string::npos);
  EXPECT_NE(message_of("{}", 3).find("exceeds the body"), std::string::npos);
  EXPECT_THROW(parse_header_length("12a"), ServeError);
  EXPECT_THROW(parse_header_length("99999999999999999999"), ServeError);
  EXPECT_EQ(parse_header_length("42"), 42u);
}

TEST(V2JsonCodec, ShapesTooLargeToAllocateAreRefusedBeforeAllocating) {
  // 2^20 * 2 elements would be 8 MB; the check is against the data present, so this
  // fails on the count, without allocating the tensor.
  EXPECT_NE(
      message_of(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[1048576,2],"data":[1]}]})")
          .find("batch dim 1048576"),
      std::string::npos);
  EXPECT_THROW(checked_numel({int64_t{1} << 30, int64_t{1} << 30}, "t"), ServeError);
  EXPECT_EQ(checked_numel({3, 0, 5}, "t"), 0);
}

TEST(V2JsonCodec, RequestChecksCoverMissingRepeatedAndUnknown) {
  InferRequest r;
  r.inputs.push_back({"x", Tensor::empty(DType::kF32, {1, 2})});
  EXPECT_THROW(check_request(r, kInputs, {}), ServeError);  // 'ids' missing
  r.inputs.push_back({"ids", Tensor::empty(DType::kI64, {1, 3})});
  const std::vector<TensorInfo> outputs = {{"y", DType::kF32, {-1}, {"N"}}};
  EXPECT_NO_THROW(check_request(r, kInputs, outputs));
  r.outputs = {{"z", false}};
  EXPECT_THROW(check_request(r, kInputs, outputs), ServeError);
  r.outputs = {{"y", false}, {"y", true}};
  EXPECT_THROW(check_request(r, kInputs, outputs), ServeError);
}

TEST(V2JsonCodec, EncodesJsonAndBinaryOutputs) {
  const Tensor a = Tensor::from(std::vector<float>{1, 2, 3}, {1, 3});
  const Tensor b = Tensor::from(std::vector<int64_t>{5, 6}, {2});
  const EncodedResponse r = encode_infer_response("m", "id7", {{"a", a}, {"b", b}}, {false, true});
  ASSERT_TRUE(r.header_length.has_value());
  const json header = json::parse(r.body.substr(0, *r.header_length));
  EXPECT_EQ(header["model_name"], "m");
  EXPECT_EQ(header["id"], "id7");
  EXPECT_EQ(header["outputs"][0]["data"], json::array({1.0, 2.0, 3.0}));
  EXPECT_EQ(header["outputs"][0]["datatype"], "FP32");
  EXPECT_EQ(header["outputs"][1]["parameters"]["binary_data_size"], 16);
  ASSERT_EQ(r.body.size(), *r.header_length + 16);
  int64_t tail[2];
  std::memcpy(tail, r.body.data() + *r.header_length, 16);
  EXPECT_EQ(tail[0], 5);
  EXPECT_EQ(tail[1], 6);

  const EncodedResponse j = encode_infer_response("m", "", {{"a", a}}, {false});
  EXPECT_FALSE(j.header_length.has_value());
  EXPECT_FALSE(json::parse(j.body).contains("id"));
}

// The fuzzer's seeds and every finding saved beside them (tools/fuzz/run_serve_fuzzer.sh)
// go through the fuzzer's own pipeline: each parses or is refused, nothing else.
TEST(V2JsonCodec, FuzzSeedsParseOrAreRefused) {
  const std::filesystem::path dir = std::filesystem::path(AMP_TEST_DATA_DIR) / "fuzz" / "v2";
  int parsed = 0, files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(e.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                     std::istreambuf_iterator<char>());
    ++files;
    EXPECT_NO_THROW(parsed += fuzz::run_v2_request(bytes.data(), bytes.size()) ? 1 : 0) << e.path();
  }
  EXPECT_GE(files, 4);
  EXPECT_GE(parsed, 2);  // the valid seeds really parse
}

}  // namespace
}  // namespace amp::serve
