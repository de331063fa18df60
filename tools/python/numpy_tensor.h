// Conversions between numpy arrays (as nanobind ndarrays) and amp::Tensor for the Python
// package (tools/python/), with no copies on either side:
//   - an input array is wrapped (Tensor::wrap_bytes) when it is C-contiguous and of the
//     input's dtype; anything else is refused with an amp::Error (invalid input) that says
//     what to do, never converted silently (a copy the user did not ask for, or a dtype the
//     model did not ask for, would hide a bug in their pipeline);
//   - an output Tensor becomes the buffer of the returned array: the array owns a copy of
//     the Tensor handle (which shares the bytes), freed with the array.
// bfloat16 crosses as uint16 bit patterns (numpy has no bfloat16; amprt/__init__.py views
// them as ml_dtypes.bfloat16 when that is installed).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>

#include "amp/engine.h"

namespace amp::python {

using InputArray = nanobind::ndarray<nanobind::ro, nanobind::device::cpu>;

// Wraps `array` for the model input `info` (no copy; `array` must outlive the Tensor).
// Throws amp::Error (invalid input) naming the input and the problem.
Tensor wrap_input(const TensorInfo& info, const InputArray& array);

// A numpy array sharing `t`'s bytes.
nanobind::object to_numpy(const Tensor& t);

}  // namespace amp::python
