// What the REST request fuzzer does with one input (tests/fuzz/v2_request_fuzzer.cc), shared
// with the GoogleTest that replays the checked-in seeds and findings (tests/data/fuzz/v2).
#pragma once

#include <cstddef>
#include <cstdint>

namespace amp::fuzz {

// The first byte picks the framing: bit 0 set, the body is a JSON header, a '\n' (dropped)
// and binary tensor data; 0xff, a header length past the body's end; else JSON only. The
// rest is the body, parsed against a fixed model of five inputs (f32, i64, f16 with a
// symbolic dim, bool, u8). What parses is encoded back as a response and that JSON parsed
// again. Returns true when the request parsed; a refusal (ServeError) returns false; any
// other exception propagates, and invalid JSON from the encoder traps.
bool run_v2_request(const uint8_t* data, size_t size);

}  // namespace amp::fuzz
