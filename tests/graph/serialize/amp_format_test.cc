// The .amp writer and reader on valid graphs: round trips are exact, weights are aligned
// and zero-copy, files are replaced atomically, and weights past 2 GiB are reachable.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "graph/ir/graph_builder.h"
#include "graph/ir/verifier.h"
#include "graph/serialize/amp_reader.h"
#include "graph/serialize/amp_writer.h"
#include "tests/graph/serialize/amp_test_util.h"

namespace amp::graph {
namespace {

using amp_test::ScratchDir;

template <typename T>
std::vector<T> random_values(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-100, 100);
  std::vector<T> v(n);
  for (T& x : v) {
    x = static_cast<T>(dist(rng));
    if (x == T{}) x = static_cast<T>(1);  // never all zeros
  }
  return v;
}

// Random raw bit patterns for the 16-bit float types (any pattern is a valid element).
std::vector<uint16_t> random_bits16(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(1, 0xffff);
  std::vector<uint16_t> v(n);
  for (uint16_t& x : v) x = static_cast<uint16_t>(dist(rng));
  return v;
}

// A graph that exercises every field of the format:
//
//   x [batch,3,?,8] f32 --Clip(min absent, max=cmax)--> clip_0 --Relu{all attr kinds}-->
//   relu_1 --Split(3 outputs, 3rd unused)--> split_2_0, split_2_1 --Add--> add_3 (output)
//   y [4] i64 (second graph input) --Cast--> cast_4 (output)
//
// plus constants of every dtype (one with no recorded shape, one empty, one scalar, two
// sharing storage), a mix of known/unknown/symbolic shapes, and metadata.
Graph rich_graph() {
  std::mt19937 rng(1234);
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("batch"), 3, Dim(), 8}));
  ValueId y = b.input("y", DType::kI64, {4});
  ValueId cmax = b.constant("cmax", TensorData::scalar_f32(6.0f));
  ValueId clip = b.node(OpType::kClip, {x, kNoValue, cmax});

  Attributes attrs;
  attrs.set("i", int64_t{-42});
  attrs.set("f", 0.125f);
  attrs.set("s", std::string("hello\0world", 11));  // embedded NUL survives
  attrs.set("ints", std::vector<int64_t>{1, -2, INT64_MAX, INT64_MIN});
  attrs.set("floats", std::vector<float>{1.5f, -0.0f, 3e38f});
  attrs.set("strings", std::vector<std::string>{"a", "", "ccc"});
  attrs.set("empty_ints", std::vector<int64_t>{});
  attrs.set("t", TensorData::from_vector<int32_t>(DType::kI32, {2, 2}, {1, 2, 3, 4}));
  attrs.set("t_scalar", TensorData::scalar_f32(2.5f));
  ValueId relu = b.node(OpType::kRelu, {clip}, attrs);
  std::vector<ValueId> parts = b.node_multi(OpType::kSplit, {relu}, 3);
  ValueId add = b.node(OpType::kAdd, {parts[0], parts[1]});
  ValueId cast = b.node(OpType::kCast, {y}, {}, "my_cast");
  b.output(add);
  b.output(cast);

  b.constant("w_f32",
             TensorData::from_vector<float>(DType::kF32, {2, 3}, random_values<float>(6, rng)));
  b.constant("w_f16", TensorData::from_vector<uint16_t>(DType::kF16, {5}, random_bits16(5, rng)));
  b.constant("w_bf16",
             TensorData::from_vector<uint16_t>(DType::kBF16, {1, 3}, random_bits16(3, rng)));
  b.constant("w_f64",
             TensorData::from_vector<double>(DType::kF64, {2}, random_values<double>(2, rng)));
  b.constant("w_i8",
             TensorData::from_vector<int8_t>(DType::kI8, {7}, random_values<int8_t>(7, rng)));
  b.constant("w_u8",
             TensorData::from_vector<uint8_t>(DType::kU8, {3, 1}, random_values<uint8_t>(3, rng)));
  b.constant("w_i16",
             TensorData::from_vector<int16_t>(DType::kI16, {4}, random_values<int16_t>(4, rng)));
  b.constant("w_i32",
             TensorData::from_vector<int32_t>(DType::kI32, {2, 2}, random_values<int32_t>(4, rng)));
  b.constant("w_i64", TensorData::scalar_i64(-7));
  b.constant("w_bool", TensorData::from_vector<uint8_t>(DType::kBool, {3}, {1, 0, 1}));
  b.constant("w_empty", TensorData::from_vector<float>(DType::kF32, {0, 4}, {}));
  ValueId noshape =
      b.constant("w_noshape", TensorData::from_vector<float>(DType::kF32, {2, 2}, {1, 2, 3, 4}));
  TensorData shared =
      TensorData::from_vector<float>(DType::kF32, {64}, random_values<float>(64, rng));
  b.constant("tied_a", shared);
  b.constant("tied_b", shared);  // same storage: written once

  Graph g = b.build();
  g.value(noshape).shape.reset();
  // Split's third output is an unused optional: absent, and its value is dropped.
  g.nodes[2].outputs[2] = kNoValue;
  g.value(relu).shape = Shape({Dim::symbolic("batch"), 3, Dim(), 8});
  g.value(clip).dtype = DType::kF32;
  g.value(parts[0]).shape = Shape({Dim::symbolic("batch"), Dim::symbolic("half"), 0});
  g.value(parts[1]).shape = Shape{};  // rank 0, known
  g.metadata.producer = "amp_format_test 1.0";
  g.metadata.source_opset = 17;
  g.metadata.source_format = "onnx";
  g.metadata.properties = {{"author", "me"}, {"", "empty key"}, {"author", "duplicate keys kept"}};
  return g;
}

