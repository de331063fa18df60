// The .amp reader against hostile files: every read returns OK or a clean Status naming
// the problem, never crashes (run under AMP_SANITIZE=ON to check for UB as well).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "graph/ir/graph_builder.h"
#include "graph/serialize/amp_reader.h"
#include "graph/serialize/amp_writer.h"
#include "tests/graph/serialize/amp_test_util.h"

namespace amp::graph {
namespace {

using amp_test::craft_amp;
using amp_test::RawAttr;
using amp_test::RawModel;
using amp_test::RawTensorAttr;
using amp_test::RawWeight;
using amp_test::small_raw_model;
using amp_test::small_raw_weights;

Result<Graph> read(std::vector<uint8_t> bytes) {
  return read_amp_bytes(std::make_shared<const std::vector<uint8_t>>(std::move(bytes)));
}

Status read_raw(const RawModel& m, const std::vector<uint8_t>& weights = small_raw_weights()) {
  auto r = read(craft_amp(m, weights));
  return r.is_ok() ? Status::ok() : r.status();
}

// The failure must be `code` and mention every fragment.
void expect_error(const Status& s, ErrorCode code, std::vector<std::string> fragments) {
  EXPECT_EQ(s.code(), code) << s.to_string();
  for (const std::string& f : fragments)
    EXPECT_NE(s.message().find(f), std::string::npos) << "'" << f << "' not in: " << s.message();
}

// A small but complete model written by the writer: constants, attributes of several
// kinds, symbolic dims, absent optionals.
std::vector<uint8_t> small_model_file() {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("n"), 4}));
  ValueId w = b.constant("w", TensorData::from_vector<float>(DType::kF32, {4}, {1, -2, 3, -4}));
  ValueId k = b.constant("k", TensorData::from_vector<int64_t>(DType::kI64, {2}, {5, 6}));
  Attributes a;
  a.set("alpha", 0.5f);
  a.set("axes", std::vector<int64_t>{0, 1});
  a.set("mode", std::string("linear"));
  a.set("value", TensorData::scalar_f32(1.0f));
  ValueId m = b.node(OpType::kMul, {x, w}, a);
  ValueId c = b.node(OpType::kClip, {m, kNoValue, kNoValue});
  ValueId r = b.node(OpType::kReshape, {c, k});
  b.output(r);
  Graph g = b.build();
  g.metadata.producer = "hostile";
  return write_amp_bytes(g).value();
}

TEST(AmpReaderHostile, SmallModelIsValid) {
  auto r = read(small_model_file());
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(read_raw(small_raw_model()).is_ok()) << read_raw(small_raw_model()).to_string();
}

// Every proper prefix of a valid file is rejected cleanly: either the FlatBuffer is cut
// (its length exceeds the file) or a weight is (its range exceeds the file).
TEST(AmpReaderHostile, TruncatedAtEveryLength) {
  const std::vector<uint8_t> file = small_model_file();
  for (size_t len = 0; len < file.size(); ++len) {
    auto r = read(std::vector<uint8_t>(file.begin(), file.begin() + len));
    ASSERT_FALSE(r.is_ok()) << "prefix of " << len << " bytes accepted";
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel) << len << ": " << r.status().to_string();
    EXPECT_FALSE(r.status().message().empty());
  }
}

// Same through the mmap path, with a stride (a file per length).
TEST(AmpReaderHostile, TruncatedFilesViaMmap) {
  amp_test::ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const std::vector<uint8_t> file = small_model_file();
  const std::string path = dir.file("t.amp");
  for (size_t len = 0; len < file.size(); len += (len < 64 ? 1 : 13)) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(len));
    }
    auto r = read_amp_file(path);
    ASSERT_FALSE(r.is_ok()) << "prefix of " << len << " bytes accepted";
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel) << r.status().to_string();
    EXPECT_NE(r.status().message().find("t.amp"), std::string::npos);
  }
}

// Every byte position, three corruptions each. A flip may leave a valid model (a weight
// byte, a name character); otherwise the error is clean.
TEST(AmpReaderHostile, FlippedBytesAtEveryPosition) {
  const std::vector<uint8_t> file = small_model_file();
  size_t rejected = 0, total = 0;
  for (size_t pos = 0; pos < file.size(); ++pos) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      std::vector<uint8_t> bad = file;
      bad[pos] ^= mask;
      auto r = read(std::move(bad));
      ++total;
      if (r.is_ok()) continue;
      ++rejected;
      const ErrorCode c = r.status().code();
      EXPECT_TRUE(c == ErrorCode::kInvalidModel || c == ErrorCode::kUnsupported ||
                  c == ErrorCode::kOutOfMemory)
          << "byte " << pos << ": " << r.status().to_string();
      EXPECT_FALSE(r.status().message().empty());
    }
  }
  // Most of the FlatBuffer is structure: most flips must be caught.
  EXPECT_GT(rejected, total / 4) << rejected << " of " << total;
}

