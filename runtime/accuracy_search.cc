#include "runtime/accuracy_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <set>

#include "runtime/backend/cpu_backend.h"

namespace amp::runtime {
namespace {

using Clock = std::chrono::steady_clock;

// Plans `g` with `pins` kept fp32 on top of `policy` and runs it on every sample; returns
// its score, and (when `low` is set) the names of the plan's low-precision nodes in order.
Result<AccuracyScore> evaluate(const graph::Graph& g, const graph::AmpPolicy& policy,
                               const std::vector<std::string>& pins,
                               const std::vector<CalibrationSample>& samples,
                               const std::vector<std::vector<Tensor>>& reference,
                               CpuGraphRunner& runner, ValueMemo& memo, bool record,
                               std::vector<std::string>* low) {
  graph::AmpPolicy p = policy;
  for (const std::string& name : pins) p.node_hints[name] = {DType::kF32, "accuracy target"};
  graph::Graph planned = g;
  const kernels::KernelRegistry& reg = cpu_kernel_registry();
  auto has_kernel = [&reg](const graph::Node& n, DType t) {
    return reg.has(n.op, kernels::Backend::kCpu, t);
  };
  AMP_ASSIGN_OR_RETURN(graph::AmpReport report,
                       graph::plan_mixed_precision(planned, p, has_kernel));
  if (low)
    for (const graph::AmpNodeReport& n : report.nodes)
      if (n.color != "-" && is_low_float(n.dtype)) low->push_back(n.node);
  AMP_ASSIGN_OR_RETURN(std::vector<std::vector<Tensor>> got,
                       runner.run_samples(planned, samples, nullptr, &memo, record));
  return score_outputs(reference, got);
}

}  // namespace

AccuracyScore score_outputs(const std::vector<std::vector<Tensor>>& reference,
                            const std::vector<std::vector<Tensor>>& got) {
  AccuracyScore s;
  for (size_t k = 0; k < reference.size() && k < got.size(); ++k)
    for (size_t o = 0; o < reference[k].size() && o < got[k].size(); ++o) {
      if (!is_float(reference[k][o].dtype())) continue;
      const std::vector<float> e = reference[k][o].to_float_vector();
      const std::vector<float> a = got[k][o].to_float_vector();
      double dot = 0, ne = 0, na = 0, scale = 0, worst = 0;
      bool bad = a.size() != e.size();
      for (size_t i = 0; i < e.size() && i < a.size(); ++i) {
        if (!std::isfinite(a[i]) && std::isfinite(e[i])) bad = true;
        if (!std::isfinite(a[i]) || !std::isfinite(e[i])) continue;
        dot += double(a[i]) * e[i];
        ne += double(e[i]) * e[i];
        na += double(a[i]) * a[i];
        scale = std::max(scale, std::fabs(double(e[i])));
        worst = std::max(worst, std::fabs(double(a[i]) - e[i]));
      }
      // Inf/NaN where fp32 is finite fails any target.
      const double cos = bad                    ? -1.0
                         : (ne == 0 && na == 0) ? 1.0
                         : (ne == 0 || na == 0) ? 0.0
                                                : dot / std::sqrt(ne * na);
      s.cosine = std::min(s.cosine, cos);
      s.max_rel_err = std::max(s.max_rel_err, bad ? INFINITY : worst / std::max(scale, 1e-30));
    }
  return s;
}

Result<SearchResult> search_fp32_pins(const graph::Graph& g, const graph::AmpPolicy& policy,
                                      const std::vector<CalibrationSample>& samples,
                                      const std::vector<std::vector<Tensor>>& reference,
                                      const AccuracyTarget& target, int threads) {
  const auto t0 = Clock::now();
  if (target.min_cosine <= 0 && target.max_rel_err <= 0)
    return invalid_argument("accuracy target: give a cosine and/or a max relative error");
  AMP_ASSIGN_OR_RETURN(std::unique_ptr<CpuGraphRunner> runner, CpuGraphRunner::create(threads));
  ValueMemo memo;
  SearchResult r;
  auto score = [&](const std::vector<std::string>& pins, bool record,
                   std::vector<std::string>* low_nodes = nullptr) -> Result<AccuracyScore> {
    ++r.evaluations;
    return evaluate(g, policy, pins, samples, reference, *runner, memo, record, low_nodes);
  };
  auto finish = [&] {
    r.steps_run = memo.steps_run();
    r.steps_reused = memo.steps_skipped();
    r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    return r;
  };

  // The AMP plan, kept for the first round's tries to reuse.
  std::vector<std::string> low;
  AMP_ASSIGN_OR_RETURN(r.before, score({}, /*record=*/true, &low));
  r.after = r.before;
  r.met = r.before.meets(target);
  if (r.met || low.empty()) return finish();

  // Which end the pins should come from (the header's "Direction").
  std::vector<std::string> order = low;
  bool front_first = false;
  if (low.size() >= 2) {
    const auto half = low.begin() + static_cast<std::ptrdiff_t>(low.size() / 2);
    AMP_ASSIGN_OR_RETURN(AccuracyScore front, score({low.begin(), half}, false));
    AMP_ASSIGN_OR_RETURN(AccuracyScore back, score({half, low.end()}, false));
    front_first = front.meets(target) && front.miss(target) < back.miss(target);
    if (front_first) std::reverse(order.begin(), order.end());
  }
  r.front_first = front_first;

  // A suffix start in `rest` known to meet the target together with the pins (from an
  // earlier evaluation of exactly that set of pins), so a round need not test it again.
  std::optional<size_t> known_to_meet;
  size_t last_distance = 0;  // from the previous round's start to its culprit
  while (!r.met) {
    std::set<std::string> pinned(r.pinned.begin(), r.pinned.end());
    std::vector<std::string> rest;
    for (const std::string& n : order)
      if (!pinned.count(n)) rest.push_back(n);
    if (rest.empty()) break;
    auto with_suffix = [&](size_t j) {
      std::vector<std::string> pins = r.pinned;
      pins.insert(pins.end(), rest.begin() + static_cast<std::ptrdiff_t>(j), rest.end());
      return pins;
    };
    size_t lo = 0;  // with_suffix(lo) meets the target
    if (known_to_meet) {
      lo = *known_to_meet;
    } else {
      // Pinning everything left must meet the target, else no suffix does. Front first, its
      // values are what every later try shares (all of the front pinned).
      AMP_ASSIGN_OR_RETURN(AccuracyScore all, score(with_suffix(0), /*record=*/front_first));
      if (!all.meets(target)) {
        r.after = all;
        break;
      }
    }
    size_t hi = rest.size();  // with_suffix(hi), the pins alone, misses (evaluated last round)
    if (lo >= hi) break;      // the pins alone met after all: evaluations disagree
    const size_t start = lo;
    if (known_to_meet) {
      // Gallop from the last culprit, first as far as the last round went: where culprits
      // lie close together a round then costs ~2 log2(distance) tries, not log2 |L|.
      for (size_t step = last_distance + 1; lo + step < hi; step *= 2) {
        AMP_ASSIGN_OR_RETURN(AccuracyScore s, score(with_suffix(lo + step), false));
        if (!s.meets(target)) {
          hi = lo + step;
          break;
        }
        lo += step;
      }
    }
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      AMP_ASSIGN_OR_RETURN(AccuracyScore s, score(with_suffix(mid), false));
      if (s.meets(target)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    r.pinned.push_back(rest[lo]);
    last_distance = lo - start;
    // Next round: its rest lacks rest[lo], so its suffix from lo with the new pins is the
    // set just found to meet: the next culprit lies after it.
    known_to_meet = lo;
    // The pins so far, without the rest of the suffix: met already, or another round. Back
    // first, its values are the next round's to reuse.
    AMP_ASSIGN_OR_RETURN(r.after, score(r.pinned, /*record=*/!front_first));
    r.met = r.after.meets(target);
  }
  return finish();
}

}  // namespace amp::runtime