Result<Graph> round_trip_bytes(const Graph& g) {
  AMP_ASSIGN_OR_RETURN(std::vector<uint8_t> image, write_amp_bytes(g));
  return read_amp_bytes(std::make_shared<const std::vector<uint8_t>>(std::move(image)));
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TEST(AmpFormat, RichGraphIsValidToStartWith) {
  Graph g = rich_graph();
  EXPECT_TRUE(verify_graph(g).is_ok()) << verify_graph(g).to_string();
}

TEST(AmpFormat, RoundTripBytesIsExact) {
  Graph g = rich_graph();
  auto r = round_trip_bytes(g);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(*r == g);
  // Spot-check the parts Graph::operator== might be lenient about.
  const Graph& h = *r;
  EXPECT_FALSE(h.value(*h.find_value("w_noshape")).shape.has_value());
  EXPECT_FALSE(h.value(*h.find_value("split_2_2")).shape.has_value());
  EXPECT_EQ(h.nodes[0].inputs[1], kNoValue);
  EXPECT_EQ(h.nodes[2].outputs[2], kNoValue);
  EXPECT_EQ(h.value(0).shape->dims[0].symbol, "batch");
  EXPECT_EQ(std::get<std::string>(h.nodes[1].attrs.all().at("s")).size(), 11u);
  EXPECT_EQ(h.metadata.properties.size(), 3u);
}

TEST(AmpFormat, WriterIsDeterministic) {
  Graph g = rich_graph();
  auto a = write_amp_bytes(g);
  auto b = write_amp_bytes(g);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(*a, *b);
}

TEST(AmpFormat, HeaderLayout) {
  auto image = write_amp_bytes(rich_graph());
  ASSERT_TRUE(image.is_ok());
  const std::vector<uint8_t>& f = *image;
  ASSERT_GE(f.size(), kAmpMinFileSize);
  EXPECT_EQ(std::memcmp(f.data() + kAmpIdentifierOffset, "AMP1", 4), 0);
  uint32_t len = 0;
  std::memcpy(&len, f.data(), 4);
  EXPECT_LE(4u + len, f.size());
  const fb::Model* m = fb::GetSizePrefixedModel(f.data());
  EXPECT_EQ(m->schema_version(), kAmpSchemaVersion);
}

// Every weight starts on a 256-byte boundary after the FlatBuffer, in the file and in
// memory; reads are views (zero copy), and tied weights are stored once.
TEST(AmpFormat, WeightsAreAlignedAndZeroCopy) {
  Graph g = rich_graph();
  auto image = write_amp_bytes(g);
  ASSERT_TRUE(image.is_ok());
  auto bytes = std::make_shared<const std::vector<uint8_t>>(std::move(image).value());
  const fb::Model* m = fb::GetSizePrefixedModel(bytes->data());
  uint32_t len = 0;
  std::memcpy(&len, bytes->data(), 4);
  int weights = 0;
  for (const fb::Value* v : *m->values()) {
    if (!v->weight()) continue;
    ++weights;
    EXPECT_EQ(v->weight()->offset() % 256, 0u) << v->name()->str();
    EXPECT_GE(v->weight()->offset(), 4u + len) << v->name()->str();
  }
  EXPECT_EQ(weights, 15);

  auto r = read_amp_bytes(bytes);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const uint8_t* base = bytes->data();
  for (const Value& v : r->values) {
    if (!v.constant || v.constant->byte_size() == 0) continue;
    const uint8_t* p = v.constant->bytes();
    ASSERT_TRUE(p >= base && p + v.constant->byte_size() <= base + bytes->size()) << v.name;
    EXPECT_EQ((p - base) % 256, 0) << v.name;
  }
  EXPECT_EQ(r->value(*r->find_value("tied_a")).constant->bytes(),
            r->value(*r->find_value("tied_b")).constant->bytes());
}

TEST(AmpFormat, RoundTripFileViaMmapAndRead) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  Graph g = rich_graph();
  const std::string path = dir.file("model.amp");
  ASSERT_TRUE(write_amp_file(g, path).is_ok());
  // Only the model is left: the temporary was renamed.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  // The file is the same image write_amp_bytes makes.
  EXPECT_EQ(read_file_bytes(path), *write_amp_bytes(g));

  for (bool use_mmap : {true, false}) {
    auto r = read_amp_file(path, ReadOptions{.use_mmap = use_mmap});
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_TRUE(*r == g) << "use_mmap=" << use_mmap;
    for (const Value& v : r->values) {
      if (v.constant && v.constant->byte_size() > 0) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(v.constant->bytes()) % 256, 0u) << v.name;
      }
    }
  }
}

