// libFuzzer target: amp-serve's REST request parser (tools/serve/v2_json_codec.h), the
// server's exposure to hostile bytes (tests/fuzz/v2_request_pipeline.h says what is done
// with each input). A request must parse or be refused with a ServeError: any other
// exception, a crash, a sanitizer report, a hang or a large allocation is a finding.
//
// Built and run by tools/fuzz/run_serve_fuzzer.sh (AMP_FUZZ=ON); seeds in tests/data/fuzz/v2.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/v2_request_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  amp::fuzz::run_v2_request(data, size);
  return 0;
}
