// Shared plumbing of the CUDA library kernels (cudnn_common.h).
#include "cuda/cudnn_common.h"

#include <algorithm>
#include <cfloat>
#include <limits>
#include <map>
#include <mutex>

#include "cuda/cuda_check.h"

namespace amp::kernels::cuda_library {

Result<ew::Activation> read_fused_activation(const graph::Node& node) {
  AMP_ASSIGN_OR_RETURN(const std::string name, node.attrs.get_string("fused_activation", ""));
  ew::Activation a;
  float def_alpha = 0.0f, def_beta = 0.0f;
  if (name.empty()) {
    return a;
  } else if (name == "Relu") {
    a.kind = ew::ActivationKind::kRelu;
  } else if (name == "LeakyRelu") {
    a.kind = ew::ActivationKind::kLeakyRelu;
    def_alpha = 0.01f;
  } else if (name == "Clip") {
    a.kind = ew::ActivationKind::kClip;
    def_alpha = -FLT_MAX;
    def_beta = FLT_MAX;
  } else if (name == "Sigmoid") {
    a.kind = ew::ActivationKind::kSigmoid;
  } else if (name == "Tanh") {
    a.kind = ew::ActivationKind::kTanh;
  } else if (name == "HardSigmoid") {
    a.kind = ew::ActivationKind::kHardSigmoid;
    def_alpha = 0.2f;
    def_beta = 0.5f;
  } else if (name == "HardSwish") {
    a.kind = ew::ActivationKind::kHardSwish;
  } else {
    return unsupported("fused_activation '" + name + "' is not supported by the CUDA kernels");
  }
  AMP_ASSIGN_OR_RETURN(a.alpha, node.attrs.get_float("fused_alpha", def_alpha));
  AMP_ASSIGN_OR_RETURN(a.beta, node.attrs.get_float("fused_beta", def_beta));
  return a;
}

std::string dims_string(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

Result<Window> read_window(const graph::Node& node, const std::string& op, size_t spatial,
                           const std::vector<int64_t>& weight_kernel) {
  Window w;
  const std::vector<int64_t> ones(spatial, 1);
  AMP_ASSIGN_OR_RETURN(w.kernel, node.attrs.get_ints("kernel_shape", weight_kernel));
  if (w.kernel.size() != spatial)
    return invalid_model(op + ": kernel_shape " + dims_string(w.kernel) + " should have " +
                         std::to_string(spatial) + " values");
  if (!weight_kernel.empty() && w.kernel != weight_kernel)
    return invalid_model(op + ": kernel_shape " + dims_string(w.kernel) +
                         " disagrees with the weights' spatial dims " + dims_string(weight_kernel));
  AMP_ASSIGN_OR_RETURN(w.strides, node.attrs.get_ints("strides", ones));
  AMP_ASSIGN_OR_RETURN(w.dilations, node.attrs.get_ints("dilations", ones));
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                       node.attrs.get_ints("pads", std::vector<int64_t>(2 * spatial, 0)));
  if (w.strides.size() != spatial || w.dilations.size() != spatial || pads.size() != 2 * spatial)
    return invalid_model(op + ": strides, dilations and pads should have " +
                         std::to_string(spatial) + ", " + std::to_string(spatial) + " and " +
                         std::to_string(2 * spatial) + " values");
  for (size_t i = 0; i < spatial; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1)
      return invalid_model(op + ": kernel_shape, strides and dilations must be positive");
    if (pads[i] < 0 || pads[spatial + i] < 0)
      return invalid_model(op + ": negative pads " + dims_string(pads));
  }
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial));
  w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end());
  AMP_ASSIGN_OR_RETURN(const std::string auto_pad, node.attrs.get_string("auto_pad", "NOTSET"));
  if (auto_pad == "NOTSET" || auto_pad.empty())
    w.auto_pad = AutoPad::kNotSet;
  else if (auto_pad == "SAME_UPPER")
    w.auto_pad = AutoPad::kSameUpper;
  else if (auto_pad == "SAME_LOWER")
    w.auto_pad = AutoPad::kSameLower;
  else if (auto_pad == "VALID")
    w.auto_pad = AutoPad::kValid;
  else
    return invalid_model(op + ": unknown auto_pad '" + auto_pad + "'");
  return w;
}

Result<std::vector<int64_t>> resolve_forward(Window& w, const std::vector<int64_t>& in,
                                             bool ceil_mode, const std::string& op) {
  std::vector<int64_t> out(w.rank());
  for (size_t i = 0; i < w.rank(); ++i) {
    const int64_t e = w.effective_kernel(i), s = w.strides[i];
    switch (w.auto_pad) {
      case AutoPad::kNotSet: {
        const int64_t span = in[i] + w.pad_begin[i] + w.pad_end[i] - e;
        if (span < 0) break;
        out[i] = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
        // The last window must start inside the input or its left padding.
        if (ceil_mode && (out[i] - 1) * s >= in[i] + w.pad_begin[i]) --out[i];
        break;
      }
      case AutoPad::kValid:
        w.pad_begin[i] = w.pad_end[i] = 0;
        out[i] = in[i] >= e ? (in[i] - e) / s + 1 : 0;
        break;
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out[i] = (in[i] + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out[i] - 1) * s + e - in[i]);
        const int64_t small = total / 2, large = total - small;
        w.pad_begin[i] = w.auto_pad == AutoPad::kSameUpper ? small : large;
        w.pad_end[i] = w.auto_pad == AutoPad::kSameUpper ? large : small;
        break;
      }
    }
    if (out[i] < 1)
      return invalid_model(op + ": the window (effective kernel " + std::to_string(e) +
                           ") does not fit spatial axis " + std::to_string(i) + " of size " +
                           std::to_string(in[i]) + " with its pads");
  }
  return out;
}

