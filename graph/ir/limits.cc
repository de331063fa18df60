#include "graph/ir/limits.h"

#include <algorithm>
#include <string>

namespace amp::graph {

Status check_value_size(const Value& v) {
  if (!v.shape) return Status::ok();
  const Shape& s = *v.shape;
  if (s.rank() > static_cast<size_t>(kMaxRank))
    return invalid_model("value '" + v.name + "' has rank " + std::to_string(s.rank()) +
                         ", more than the " + std::to_string(kMaxRank) + " allowed");
  // A zero dim empties the tensor whatever the others are.
  for (const Dim& d : s.dims)
    if (d.value == 0) return Status::ok();
  uint64_t numel = 1;
  for (const Dim& d : s.dims) {
    if (!d.is_static()) continue;
    const uint64_t dv = static_cast<uint64_t>(d.value);
    if (dv != 0 && numel > static_cast<uint64_t>(INT64_MAX) / dv)
      return invalid_model("value '" + v.name + "' has shape " + s.to_string() +
                           ", whose element count overflows int64");
    numel *= dv;
  }
  const uint64_t esize = std::max<uint64_t>(dtype_size(v.dtype), 1);
  if (numel > kMaxTensorBytes / esize)
    return out_of_memory("value '" + v.name + "' (" + std::string(dtype_name(v.dtype)) + " " +
                         s.to_string() + ") would take " + std::to_string(numel) + " x " +
                         std::to_string(esize) + " bytes, more than the " +
                         std::to_string(kMaxTensorBytes >> 30) + " GiB a tensor may hold");
  return Status::ok();
}

}  // namespace amp::graph