// Constants keep their buffer alive after the Graph and every other owner is gone.
TEST(AmpFormat, ConstantsOutliveGraphAndBuffer) {
  Graph g = rich_graph();
  const TensorData expected = *g.value(*g.find_value("w_f32")).constant;
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.file("m.amp");
  ASSERT_TRUE(write_amp_file(g, path).is_ok());

  std::optional<TensorData> from_file, from_bytes;
  {
    auto r = read_amp_file(path);
    ASSERT_TRUE(r.is_ok());
    from_file = r->value(*r->find_value("w_f32")).constant;
  }
  {
    auto bytes = std::make_shared<const std::vector<uint8_t>>(*write_amp_bytes(g));
    auto r = read_amp_bytes(bytes);
    ASSERT_TRUE(r.is_ok());
    from_bytes = r->value(*r->find_value("w_f32")).constant;
  }
  // The file may even be replaced: the mapping holds the old inode.
  std::filesystem::remove(path);
  EXPECT_TRUE(*from_file == expected);
  EXPECT_TRUE(*from_bytes == expected);
}

// Rewriting a model that is mapped elsewhere leaves the mapped graph intact (rename
// gives the new file a new inode) and the next read sees the new contents.
TEST(AmpFormat, AtomicReplaceKeepsMappedReadersIntact) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.file("m.amp");
  Graph g1 = rich_graph();
  ASSERT_TRUE(write_amp_file(g1, path).is_ok());
  auto old = read_amp_file(path);
  ASSERT_TRUE(old.is_ok());

  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {2});
  b.output(b.node(OpType::kMul, {x, b.constant("k", TensorData::from_vector<float>(
                                                        DType::kF32, {2}, {3.0f, 4.0f}))}));
  Graph g2 = b.build();
  ASSERT_TRUE(write_amp_file(g2, path).is_ok());
  EXPECT_TRUE(*old == g1);
  auto fresh = read_amp_file(path);
  ASSERT_TRUE(fresh.is_ok());
  EXPECT_TRUE(*fresh == g2);
}

TEST(AmpFormat, EmptyAndWeightlessGraphs) {
  Graph empty;
  auto r = round_trip_bytes(empty);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(*r == empty);

  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, Shape({Dim::symbolic("n")}));
  b.output(b.node(OpType::kRelu, {x}));
  Graph g = b.build();
  auto image = write_amp_bytes(g);
  ASSERT_TRUE(image.is_ok());
  uint32_t len = 0;
  std::memcpy(&len, image->data(), 4);
  EXPECT_EQ(image->size(), 4u + len);  // no weights: no padding
  r = round_trip_bytes(g);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(*r == g);
}

