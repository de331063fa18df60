// AMP_REQUIRE_GPU(): skips the current test, with the driver's reason, when no usable GPU
// is visible (on CI: "cudaGetDeviceCount returned cudaErrorInsufficientDriver (error 35)").
// Only for test binaries built with the CUDA backend.
#pragma once

#include <gtest/gtest.h>

#include "runtime/backend/cuda/device_query.h"

#define AMP_REQUIRE_GPU()                                           \
  do {                                                              \
    if (!::amp::runtime::cuda::query_devices().has_gpu())           \
      GTEST_SKIP() << ::amp::runtime::cuda::query_devices().reason; \
  } while (0)