// Random multi-byte damage, and 32-bit words overwritten with values that break offset
// arithmetic (0, -1, INT32_MAX, small). Fixed seed: failures reproduce.
TEST(AmpReaderHostile, RandomCorruption) {
  const std::vector<uint8_t> file = small_model_file();
  std::mt19937 rng(20240607);
  std::uniform_int_distribution<size_t> pos(0, file.size() - 1);
  std::uniform_int_distribution<size_t> word(0, file.size() / 4 - 1);
  const uint32_t nasty[] = {0, 0xffffffffu, 0x7fffffffu, 0x80000000u, 1, 4, 8, 255, 256};
  for (int iter = 0; iter < 4000; ++iter) {
    std::vector<uint8_t> bad = file;
    if (iter % 2 == 0) {
      const int n = 1 + iter % 8;
      for (int k = 0; k < n; ++k) bad[pos(rng)] = static_cast<uint8_t>(rng());
    } else {
      const uint32_t v = nasty[rng() % std::size(nasty)];
      std::memcpy(bad.data() + 4 * word(rng), &v, 4);
    }
    auto r = read(std::move(bad));
    if (r.is_ok()) continue;
    EXPECT_NE(r.status().code(), ErrorCode::kInternal) << iter << ": " << r.status().to_string();
    EXPECT_FALSE(r.status().message().empty());
  }
}

TEST(AmpReaderHostile, WrongIdentifier) {
  std::vector<uint8_t> file = small_model_file();
  std::memcpy(file.data() + 8, "ONNX", 4);
  expect_error(read(file).status(), ErrorCode::kInvalidModel,
               {"not an .amp file", "'ONNX'", "expected 'AMP1'"});
  file[8] = 0;
  expect_error(read(file).status(), ErrorCode::kInvalidModel, {"'\\x00NNX'"});
}

TEST(AmpReaderHostile, FlatBufferLengthBeyondFile) {
  std::vector<uint8_t> file = small_model_file();
  const uint32_t huge = 0xfffffff0u;
  std::memcpy(file.data(), &huge, 4);
  expect_error(read(file).status(), ErrorCode::kInvalidModel, {"exceeds", "truncated"});
}

TEST(AmpReaderHostile, SchemaVersion) {
  RawModel m = small_raw_model();
  m.schema_version = kAmpSchemaVersion + 1;
  expect_error(read_raw(m), ErrorCode::kUnsupported, {"schema version 2", "newer"});
  m.schema_version = 0;  // absent from the FlatBuffer
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"schema version is missing"});
}

TEST(AmpReaderHostile, WeightOutOfRange) {
  RawModel m = small_raw_model();
  m.values[1].weight->offset = 256;  // past the 12 weight bytes
  expect_error(read_raw(m), ErrorCode::kInvalidModel,
               {"value 'w' (index 1)", "outside the weight region"});

  m.values[1].weight->offset = 0;
  m.values[1].weight->size = 4096;  // runs past the end
  m.values[1].weight->dims = {1024};
  m.values[1].shape = {1024};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "outside"});
}

TEST(AmpReaderHostile, WeightOffsetPlusSizeOverflows) {
  RawModel m = small_raw_model();
  // Aligned, and offset + size wraps around to a small number.
  m.values[1].weight =
      RawWeight{.offset = UINT64_MAX - 255, .size = 512, .dims = {128}, .absolute = true};
  m.values[1].shape = {128};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "outside"});
  m.values[1].weight = RawWeight{.offset = 0, .size = UINT64_MAX, .dims = {3}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "outside"});
}

TEST(AmpReaderHostile, WeightInsideFlatBuffer) {
  RawModel m = small_raw_model();
  m.values[1].weight = RawWeight{.offset = 0, .size = 12, .dims = {3}, .absolute = true};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "outside the weight region"});
}

TEST(AmpReaderHostile, WeightMisaligned) {
  RawModel m = small_raw_model();
  m.values[1].weight->offset = 4;
  std::vector<uint8_t> w(16, 1);
  expect_error(read_raw(m, w), ErrorCode::kInvalidModel, {"'w'", "not 256-byte aligned"});
}

TEST(AmpReaderHostile, WeightSizeMismatch) {
  RawModel m = small_raw_model();
  m.values[1].weight->size = 8;  // f32 [3] needs 12
  expect_error(read_raw(m), ErrorCode::kInvalidModel,
               {"value 'w' (index 1)", "weight size 8 bytes does not match f32 [3]"});
}

