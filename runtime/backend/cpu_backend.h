// The CPU backend: constants are read where they are (the mapped file or the planner's
// cast copies), activations live in one 64-byte aligned host arena per context, and every
// step runs on the calling thread (kernels use OpenMP inside).
#pragma once

#include <memory>

#include "runtime/backend/backend.h"

namespace amp::runtime {

// The CPU kernel registry, built once per process.
const kernels::KernelRegistry& cpu_kernel_registry();

std::unique_ptr<Backend> create_cpu_backend();

}  // namespace amp::runtime
