#include "kernels/cpu/movement_resize.h"

#include "kernels/common/resize_taps.h"

namespace amp::kernels::cpu::resize {

void build_axis(const ResizeAttrs& at, const AxisSpec& s, int taps, int cap, int64_t* idx,
                double* w, uint8_t* extrap) {
  for (int64_t o = 0; o < s.out; ++o) {
    bool outside = false;
    resize_axis_taps(at, s, taps, o, idx + o * cap, w + o * cap, &outside);
    extrap[o] = outside ? 1 : 0;
  }
}

bool is_identity(const AxisSpec& s, int taps, int cap, const int64_t* idx, const double* w,
                 const uint8_t* extrap) {
  if (s.in != s.out) return false;
  for (int64_t o = 0; o < s.out; ++o) {
    if (extrap[o]) return false;
    for (int t = 0; t < taps; ++t) {
      const double wt = w[o * cap + t];
      if (wt != 0.0 && (wt != 1.0 || idx[o * cap + t] != o)) return false;
    }
  }
  return true;
}

}  // namespace amp::kernels::cpu::resize