TEST(AmpReaderHostile, WeightElementCountOverflows) {
  RawModel m = small_raw_model();
  // numel overflows int64.
  m.values[1].has_shape = false;
  m.values[1].weight->dims = {INT64_MAX, 2};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "does not match"});
  // numel fits int64 but numel x 4 bytes overflows uint64 to 0 (with size 0).
  m.values[1].weight->dims = {int64_t{1} << 62};
  m.values[1].weight->size = 0;
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "does not match"});
  m.values[1].weight->dims = {-3};
  m.values[1].weight->size = 12;
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "negative dim -3"});
}

TEST(AmpReaderHostile, BadDtypes) {
  RawModel m = small_raw_model();
  m.values[0].dtype = 4;  // ONNX uint16: not an amp::DType
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"value 'x' (index 0)", "unknown dtype 4"});
  m = small_raw_model();
  m.values[1].dtype = 0;  // a weight needs a dtype
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "undefined dtype"});
  m = small_raw_model();
  m.values[1].dtype = 7;  // i64 [3] is 24 bytes, not 12
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "does not match i64 [3]"});
}

TEST(AmpReaderHostile, BadShapes) {
  RawModel m = small_raw_model();
  m.values[0].shape = std::vector<int64_t>(65, 1);
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'x'", "rank 65"});
  m.values[0].shape = {3, -2};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'x'", "dim -2"});
  // A constant whose data disagrees with its declared shape (verify_graph).
  m = small_raw_model();
  m.values[1].shape = {4};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'w'", "[3]", "[4]"});
}

TEST(AmpReaderHostile, ValueIndexOutOfRange) {
  RawModel m = small_raw_model();
  m.nodes[1].inputs[1] = 99;
  expect_error(read_raw(m), ErrorCode::kInvalidModel,
               {"node 'mul' (index 1)", "input 1 refers to value 99", "out of range"});
  m = small_raw_model();
  m.nodes[0].outputs[0] = -2;
  expect_error(read_raw(m), ErrorCode::kInvalidModel,
               {"node 'relu' (index 0)", "output 0 refers to value -2"});
  m = small_raw_model();
  m.outputs = {4};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"graph output 0 refers to value 4"});
}

TEST(AmpReaderHostile, MinusOneIsNotAGraphInput) {
  RawModel m = small_raw_model();
  m.inputs = {0, -1};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"graph input 1 refers to value -1"});
}

TEST(AmpReaderHostile, AbsentOptionalInputIsFine) {
  RawModel m = small_raw_model();
  m.nodes[0].op = "Clip";
  m.nodes[0].inputs = {0, -1, -1};
  EXPECT_TRUE(read_raw(m).is_ok()) << read_raw(m).to_string();
}

TEST(AmpReaderHostile, Cycle) {
  RawModel m = small_raw_model();
  m.nodes[0].inputs = {3};  // relu consumes mul's output, and mul consumes relu's
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"relu", "before it is defined"});
}

TEST(AmpReaderHostile, NodeConsumesItsOwnOutput) {
  RawModel m = small_raw_model();
  m.nodes[0].inputs = {2};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"relu", "before it is defined"});
}

TEST(AmpReaderHostile, TwoProducers) {
  RawModel m = small_raw_model();
  m.nodes[1].outputs = {2};  // mul also writes relu's output
  m.outputs = {2};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"mul", "exactly one producer"});
  m = small_raw_model();
  m.nodes[0].outputs = {1};  // a node output that is also a constant
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"relu", "exactly one producer"});
}

TEST(AmpReaderHostile, UnknownOpType) {
  RawModel m = small_raw_model();
  m.nodes[1].op = "Foo";
  expect_error(read_raw(m), ErrorCode::kUnsupported,
               {"unknown op type 'Foo' at node 'mul' (index 1)"});
  m.nodes[1].op = "";
  expect_error(read_raw(m), ErrorCode::kUnsupported, {"unknown op type ''"});
}

TEST(AmpReaderHostile, DuplicateNames) {
  RawModel m = small_raw_model();
  m.values[3].name = "x";
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"duplicate value name 'x'"});
  m = small_raw_model();
  m.nodes[1].name = "relu";
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"duplicate node name 'relu'"});
}

