// A kernel whose prepare() is one shared check (norm_io.h, reduction_io.h) returning what
// run() needs: the check and the member exist once, each backend derives and writes run(),
// reading this->shape_ (and prepare_params() when it has constant parameters to read).
//
//   template <typename T>
//   class ArgMaxKernel : public CheckedKernel<T, ArgReduceShape, check_arg_reduce_io> {
//     Status run(const KernelArgs& a) const override { ... this->shape_.outer ... }
//   };
#pragma once

#include "amp/dtype.h"
#include "kernels/common/reduction_types.h"
#include "kernels/kernel_registry.h"
#include "runtime/common/status.h"

namespace amp::kernels {

template <typename T, typename Shape, Result<Shape> (*Check)(const KernelConfig&, DType)>
class CheckedKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) final {
    AMP_ASSIGN_OR_RETURN(shape_, Check(cfg, reduction::dtype_of<T>()));
    return prepare_params(cfg);
  }

 protected:
  // What a kernel prepares beyond the shared check, after it (constant parameters read and
  // folded once); shape_ is set.
  virtual Status prepare_params(const KernelConfig&) { return Status::ok(); }

  Shape shape_;
};

// The same for a kernel that is not a template over the storage type: prepare() is
// Check(cfg), what it returns is setup_.
//
//   class GatherKernel : public SetupKernel<GatherLayout, check_gather_io> { run() ... };
template <typename Setup, Result<Setup> (*Check)(const KernelConfig&)>
class SetupKernel : public Kernel {
 public:
  Status prepare(const KernelConfig& cfg) final {
    AMP_ASSIGN_OR_RETURN(setup_, Check(cfg));
    return prepare_params(cfg);
  }

 protected:
  // What a kernel prepares beyond the shared check, after it; setup_ is set.
  virtual Status prepare_params(const KernelConfig&) { return Status::ok(); }

  Setup setup_;
};

}  // namespace amp::kernels
