// .amp files written before a schema change must still load and mean the same thing
// (ARCHITECTURE.md: the format evolves by adding fields only). tests/data/compat holds files
// written by earlier versions of amp-make-demo-models; each is run next to the file today's
// generator writes from the same seeded weights, and the outputs must be identical.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "amp/engine.h"
#include "tests/tools/demo_models_fixture.h"

namespace {

namespace fs = std::filesystem;

using AmpFormatCompat = amp::test::DemoModelsTest;

TEST_F(AmpFormatCompat, FilesWrittenBeforeStillLoadAndAgree) {
  struct Case {
    const char* old_file;
    const char* today;
  };
  const Case cases[] = {{"amp1_demo_transformer_2026-12-04.amp", "demo_transformer.amp"}};
  for (const Case& c : cases) {
    amp::Engine old_engine =
        amp::Engine::load((fs::path(AMP_TEST_DATA_DIR) / "compat" / c.old_file).string(), {});
    amp::Engine new_engine = amp::Engine::load((dir_ / c.today).string(), {});
    std::vector<int64_t> tokens(32);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int64_t>((i * 7) % 64);
    auto a = old_engine.run({{"tokens", amp::Tensor::from(tokens, {2, 16})}});
    auto b = new_engine.run({{"tokens", amp::Tensor::from(tokens, {2, 16})}});
    ASSERT_EQ(a.size(), b.size()) << c.old_file;
    for (size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].shape(), b[k].shape()) << c.old_file;
      EXPECT_EQ(a[k].to_vector<float>(), b[k].to_vector<float>()) << c.old_file;
    }
  }
}

}  // namespace