TEST(AmpReaderHostile, BadAttributes) {
  RawModel m = small_raw_model();
  m.nodes[1].attrs = {RawAttr{.name = "a"}, RawAttr{.name = "a"}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel,
               {"node 'mul' (index 1)", "duplicate attribute 'a'"});

  m.nodes[1].attrs = {RawAttr{.name = "k", .with_payload = false}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'mul'", "attribute 'k'", "no value"});

  m.nodes[1].attrs = {RawAttr{.name = "k", .kind = 0, .with_payload = false}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'mul'", "attribute 'k' has no value"});

  m.nodes[1].attrs = {RawAttr{.name = "k", .kind = 42}};
  expect_error(read_raw(m), ErrorCode::kUnsupported, {"'mul'", "attribute 'k'", "unknown kind 42"});
}

// Fuzz finding: FlatBuffers 2.0 verifies a vector's alignment only to its 4-byte length,
// so [long] data can sit at 4 mod 8. The reader must copy it bytewise (a misaligned 8-byte
// load is UB, reported by UBSan under AMP_SANITIZE=ON) and read the same values.
TEST(AmpReaderHostile, MisalignedLongVectorsReadCorrectly) {
  RawModel m = small_raw_model();
  const std::vector<int64_t> ints = {7, -8, int64_t{1} << 40};
  m.nodes[1].attrs = {
      RawAttr{.name = "axes", .kind = static_cast<uint8_t>(fb::AttrValue::IntsAttr), .ints = ints}};
  m.misalign_long_vectors = true;
  const std::vector<uint8_t> file = amp_test::craft_amp(m, small_raw_weights());

  // The crafted file really is misaligned where it matters (else this test proves nothing).
  const fb::Model& fm = *fb::GetSizePrefixedModel(file.data());
  const auto misalignment = [&](const uint8_t* p) { return (p - file.data()) % 8; };
  EXPECT_EQ(misalignment(fm.values()->Get(1)->weight()->dims()->Data()), 4);
  EXPECT_EQ(
      misalignment(fm.nodes()->Get(1)->attributes()->Get(0)->value_as_IntsAttr()->values()->Data()),
      4);

  auto r = read(file);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Graph& g = r.value();
  EXPECT_EQ(g.value(1).constant->dims(), std::vector<int64_t>{3});
  auto read_ints = g.nodes[1].attrs.get_ints("axes");
  ASSERT_TRUE(read_ints.is_ok()) << read_ints.status().to_string();
  EXPECT_EQ(read_ints.value(), ints);
}

TEST(AmpReaderHostile, AttributeTensorSizeMismatch) {
  RawModel m = small_raw_model();
  const uint8_t tensor_kind = static_cast<uint8_t>(fb::AttrValue::TensorAttr);
  m.nodes[1].attrs = {RawAttr{.name = "t",
                              .kind = tensor_kind,
                              .tensor = RawTensorAttr{.dtype = 1, .dims = {2}, .data = {1, 2, 3}}}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel,
               {"node 'mul' (index 1)", "attribute 't'", "byte size 3"});
  m.nodes[1].attrs[0].tensor = RawTensorAttr{.dtype = 0, .dims = {}, .data = {}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'t'", "undefined dtype"});
  m.nodes[1].attrs[0].tensor = RawTensorAttr{.dtype = 1, .dims = {INT64_MAX, 4}, .data = {}};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'t'", "overflowing"});
  m.nodes[1].attrs[0].tensor = RawTensorAttr{.dtype = 1, .dims = std::vector<int64_t>(70, 1)};
  expect_error(read_raw(m), ErrorCode::kInvalidModel, {"'t'", "rank 70"});
}

// One Value table referenced 50,000 times is a legal FlatBuffer of ~270 KB that would
// materialize as 50,000 copies of a 64 KB name (3 GB): the reader's memory cap stops it.
TEST(AmpReaderHostile, SharedSubtablesCannotAmplifyAllocations) {
  flatbuffers::FlatBufferBuilder b;
  auto name = b.CreateString(std::string(64 * 1024, 'n'));
  auto value = fb::CreateValue(b, name, fb::DType::F32);
  std::vector<flatbuffers::Offset<fb::Value>> values(50000, value);
  auto model = fb::CreateModel(b, kAmpSchemaVersion, b.CreateVector(values));
  fb::FinishSizePrefixedModelBuffer(b, model);
  std::vector<uint8_t> file(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  expect_error(read(file).status(), ErrorCode::kOutOfMemory, {"far more memory"});
}

TEST(AmpReaderHostile, GarbageAfterValidHeader) {
  std::vector<uint8_t> file = small_model_file();
  for (size_t i = 12; i < 64 && i < file.size(); ++i) file[i] = 0xab;
  auto r = read(file);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel) << r.status().to_string();
}

TEST(AmpReaderHostile, NullBuffer) {
  auto r = read_amp_bytes(nullptr);
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace amp::graph
