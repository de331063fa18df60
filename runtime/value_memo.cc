#include "runtime/value_memo.h"

#include <algorithm>

#include <cstring>
#include <string>
#include <type_traits>
#include <variant>

namespace amp::runtime {
namespace {

// Constants up to this size are fingerprinted by their bytes: folding makes them anew for
// every plan (shape tensors, scalars), so their storage differs where their bytes do not.
constexpr size_t kHashedConstantBytes = 4096;

// FNV-1a over the fed bytes, finished with a 64-bit mixer (splitmix64's) so that nearby
// keys spread over all bits.
class Hasher {
 public:
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ b[i]) * 0x100000001b3ULL;
  }
  template <typename T>
  void pod(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof(v));
  }
  void text(const std::string& s) {
    pod(s.size());
    bytes(s.data(), s.size());
  }
  void dims(const std::vector<int64_t>& d) {
    pod(d.size());
    bytes(d.data(), d.size() * sizeof(int64_t));
  }
  uint64_t done() const {
    uint64_t z = h_ + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z == 0 ? 1 : z;  // 0 means "no fingerprint"
  }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

void hash_tensor_bytes(Hasher& h, const graph::TensorData& t) {
  h.pod(t.dtype());
  h.dims(t.dims());
  h.bytes(t.bytes(), t.byte_size());
}

// False when an attribute holds something the hash cannot stand for (a subgraph).
bool hash_attributes(Hasher& h, const graph::Attributes& attrs) {
  for (const auto& [name, value] : attrs.all()) {
    h.text(name);
    h.pod(value.index());
    const bool ok = std::visit(
        [&h](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, int64_t> || std::is_same_v<V, float>) {
            h.pod(v);
          } else if constexpr (std::is_same_v<V, std::string>) {
            h.text(v);
          } else if constexpr (std::is_same_v<V, std::vector<int64_t>> ||
                               std::is_same_v<V, std::vector<float>>) {
            h.pod(v.size());
            h.bytes(v.data(), v.size() * sizeof(typename V::value_type));
          } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
            h.pod(v.size());
            for (const std::string& s : v) h.text(s);
          } else if constexpr (std::is_same_v<V, graph::TensorData>) {
            hash_tensor_bytes(h, v);
          } else {
            return false;  // SubgraphAttr
          }
          return true;
        },
        value);
    if (!ok) return false;
  }
  return true;
}

uint64_t constant_fingerprint(const graph::Value& v) {
  const graph::TensorData& t = *v.constant;
  Hasher h;
  h.pod(uint8_t{1});
  if (t.byte_size() <= kHashedConstantBytes || !t.owner()) {
    hash_tensor_bytes(h, t);
  } else {
    h.pod(t.dtype());
    h.dims(t.dims());
    h.pod(reinterpret_cast<uintptr_t>(t.owner().get()));
    h.pod(reinterpret_cast<uintptr_t>(t.bytes()));
  }
  return h.done();
}

size_t value_bytes(const graph::Value& v) {
  return v.shape ? static_cast<size_t>(v.shape->numel().value_or(0)) * dtype_size(v.dtype) : 0;
}

}  // namespace

std::vector<uint64_t> value_fingerprints(const ExecutionPlan& plan, uint64_t run_tag) {
  const graph::Graph& g = plan.graph;
  std::vector<uint64_t> fp(g.values.size(), 0);
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].is_constant()) fp[v] = constant_fingerprint(g.values[v]);
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const graph::Value& v = g.value(g.inputs[i]);
    if (v.is_constant() || !v.shape) continue;  // bound from a shape-deciding input: hashed
    Hasher h;
    h.pod(uint8_t{2});
    h.pod(run_tag);
    h.pod(i);
    h.pod(v.dtype);
    h.dims(v.shape->static_dims());
    fp[static_cast<size_t>(g.inputs[i])] = h.done();
  }
  for (size_t s = 0; s < g.nodes.size(); ++s) {
    const graph::Node& n = g.nodes[s];
    if (std::any_of(plan.dynamic.begin(), plan.dynamic.end(),
                    [s](const ExecutionPlan::DynamicOutput& d) {
                      return d.step == static_cast<int64_t>(s);
                    }))
      continue;
    Hasher h;
    h.pod(uint8_t{3});
    h.pod(n.op);
    h.pod(n.op_version);
    h.text(n.name);
    if (!hash_attributes(h, n.attrs)) continue;
    bool known = true;
    for (graph::ValueId in : n.inputs) {
      const uint64_t f = in == graph::kNoValue ? 0 : fp[static_cast<size_t>(in)];
      if (in != graph::kNoValue && f == 0) known = false;
      h.pod(f);
    }
    if (!known) continue;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k] == graph::kNoValue) continue;
      const graph::Value& out = g.value(n.outputs[k]);
      if (!out.shape) continue;
      Hasher o = h;
      o.pod(k);
      o.pod(out.dtype);
      o.dims(out.shape->static_dims());
      fp[static_cast<size_t>(n.outputs[k])] = o.done();
    }
  }
  return fp;
}

