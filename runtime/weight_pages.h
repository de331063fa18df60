// The pages of a mapped .amp file that no kernel reads at run time, handed back to the OS.
//
// Why: a model loaded from an .amp file reads its weights in place from a private, read-only
// mapping (graph/serialize/mapped_file.h). Packing a weight (oneDNN's layouts, our GEMM
// panels, Winograd transforms, recurrent panels) reads every page of it once, and those
// pages then stay in the process's resident set although run() reads only the packed copy:
// a demo GPT-2 decoder held its 79.6 MiB of weights twice, mapped and packed. Precision
// planning's fp16/bf16 copies and CUDA's device copies leave the mapped originals unread
// the same way. ONNX Runtime frees initializers after pre-packing for the same reason.
//
// As each kernel is prepared (build_execution_plan with PlanBuildOptions::weights_file),
// the constants it replaced by a held form go at once (drop_constant_pages), so a load
// never holds every weight twice at its peak; a constant another node also reads (a tied
// embedding: a Gather reads it at run time, the output MatMul packs it) waits for the pass
// below, which keeps it. Then, after each plan is built
// (EngineImpl::plan_for_key) and once at the end of a load, what no run() reads:
//   1. keep = the byte ranges of the mapping that some run() reads: over every plan the
//      engine holds (and the continuation and body plans built so far), each step input whose
//      ValueRef::constant lies in the mapping, unless the step's kernel reads a held form of
//      it instead (Kernel::replaced_constant_inputs), and each graph output that is a constant
//      (copied out by every run). On CUDA, ValueRef::constant is a device pointer, so nothing
//      is kept.
//   2. keep sorted and merged;
//   3. every gap between kept ranges goes to MappedFile::drop_pages (whole pages inward;
//      a page shared with a kept range stays).
// Correctness never depends on step 1: a dropped page that is read again (a new plan packing
// the weight for other shapes, a kernel that reads more than it declared, the FlatBuffer's
// own tables) is faulted back in from the file, unchanged. Step 1 decides only what stays
// resident, so that a run does not wait on page faults.
// Cost: a merge of the plans' weight_reads (each plan's step 1 runs once, when it is built:
// redone over 16 cached plans of a decoder it was 0.5 ms of every step) and one madvise per
// gap; no I/O.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "graph/serialize/mapped_file.h"

namespace amp::runtime {

struct ExecutionPlan;

// The whole pages of [data, data + bytes) when they lie in `file` (else nothing).
void drop_constant_pages(const graph::MappedFile& file, const void* data, size_t bytes);

// Step 1 for one plan (not the plans under it), sorted and merged: what build_execution_plan
// stores in ExecutionPlan::weight_reads, so that step 1 over many plans is a merge.
std::vector<std::pair<size_t, size_t>> weight_ranges_read(const graph::MappedFile& file,
                                                          const ExecutionPlan& plan);

// Steps 1-3 over `plans` (null entries skipped) and the plans under them; returns the bytes
// handed back.
size_t drop_unread_weight_pages(const graph::MappedFile& file,
                                const std::vector<const ExecutionPlan*>& plans);

}  // namespace amp::runtime
