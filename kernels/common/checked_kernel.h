// A kernel whose whole prepare() is one shared check (norm_io.h, reduction_io.h) returning
// what run() needs: the check and the member exist once, each backend derives and writes
// only run(), reading this->shape_.
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
  Status prepare(const KernelConfig& cfg) override {
    AMP_ASSIGN_OR_RETURN(shape_, Check(cfg, reduction::dtype_of<T>()));
    return Status::ok();
  }

 protected:
  Shape shape_;
};

}  // namespace amp::kernels
