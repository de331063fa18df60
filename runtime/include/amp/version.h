// The version of the AMPRT library in use (the CMake project's version), e.g. "0.2.0".
// Also the installed package's version: find_package(AMPRT 0.2) checks it.
#pragma once

namespace amp {

const char* version();

}  // namespace amp
