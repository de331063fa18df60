// Precision timing: the device-aware cost of an AMP plan, measured. Which low-precision
// nodes run slower, with the casts they need, than the same node in fp32 on this device;
// those stay fp32 ("fp32: faster on this device"), as TensorRT's builder keeps a layer in
// fp32 when its fp32 tactic times faster. Options::precision_timing.
//
// Why measure: whether fp16 / bf16 pays depends on the node and the device, not on the op
// alone. A CPU with AVX512-BF16 but no AMX runs oneDNN 2.6's bf16 convolutions 2-3x slower
// than f32 (measured on ultraface-slim, Intel Xeon: a 1x1 128-channel conv 0.12 against
// 0.062 ms; the depthwise 3x3 0.027 against 0.009 ms); on a GPU a tiny node is launch-bound
// and its casts cost more launches than the low type saves (H200, the 0.05-0.09 ms demo
// models: fp16 10-20% slower than fp32). A rule per op and ISA cannot see either.
//
// Algorithm (one measurement, one decision sweep, one check):
//  1. Plan the AMP graph as the engine would (the policy with every hint so far) and keep
//     the fp32 graph. Build an execution plan of each on a fresh backend of the engine's
//     kind, for the bound input dims, fed with the first calibration sample or zeros. A dim
//     left symbolic is not timed at all: at made-up dims the measurement misleads (a
//     BERT-style encoder's bf16 plan won by 2% at dims of 1 and lost by 1.5x at 2 x 16
//     tokens); the engine then takes the backend's untimed guess, and Options::input_shapes
//     (or calibration data) binds representative dims to time.
//  2. Time them interleaved (low, fp32, low, ...; after two warm-up runs each) so drift
//     and a busy neighbour hit both alike: R rounds, R from 3 to 15 so that the rounds take
//     about kBudgetMs; each node's time is its median over the rounds (RunProfiler: host
//     clock around each CPU kernel, CUDA events around each GPU step). On the CPU with one
//     thread, whatever Options::threads says: a multi-threaded run stalls at its barriers
//     while a neighbour holds a core (runtime/thread_governor.h), at random nodes. Timed so
//     with a busy neighbour, a DB text detector's plans measured 90-110 ms against 19-35
//     real, and a bf16 plan that runs 1.8x faster than fp32 (AMX) was refused in two of
//     three loads. One thread compares low and fp32 per node as well; what it does not see
//     is a node that scales with threads differently in the two types.
//  3. Cost of node n in low precision: its own time plus the casts that exist for it (an
//     f32 -> low cast is charged to the low nodes reading it, shared evenly; a low -> f32
//     cast to the low node making it). Cost in fp32: its time in the fp32 plan plus the
//     casts pinning it would add (one per low neighbour across each of its float edges, at
//     the plan's measured cast cost per element). In graph order, n is pinned when its low
//     cost exceeds its fp32 cost by more than kMargin (measurement noise); a pinned node
//     counts as fp32 for the nodes after it.
//  4. Check: plan again with the pins and time it against fp32 (interleaved, as above, but
//     whole runs by the host clock, unprofiled: a CUDA executor then replays its captured
//     graph as production runs do, where a profiled run launches each node eagerly between
//     two events and overcharges the plan with more nodes, the casts). If
//     the whole plan is not faster than fp32 by kPlanMargin (5%: the low types cost accuracy,
//     a win within the noise is none), the engine runs fp32 and says so: fp16 / bf16 are a
//     permission, never a slowdown.
// Cost: 2 warm-ups + R runs of each plan, twice: ~4 x kBudgetMs, plus building four
// plans. Nodes the user pinned low (policy file, callback) are never pinned. Nodes inside
// control-flow bodies are timed but not pinned (they are planned with their body).
// The decision (step 3) is a pure function of the times, tested with made-up times.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "amp/options.h"
#include "amp/tensor.h"
#include "graph/ir/graph.h"
#include "graph/passes/amp/amp_planner.h"
#include "graph/passes/amp/amp_policy.h"
#include "runtime/common/status.h"

namespace amp::runtime {

// Median milliseconds per node name, of one plan.
using NodeTimes = std::map<std::string, double>;

// Step 3: the low nodes of `low` (the planned graph) to pin to fp32, with the reason the
// report shows. `fp32` holds the times of the same node names in the fp32 plan; `keep_low`
// the nodes never pinned (a user's pins).
std::map<std::string, std::string> nodes_faster_in_fp32(const graph::Graph& low,
                                                        const NodeTimes& low_times,
                                                        const NodeTimes& fp32_times,
                                                        const std::vector<std::string>& keep_low);

struct PrecisionTiming {
  std::string skipped;                        // why nothing was timed; "" when timed
  std::map<std::string, std::string> pinned;  // node -> reason (step 3)
  bool all_fp32 = false;                      // step 4: the plan is not faster enough
  double low_ms = 0, fp32_ms = 0;             // whole runs, first measurement
  double final_ms = 0;                        // the plan with the pins (step 4)
  double check_fp32_ms = 0;                   // fp32 again, beside final_ms
  int rounds = 0;
  int threads = 1;  // per timed run (step 2)
  double ms = 0;    // what timing took at load
};

struct TimingSetup {
  BackendKind backend = BackendKind::kCpu;  // resolved: the engine's backend
  Options device;                           // cuda_device, allow_tf32, cuda_graphs
  int threads = 1;
  // Per graph input, the tensor to time with (bound dims); empty: zeros of the graph's
  // static input dims.
  std::vector<const Tensor*> inputs;
};

// Steps 1-4 for the fp32 graph `g` under `policy` (has_kernel: the backend's registry).
Result<PrecisionTiming> time_precision(const graph::Graph& g, const graph::AmpPolicy& policy,
                                       const graph::KernelAvailability& has_kernel,
                                       const std::vector<std::string>& keep_low,
                                       const TimingSetup& setup);

}  // namespace amp::runtime
