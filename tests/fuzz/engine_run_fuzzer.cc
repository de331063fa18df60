// libFuzzer target: an untrusted model file (.onnx or .amp, told apart by the FlatBuffer
// identifier) loaded through the public API and run on the CPU with inputs made from its
// declared inputs (run_pipeline.h). Built with -DAMP_FUZZ=ON; run by
// tools/fuzz/run_fuzzers.sh. Any amp::Error but kInternal is a clean outcome; kInternal or
// an exception of another type leaving the API aborts, so libFuzzer saves the input.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/fuzz/run_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string scratch = std::filesystem::temp_directory_path().string();
  const amp::fuzz::RunOutcome o = amp::fuzz::load_and_run_untrusted(data, size, scratch);
  if (amp::fuzz::is_bug(o)) {
    std::fprintf(stderr, "internal error: %s\n", o.message.c_str());
    std::abort();
  }
  return 0;
}
