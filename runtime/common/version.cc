#include "amp/version.h"

namespace amp {

const char* version() {
  return AMPRT_VERSION_STRING;  // set by CMake from project(VERSION)
}

}  // namespace amp