// One run of one plan against the memo: which steps it skips and which of their outputs
// the rest of the run reads (decided up front, so that a skipped step's inputs need never
// exist).
class MemoRun : public StepReuse {
 public:
  MemoRun(ValueMemo& memo, const ExecutionPlan& plan, uint64_t run_tag)
      : memo_(memo), plan_(plan), fp_(value_fingerprints(plan, run_tag)) {
    const graph::Graph& g = plan.graph;
    skip_.assign(plan.steps.size(), false);
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      bool all_kept = true, any_output = false;
      for (graph::ValueId out : plan.steps[s].outputs) {
        if (out == graph::kNoValue) continue;
        any_output = true;
        const size_t v = static_cast<size_t>(out);
        const ValueMemo::Bytes* kept = fp_[v] ? memo.find(fp_[v]) : nullptr;
        if (!kept || (*kept)->size() != value_bytes(g.values[v]) ||
            plan.values[v].offset == graph::kNotInArena) {
          all_kept = false;
          break;
        }
      }
      skip_[s] = all_kept && any_output;
    }
    needed_.assign(g.values.size(), false);
    for (size_t s = 0; s < plan.steps.size(); ++s)
      if (!skip_[s])
        for (graph::ValueId in : plan.steps[s].inputs)
          if (in != graph::kNoValue) needed_[static_cast<size_t>(in)] = true;
    for (graph::ValueId out : g.outputs) needed_[static_cast<size_t>(out)] = true;
  }

  bool restored(size_t step, const std::vector<HostTensorView>& outputs) override {
    if (!skip_[step]) return false;
    const std::vector<graph::ValueId>& ids = plan_.steps[step].outputs;
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] == graph::kNoValue) continue;
      const size_t v = static_cast<size_t>(ids[k]);
      const ValueMemo::Bytes kept = *memo_.find(fp_[v]);
      // The arena is the executor's own, writable memory; the view is const for observers.
      if (needed_[v] && !kept->empty())
        std::memcpy(const_cast<void*>(outputs[k].data), kept->data(), kept->size());
      if (memo_.record_) memo_.keep(fp_[v], kept);
    }
    ++memo_.steps_skipped_;
    return true;
  }

  void ran(size_t step, const std::vector<HostTensorView>& outputs) override {
    ++memo_.steps_run_;
    if (!memo_.record_) return;
    const std::vector<graph::ValueId>& ids = plan_.steps[step].outputs;
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] == graph::kNoValue || !outputs[k].data) continue;
      const size_t v = static_cast<size_t>(ids[k]);
      const size_t n = value_bytes(plan_.graph.values[v]);
      if (!fp_[v] || memo_.bytes_ + n > memo_.budget_) continue;
      const auto* p = static_cast<const uint8_t*>(outputs[k].data);
      memo_.keep(fp_[v], std::make_shared<const std::vector<uint8_t>>(p, p + n));
    }
  }

 private:
  ValueMemo& memo_;
  const ExecutionPlan& plan_;
  std::vector<uint64_t> fp_;
  std::vector<bool> skip_, needed_;
};

void ValueMemo::begin(bool record) {
  record_ = record;
  if (!record) return;
  previous_ = std::move(kept_);
  kept_.clear();
  previous_plans_ = std::move(plans_);
  plans_.clear();
  bytes_ = 0;
}

void ValueMemo::end() {
  previous_.clear();
  previous_plans_.clear();
  record_ = false;
}

std::unique_ptr<StepReuse> ValueMemo::bind(const std::shared_ptr<const ExecutionPlan>& plan,
                                           uint64_t run_tag) {
  if (plan->continuation) return nullptr;
  // A record keeps its plans: their large constants' storage identifies them (above).
  if (record_) plans_.push_back(plan);
  return std::make_unique<MemoRun>(*this, *plan, run_tag);
}

const ValueMemo::Bytes* ValueMemo::find(uint64_t fingerprint) const {
  if (auto it = kept_.find(fingerprint); it != kept_.end()) return &it->second;
  if (auto it = previous_.find(fingerprint); it != previous_.end()) return &it->second;
  return nullptr;
}

void ValueMemo::keep(uint64_t fingerprint, Bytes bytes) {
  const size_t n = bytes->size();
  if (kept_.emplace(fingerprint, std::move(bytes)).second) bytes_ += n;
}

}  // namespace amp::runtime
