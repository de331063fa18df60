// amp-list-kernels: prints the supported-op table of the README (markdown), straight from
// the kernel registries, so the table cannot drift from the code.
// Usage: amp-list-kernels
#include <cstdio>
#include <string>

#include "graph/ops/op_types.h"
#include "kernels/cpu/cpu_kernels.h"
#if defined(AMP_HAVE_CUDA)
#include "kernels/cuda/cuda_kernels.h"
#endif

namespace {

#if defined(AMP_HAVE_CUDA)
constexpr bool kCudaCompiled = true;
#else
constexpr bool kCudaCompiled = false;
#endif

std::string dtypes(const amp::kernels::KernelRegistry& reg, amp::graph::OpType op,
                   amp::kernels::Backend b) {
  std::string s;
  for (amp::DType t : reg.dtypes_for(op, b)) {
    if (!s.empty()) s += ' ';
    s += amp::dtype_name(t);
  }
  return s.empty() ? "-" : s;
}

}  // namespace

int main() {
  amp::kernels::KernelRegistry reg;
  amp::kernels::register_cpu_kernels(reg);
#if defined(AMP_HAVE_CUDA)
  amp::kernels::register_cuda_kernels(reg);
#endif
  std::printf("| op | AMP color | CPU dtypes | CUDA dtypes |\n");
  std::printf("|---|---|---|---|\n");
  for (int i = 0; i < amp::graph::kOpCount; ++i) {
    const auto op = static_cast<amp::graph::OpType>(i);
    // If/Loop/Scan have no kernel: the runtime runs their bodies on the same backend (on
    // CUDA only where it is compiled in, like every other row).
    if (amp::graph::has_trait(op, amp::graph::kControlFlow)) {
      std::printf(
          "| %s | %s | any (runs its bodies) | %s |\n",
          std::string(amp::graph::op_name(op)).c_str(),
          std::string(amp::graph::amp_color_name(amp::graph::default_amp_color(op))).c_str(),
          kCudaCompiled ? "any (runs its bodies)" : "-");
      continue;
    }
    std::printf("| %s | %s | %s | %s |\n", std::string(amp::graph::op_name(op)).c_str(),
                std::string(amp::graph::amp_color_name(amp::graph::default_amp_color(op))).c_str(),
                dtypes(reg, op, amp::kernels::Backend::kCpu).c_str(),
                dtypes(reg, op, amp::kernels::Backend::kCuda).c_str());
  }
  return 0;
}
