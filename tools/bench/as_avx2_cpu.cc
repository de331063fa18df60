// libamp-as-avx2-cpu.so: makes a process on an AVX-512 x86-64 CPU see an AVX2/FMA/F16C-only
// CPU, so that ONNX Runtime and amprun can be compared as they would run on one (issue 14's
// machine kind is an AMD EPYC without AVX-512).
//
//   LD_AUDIT=build/tools/bench/libamp-as-avx2-cpu.so build/tools/amprun/amprun ...
//   python3 tools/bench/bench_vs_ort.py --as-avx2 build/tools/bench/libamp-as-avx2-cpu.so ...
//
// Why: ONNX Runtime's MLAS picks its kernels from CPUID and has no switch to cap them; oneDNN
// has ONEDNN_MAX_CPU_ISA, ORT has nothing. Capping only our side measures amprun on AVX2
// against ORT on AVX-512.
//
// How: Linux's CPUID faulting (arch_prctl(ARCH_SET_CPUID, 0), a CPU feature, `cpuid_fault` in
// /proc/cpuinfo) turns every CPUID instruction of the thread into a SIGSEGV. The handler here
// runs the real CPUID with faulting briefly off, clears the AVX-512, AMX, AVX-VNNI and AVX10
// bits of leaf 7, and resumes after the instruction. The setting is per thread and inherited
// by threads created later, so a library's thread pool sees the same CPU.
//
// Why LD_AUDIT: an audit library is loaded and initialized before the program's own objects
// are relocated, so even the ifunc resolvers of GCC's target_clones (which run during
// relocation) and libgcc's CPU model see the masked CPU. Under LD_PRELOAD only what is
// decided after start-up is masked (enough for a library dlopen'ed later, as ORT under
// Python; not for amprun's own loops).
//
// Limits, on purpose:
//  - glibc's own string functions were chosen by the dynamic loader before any audit library
//    loads: they keep the real CPU's variants (memcpy and the like, not our kernels).
//  - XGETBV is not trapped: XCR0 still says the OS saves ZMM state. Every dispatcher checks
//    the CPUID feature bit as well, so the masked bit decides.
//  - Where the CPU cannot fault CPUID the process stops with a message: a silent fall back
//    to AVX-512 would make every number from it a wrong answer.
//  - Not built with sanitizers: an audit library loads before their runtime.
//  - A program that installs its own SIGSEGV handler later would receive CPUID's faults and
//    crash; amprun, the test binaries and ONNX Runtime under Python install none.
#include <asm/prctl.h>
#include <cpuid.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Leaf 7 sub-leaf 0.
constexpr uint32_t kLeaf7EbxAvx512 = (1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) |
                                     (1u << 27) | (1u << 28) | (1u << 30) | (1u << 31);
constexpr uint32_t kLeaf7EcxAvx512 =
    (1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14);  // VBMI, VBMI2, VNNI, ...
constexpr uint32_t kLeaf7EdxAvx512Amx = (1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) |
                                        (1u << 23) | (1u << 24) | (1u << 25);  // ..., FP16, AMX
// Leaf 7 sub-leaf 1: AVX-VNNI, AVX512_BF16, AMX-FP16, AVX-IFMA; EDX: AVX-VNNI-INT8,
// AVX-NE-CONVERT, AVX10 (none of which an AVX2-only EPYC has).
constexpr uint32_t kLeaf7Sub1EaxMask = (1u << 4) | (1u << 5) | (1u << 21) | (1u << 23);
constexpr uint32_t kLeaf7Sub1EdxMask = (1u << 4) | (1u << 5) | (1u << 19);

long set_cpuid_faulting(bool on) {
  return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1);
}

void write_stderr(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
  (void)ignored;
}

void on_sigsegv(int signal_number, siginfo_t* info, void* raw_context) {
  auto* context = static_cast<ucontext_t*>(raw_context);
  greg_t* regs = context->uc_mcontext.gregs;
  const auto* pc = reinterpret_cast<const unsigned char*>(regs[REG_RIP]);
  if (pc == nullptr || pc[0] != 0x0f || pc[1] != 0xa2) {
    // A real fault: let the default action report it (core dump, exit status).
    signal(signal_number, SIG_DFL);
    (void)info;
    return;  // the faulting instruction runs again and now ends the process
  }
  const uint32_t leaf = static_cast<uint32_t>(regs[REG_RAX]);
  const uint32_t subleaf = static_cast<uint32_t>(regs[REG_RCX]);
  unsigned a = 0, b = 0, c = 0, d = 0;
  set_cpuid_faulting(false);
  __cpuid_count(leaf, subleaf, a, b, c, d);
  set_cpuid_faulting(true);
  if (leaf == 7 && subleaf == 0) {
    b &= ~kLeaf7EbxAvx512;
    c &= ~kLeaf7EcxAvx512;
    d &= ~kLeaf7EdxAvx512Amx;
  } else if (leaf == 7 && subleaf == 1) {
    a &= ~kLeaf7Sub1EaxMask;
    d &= ~kLeaf7Sub1EdxMask;
  } else if (leaf == 0x24) {
    a = b = c = d = 0;  // AVX10's own leaf
  }
  regs[REG_RAX] = a;
  regs[REG_RBX] = b;
  regs[REG_RCX] = c;
  regs[REG_RDX] = d;
  regs[REG_RIP] += 2;  // CPUID is 0F A2
}

__attribute__((constructor)) void mask_avx512_from_cpuid() {
  struct sigaction action {};
  action.sa_sigaction = on_sigsegv;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, nullptr) != 0 || set_cpuid_faulting(true) != 0) {
    write_stderr(
        "libamp-as-avx2-cpu: this CPU or kernel cannot fault CPUID (no cpuid_fault in "
        "/proc/cpuinfo); refusing to run with the real CPU's AVX-512 visible\n");
    _exit(3);
  }
}

}  // namespace

// The rtld-audit entry point: loaded with LD_AUDIT, this library is initialized (and the
// constructor above runs) before the program's own objects are relocated, so even the
// ifunc resolvers of GCC's target_clones, which run during relocation, see the masked CPU.
extern "C" unsigned int la_version(unsigned int version) {
  return version;
}
