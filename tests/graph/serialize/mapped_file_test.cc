// MappedFile::contains and drop_pages: dropped pages read back unchanged (the mapping is
// private and read-only), and only whole pages inside the range are dropped.
#include "graph/serialize/mapped_file.h"
#include "tests/test_util/scratch_dir.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace amp::graph {
namespace {

namespace fs = std::filesystem;

TEST(MappedFile, DroppedPagesReadBackUnchanged) {
  const size_t page = MappedFile::page_size();
  const test::ScratchDir dir("amp_mapped_file");
  const fs::path path = dir.path() / "pages.bin";
  std::vector<uint8_t> bytes(5 * page + 100);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 131 + i / 7);
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  }
  Result<std::shared_ptr<const MappedFile>> r = MappedFile::open(path.string());
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const MappedFile& f = **r;
  ASSERT_EQ(f.size(), bytes.size());
  ASSERT_EQ(std::memcmp(f.data(), bytes.data(), bytes.size()), 0);

  EXPECT_TRUE(f.contains(f.data(), f.size()));
  EXPECT_TRUE(f.contains(f.data() + 10, f.size() - 10));
  EXPECT_FALSE(f.contains(f.data() + 1, f.size()));
  EXPECT_FALSE(f.contains(f.data() + f.size(), 1));
  EXPECT_FALSE(f.contains(bytes.data(), 1));

  // Inward to whole pages: [100, 100 + 3 pages) holds pages 1 and 2 whole.
  EXPECT_EQ(f.drop_pages(100, 3 * page), 2 * page);
  EXPECT_EQ(f.drop_pages(10, page - 20), 0u);  // inside one page: nothing
  // The file's last, partial page counts as whole when the range reaches the end.
  EXPECT_EQ(f.drop_pages(4 * page + 50, page + 50), 100u);
  EXPECT_EQ(f.drop_pages(0, 100 * page), 5 * page + 100);  // clamped to the file
  EXPECT_EQ(f.drop_pages(f.size(), 10), 0u);
  EXPECT_EQ(std::memcmp(f.data(), bytes.data(), bytes.size()), 0) << "read back from the file";
}

}  // namespace
}  // namespace amp::graph