cudnnDataType_t cudnn_type(DType t) {
  switch (t) {
    case DType::kF16:
      return CUDNN_DATA_HALF;
    case DType::kBF16:
      return CUDNN_DATA_BFLOAT16;
    case DType::kI8:
      return CUDNN_DATA_INT8;
    case DType::kU8:
      return CUDNN_DATA_UINT8;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::kF16:
      return CUDA_R_16F;
    case DType::kBF16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

bool is_library_float(DType t) {
  return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16;
}

Status create(TensorDescriptor& d) {
  return d.create<cudnnCreateTensorDescriptor>("cudnnCreateTensorDescriptor");
}
Status create(FilterDescriptor& d) {
  return d.create<cudnnCreateFilterDescriptor>("cudnnCreateFilterDescriptor");
}
Status create(ConvDescriptor& d) {
  return d.create<cudnnCreateConvolutionDescriptor>("cudnnCreateConvolutionDescriptor");
}
Status create(PoolDescriptor& d) {
  return d.create<cudnnCreatePoolingDescriptor>("cudnnCreatePoolingDescriptor");
}
Status create(ActivationDescriptor& d) {
  return d.create<cudnnCreateActivationDescriptor>("cudnnCreateActivationDescriptor");
}

Status fits_int(const std::vector<int64_t>& v, const std::string& what) {
  for (int64_t x : v)
    if (x > std::numeric_limits<int>::max() || x < std::numeric_limits<int>::min())
      return unsupported(what + " " + dims_string(v) + " exceeds cuDNN's 32-bit parameters");
  return Status::ok();
}

std::vector<int> to_int(const std::vector<int64_t>& v) {
  return std::vector<int>(v.begin(), v.end());
}

Status set_tensor(TensorDescriptor& d, DType t, const std::vector<int64_t>& dims) {
  AMP_RETURN_IF_ERROR(create(d));
  AMP_RETURN_IF_ERROR(fits_int(dims, "tensor dims"));
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  AMP_RETURN_IF_ERROR(fits_int(strides, "tensor strides"));
  const std::vector<int> di = to_int(dims), si = to_int(strides);
  AMP_CUDNN_RETURN_IF_ERROR(cudnnSetTensorNdDescriptor(
      d.get(), cudnn_type(t), static_cast<int>(di.size()), di.data(), si.data()));
  return Status::ok();
}

Status set_filter(FilterDescriptor& d, DType t, const std::vector<int64_t>& dims) {
  AMP_RETURN_IF_ERROR(create(d));
  AMP_RETURN_IF_ERROR(fits_int(dims, "filter dims"));
  const std::vector<int> di = to_int(dims);
  AMP_CUDNN_RETURN_IF_ERROR(cudnnSetFilterNdDescriptor(d.get(), cudnn_type(t), CUDNN_TENSOR_NCHW,
                                                       static_cast<int>(di.size()), di.data()));
  return Status::ok();
}

Result<const cuda::DeviceHandles*> device_handles(const KernelConfig& cfg) {
  const auto* h = static_cast<const cuda::DeviceHandles*>(cfg.backend_handle);
  if (h == nullptr)
    return internal_error(
        "CUDA kernel prepared without DeviceHandles (KernelConfig::backend_handle)");
  return h;
}

Result<const cuda::ContextHandles*> context_handles(const KernelArgs& a) {
  const auto* h = static_cast<const cuda::ContextHandles*>(a.context_handles);
  if (h == nullptr)
    return internal_error("CUDA kernel run without ContextHandles (KernelArgs::context_handles)");
  return h;
}

Status with_heuristics_handle(int device, const std::function<Status(cudnnHandle_t)>& fn) {
  static std::mutex mu;
  // Never destroyed: destroying cuDNN handles from a static destructor races the CUDA
  // runtime's own teardown at exit.
  static std::map<int, cudnnHandle_t>* handles = new std::map<int, cudnnHandle_t>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = handles->find(device);
  if (it == handles->end()) {
    int prev = 0;
    AMP_CUDA_RETURN_IF_ERROR(cudaGetDevice(&prev));
    AMP_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
    cudnnHandle_t h = nullptr;
    const cudnnStatus_t st = cudnnCreate(&h);
    const cudaError_t restore = cudaSetDevice(prev);
    if (st != CUDNN_STATUS_SUCCESS)
      return cuda::cudnn_status(st, "cudnnCreate (heuristics handle)", __FILE__, __LINE__);
    if (restore != cudaSuccess) {
      cudnnDestroy(h);
      return cuda::cuda_status(restore, "cudaSetDevice(prev)", __FILE__, __LINE__);
    }
    it = handles->emplace(device, h).first;
  }
  return fn(it->second);
}

}  // namespace amp::kernels::cuda_library