// An empty constant after the last blob still gets an offset inside the file.
TEST(AmpFormat, TrailingEmptyConstant) {
  GraphBuilder b;
  ValueId x = b.input("x", DType::kF32, {3});
  ValueId w = b.constant("w", TensorData::from_vector<float>(DType::kF32, {3}, {1, 2, 3}));
  b.constant("e", TensorData::from_vector<float>(DType::kF32, {0}, {}));
  b.output(b.node(OpType::kAdd, {x, w}));
  Graph g = b.build();
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(write_amp_file(g, dir.file("m.amp")).is_ok());
  EXPECT_EQ(read_file_bytes(dir.file("m.amp")), *write_amp_bytes(g));
  auto r = read_amp_file(dir.file("m.amp"));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_TRUE(*r == g);
}

TEST(AmpFormat, WriterRejectsGraphsTheReaderWould) {
  {
    Graph g = rich_graph();
    g.nodes[0].inputs[0] = g.nodes[1].outputs[0];  // cycle
    Status s = write_amp_bytes(g).status();
    EXPECT_EQ(s.code(), ErrorCode::kInvalidModel);
    EXPECT_NE(s.message().find("before it is defined"), std::string::npos) << s.message();
  }
  {
    Graph g = rich_graph();
    g.value(0).shape->dims[1] = Dim(-5);
    Status s = write_amp_bytes(g).status();
    EXPECT_EQ(s.code(), ErrorCode::kInvalidModel);
    EXPECT_NE(s.message().find("'x'"), std::string::npos) << s.message();
  }
  {
    Graph g = rich_graph();
    g.value(0).shape = Shape::from_static(std::vector<int64_t>(65, 1));
    Status s = write_amp_bytes(g).status();
    EXPECT_NE(s.message().find("rank 65"), std::string::npos) << s.message();
  }
  {
    Graph g = rich_graph();
    g.value(0).dtype = static_cast<DType>(4);  // not an amp::DType
    Status s = write_amp_bytes(g).status();
    EXPECT_NE(s.message().find("invalid dtype 4"), std::string::npos) << s.message();
  }
}

TEST(AmpFormat, IoErrorsAreNotFound) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  Status s = write_amp_file(rich_graph(), dir.file("no/such/dir/m.amp"));
  EXPECT_EQ(s.code(), ErrorCode::kNotFound);
  EXPECT_NE(s.message().find("no/such/dir"), std::string::npos) << s.message();

  for (bool use_mmap : {true, false}) {
    auto r = read_amp_file(dir.file("missing.amp"), ReadOptions{.use_mmap = use_mmap});
    EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
    EXPECT_NE(r.status().message().find("missing.amp"), std::string::npos);
    r = read_amp_file(dir.path().string(), ReadOptions{.use_mmap = use_mmap});
    EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
    EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos)
        << r.status().message();
  }
}

TEST(AmpFormat, ZeroByteFile) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.file("empty.amp");
  std::ofstream(path).close();
  for (bool use_mmap : {true, false}) {
    auto r = read_amp_file(path, ReadOptions{.use_mmap = use_mmap});
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
    EXPECT_NE(r.status().message().find("too small: 0 bytes"), std::string::npos)
        << r.status().message();
  }
}

// A weight past the 2 GiB mark, in a sparse file (no disk space, no 2 GiB write): the
// 64-bit offsets and the mmap path handle files larger than FlatBuffers' limit.
TEST(AmpFormat, WeightBeyond2GiBInSparseFile) {
  ScratchDir dir;
  ASSERT_TRUE(dir.ok());
  const uint64_t offset = (uint64_t{1} << 31) + 4096;
  amp_test::RawModel m = amp_test::small_raw_model();
  m.values[1].weight =
      amp_test::RawWeight{.offset = offset, .size = 12, .dims = {3}, .absolute = true};
  const std::vector<uint8_t> head = amp_test::craft_amp(m);
  const std::vector<uint8_t> w = amp_test::small_raw_weights();

  const std::string path = dir.file("big.amp");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const bool ok = ::ftruncate(fd, static_cast<off_t>(offset + w.size())) == 0 &&
                  ::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()) &&
                  ::pwrite(fd, w.data(), w.size(), static_cast<off_t>(offset)) ==
                      static_cast<ssize_t>(w.size());
  ::close(fd);
  if (!ok) GTEST_SKIP() << "the temp filesystem cannot hold a sparse 2 GiB file";

  auto r = read_amp_file(path);  // mmap: only the touched pages are read
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const TensorData& t = *r->value(1).constant;
  ASSERT_EQ(t.byte_size(), 12u);
  EXPECT_EQ(std::memcmp(t.bytes(), w.data(), 12), 0);
}

}  // namespace
}  // namespace amp::graph
