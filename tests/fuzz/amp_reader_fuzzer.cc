// libFuzzer target: an untrusted .amp file through everything Engine::load does in
// amp_graph (load_pipeline.h). Built with -DAMP_FUZZ=ON; run by tools/fuzz/run_fuzzers.sh.
// A clean error Status is the expected outcome for most inputs; kInternal (a broken
// promise between stages) aborts so libFuzzer saves the input.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/load_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const amp::Status s = amp::fuzz::load_amp_untrusted(data, size);
  if (s.code() == amp::ErrorCode::kInternal) {
    std::fprintf(stderr, "internal error: %s\n", s.to_string().c_str());
    std::abort();
  }
  return 0;
}
