#include "kernels/common/reduce_plan.h"

#include <string>

namespace amp::kernels {

ReducePlan make_reduce_plan(const int64_t* dims, const bool* reduced, int rank) {
  ReducePlan p;
  // Drop size-1 dims (they move no index) and merge neighbours of the same kind.
  int64_t cd[kReduceMaxRank];
  bool cr[kReduceMaxRank];
  int m = 0;
  for (int i = 0; i < rank; ++i) {
    if (reduced[i]) p.reduce_size *= dims[i];
    if (dims[i] == 1) continue;
    if (m > 0 && cr[m - 1] == reduced[i]) {
      cd[m - 1] *= dims[i];
    } else {
      cd[m] = dims[i];
      cr[m] = reduced[i];
      ++m;
    }
  }
  int64_t cs[kReduceMaxRank];
  int64_t s = 1;
  for (int i = m - 1; i >= 0; --i) {
    cs[i] = s;
    s *= cd[i];
  }
  // Nothing left (all dims 1): one output copying one input.
  p.inner_reduced = m == 0 || cr[m - 1];
  p.inner = m == 0 ? 1 : cd[m - 1];
  for (int i = 0; i + 1 < m; ++i) {
    if (cr[i]) {
      p.red_dims[p.n_red] = cd[i];
      p.red_strides[p.n_red++] = cs[i];
      p.red_count *= cd[i];
    } else {
      p.kept_dims[p.n_kept] = cd[i];
      p.kept_strides[p.n_kept++] = cs[i];
      p.kept_count *= cd[i];
    }
  }
  return p;
}

Result<int64_t> normalize_axis_attr(int64_t axis, int64_t rank, const char* what) {
  if (axis < -rank || axis >= rank)
    return invalid_model(std::string(what) + " " + std::to_string(axis) +
                         " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

}  // namespace amp::kernels
