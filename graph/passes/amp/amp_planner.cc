#include "graph/passes/amp/amp_planner.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "graph/ir/name_table.h"
#include "graph/ir/verifier.h"
#include "graph/passes/amp/cast_cleanup.h"
#include "graph/passes/amp/casting_checker.h"
#include "graph/passes/dead_code_elimination.h"
#include "runtime/common/half.h"
#include "runtime/common/streamed_memory.h"

namespace amp::graph {
namespace {

int64_t dim_or_one(const Dim& d) {
  return d.is_static() ? d.value : 1;
}

int64_t numel_or_one(const Value& v) {
  if (!v.shape) return 1;
  int64_t n = 1;
  for (const Dim& d : v.shape->dims) n *= std::max<int64_t>(dim_or_one(d), 0);
  return n;
}

std::string color_text(AmpColor c) {
  return std::string(amp_color_name(c));
}

class PlanBuilder {
 public:
  PlanBuilder(const Graph& src, const AmpPolicy& policy, const KernelAvailability& has_kernel,
              AmpReport& report)
      : src_(src),
        policy_(policy),
        has_kernel_(has_kernel),
        report_(report),
        low_(policy.target),
        avail_(src.values.size()),
        produced_(src.values.size(), kNoValue),
        // Every source name is taken from the start: a cast named "x.f16" made early must
        // not collide with a source value "x.f16" copied over later.
        value_names_(NameTable::values_of(src)),
        node_names_(NameTable::nodes_of(src)),
        fits_(src, policy.target),
        fits_other_(src, policy.target == DType::kF16 ? DType::kBF16 : DType::kF16) {}

  Result<Graph> build() {
    out_.metadata = src_.metadata;
    for (ValueId v : src_.inputs) {
      const ValueId id = out_.add_value(src_.value(v));
      out_.inputs.push_back(id);
      avail_[v][src_.value(v).dtype] = id;
      produced_[v] = id;
    }
    for (const Node& n : src_.nodes) AMP_RETURN_IF_ERROR(plan_node(n));
    AMP_RETURN_IF_ERROR(plan_outputs());
    return std::move(out_);
  }

  std::vector<NodeId> inserted_casts;  // indices in out_.nodes

 private:
  AmpColor apply_overrides(const Node& n, AmpColor c, std::string& reason, bool& pinned) {
    for (const auto& [op, color] : policy_.op_overrides)
      if (op == n.op) {
        c = color;
        reason = "policy op_types: " + color_text(color);
        pinned = true;
      }
    for (const auto& [pattern, color] : policy_.node_overrides)
      if (glob_match(pattern, n.name)) {
        c = color;
        reason = "policy nodes '" + pattern + "': " + color_text(color);
        pinned = true;
      }
    if (policy_.callback) {
      if (auto cb = policy_.callback(n)) {
        c = *cb;
        reason = "callback: " + color_text(*cb);
        pinned = true;
      }
    }
    return c;
  }

  // The planned value for src value `v` in dtype `want` (cast or converted on demand).
  Result<ValueId> get(ValueId v, DType want, const std::string& name_override = "") {
    auto& m = avail_[static_cast<size_t>(v)];
    if (auto it = m.find(want); it != m.end()) return it->second;
    const Value& sv = src_.value(v);
    if (sv.is_constant()) return convert_constant(v, want);
    if (produced_[v] == kNoValue)
      return internal_error("AMP planner: '" + sv.name + "' used before defined");
    const ValueId from = produced_[v];
    const Value from_val = out_.value(from);
    Value cast_out;
    cast_out.name = name_override.empty()
                        ? value_names_.fresh(sv.name + "." + std::string(dtype_name(want)))
                        : name_override;
    cast_out.dtype = want;
    cast_out.shape = from_val.shape;
    const ValueId id = out_.add_value(std::move(cast_out));
    Node cast;
    cast.name = node_names_.fresh(sv.name + "/amp_cast_" + std::string(dtype_name(want)));
    cast.op = OpType::kCast;
    cast.op_version = std::max<int32_t>(static_cast<int32_t>(src_.metadata.source_opset), 13);
    cast.inputs = {from};
    cast.outputs = {id};
    cast.attrs.set("to", static_cast<int64_t>(want));  // DType values are ONNX codes
    inserted_casts.push_back(out_.add_node(std::move(cast)));
    m[want] = id;
    return id;
  }

  Result<ValueId> convert_constant(ValueId v, DType want) {
    const Value& sv = src_.value(v);
    Value nv = sv;
    const int64_t overflowed_before = report_.weight_values_overflowed;
    // Clamped weights depend on clamp_weights as well: only unclamped ones are cached.
    const bool cacheable = policy_.weight_cache && !policy_.clamp_weights && want != sv.dtype;
    std::optional<ConvertedWeights::Entry> cached;
    if (cacheable) cached = policy_.weight_cache->find(*sv.constant, want);
    if (cached) {
      report_.weight_values_overflowed += cached->overflowed;
      nv.constant = std::move(cached->data);
      nv.dtype = want;
      nv.name = value_names_.fresh(sv.name + "." + std::string(dtype_name(want)));
    } else if (want != sv.dtype) {
      if (!is_float(want) || !is_float(sv.dtype))
        return internal_error("AMP planner: cannot convert constant '" + sv.name + "' to " +
                              std::string(dtype_name(want)));
      const size_t numel = static_cast<size_t>(sv.constant->numel());
      // On huge pages when large (runtime/common/streamed_memory.h): a decoder's few-row
      // products stream these weights at every token (kernels/cpu/half_gemv.h).
      const size_t size = numel * dtype_size(want);
      std::shared_ptr<void> buffer = allocate_streamed(size);
      if (!buffer)
        return out_of_memory("AMP planner: cannot allocate " + std::to_string(size) +
                             " bytes for the " + std::string(dtype_name(want)) + " copy of '" +
                             sv.name + "'");
      auto* bytes = static_cast<uint8_t*>(buffer.get());
      const double max = is_low_float(want) ? low_type_max(want) : 0;
      // fp32 weights to fp16 / bf16, the common case: counted and converted in bulk (the
      // vectorized conversions of runtime/common/half.h, which round as the loop below
      // does). The accuracy search plans a model a hundred times; element by element, a
      // BERT-sized model's weights took most of each plan.
      const bool bulk = sv.constant->dtype() == DType::kF32 && is_low_float(want);
      size_t overflowed = 0;
      if (bulk) {
        const float* src = sv.constant->data<float>();
        const float fmax = static_cast<float>(max);
        for (size_t i = 0; i < numel; ++i)
          overflowed += std::fabs(src[i]) > fmax && std::fabs(src[i]) != INFINITY ? 1 : 0;
      }
      const bool converted_in_bulk = bulk && (overflowed == 0 || !policy_.clamp_weights);
      if (converted_in_bulk) {
        report_.weight_values_overflowed += static_cast<int64_t>(overflowed);
        auto* dst = reinterpret_cast<uint16_t*>(bytes);
        if (want == DType::kF16)
          convert_f32_to_f16(sv.constant->data<float>(), dst, numel);
        else
          convert_f32_to_bf16(sv.constant->data<float>(), dst, numel);
      }
      // Otherwise element by element: a double per element of a big weight would be
      // transient memory of 2-4x its size.
      for (size_t i = 0; !converted_in_bulk && i < numel; ++i) {
        double x = sv.constant->f64_at(static_cast<int64_t>(i));
        if (max > 0 && std::isfinite(x) && std::fabs(x) > max) {
          ++report_.weight_values_overflowed;
          if (policy_.clamp_weights) {
            x = std::copysign(max, x);
            report_.weights_clamped = true;
          }
        }
        const float f = static_cast<float>(x);
        switch (want) {
          case DType::kF16:
            reinterpret_cast<uint16_t*>(bytes)[i] = float_to_half_bits(f);
            break;
          case DType::kBF16:
            reinterpret_cast<uint16_t*>(bytes)[i] = float_to_bf16_bits(f);
            break;
          case DType::kF32:
            reinterpret_cast<float*>(bytes)[i] = f;
            break;
          case DType::kF64:
            reinterpret_cast<double*>(bytes)[i] = x;
            break;
          default:
            return internal_error("AMP planner: bad constant target");
        }
      }
      AMP_ASSIGN_OR_RETURN(TensorData t,
                           TensorData::view(want, sv.constant->dims(), buffer, bytes, size));
      if (cacheable)
        policy_.weight_cache->put(*sv.constant, want,
                                  {t, report_.weight_values_overflowed - overflowed_before});
      nv.constant = std::move(t);
      nv.dtype = want;
      nv.name = value_names_.fresh(sv.name + "." + std::string(dtype_name(want)));
    }
    const ValueId id = out_.add_value(std::move(nv));
    avail_[static_cast<size_t>(v)][want] = id;
    return id;
  }

  // Planned dtype of src value v: the dtype it was produced in (or its own for constants).
  DType planned_dtype(ValueId v) const {
    if (produced_[v] != kNoValue) return out_.value(produced_[v]).dtype;
    return src_.value(v).dtype;
  }

  ConstantFitCache& fits_for(DType low) const { return low == low_ ? fits_ : fits_other_; }

  // FOLLOW: whether every float input is low (a constant: fits `low`), so that the node runs
  // in `low` too. Inputs of the other low type (a hinted neighbour) count as low: the node
  // then casts them to `low`.
  bool follows_low(const Node& n, DType low) const {
    bool any_float = false;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const ValueId v = n.inputs[k];
      if (v == kNoValue || keeps_own_dtype(n.op, k)) continue;
      const Value& sv = src_.value(v);
      if (!is_float(sv.dtype)) continue;
      any_float = true;
      if (sv.is_constant()) {
        if (!fits_for(low).fits(v)) return false;
      } else if (!is_low_float(planned_dtype(v))) {
        return false;
      }
    }
    return any_float;
  }

  Status plan_node(const Node& n) {
    // A calibration hint picks this node's low type, or pins it fp32 (below).
    const auto hint = policy_.node_hints.find(n.name);
    const bool hinted = hint != policy_.node_hints.end();
    const DType low = hinted && is_low_float(hint->second.dtype) ? hint->second.dtype : low_;
    ColorDecision d = check_node(src_, n, low, &fits_for(low));
    AmpNodeReport rep;
    rep.node = n.name;
    rep.op = std::string(op_name(n.op));
    DType exec = DType::kF32;
    bool pinned = false;
    // CastLike is a model cast too: its target is input 1's dtype in the model, which that
    // input is given in (a cast back when it was produced low).
    const bool is_model_cast = n.op == OpType::kCast || n.op == OpType::kCastLike;
    if (!d.float_node || is_model_cast) {
      rep.color = "-";
      rep.reason = is_model_cast ? "model Cast (target kept)" : d.reason;
    } else {
      std::string reason = d.reason;
      AmpColor c = apply_overrides(n, d.color, reason, pinned);
      if (hinted && !pinned) {
        if (hint->second.dtype == DType::kF32) {
          c = AmpColor::kNever;
          reason = hint->second.reason;
        } else if (c != AmpColor::kNever) {
          reason += "; " + hint->second.reason;
        }
      }
      rep.color = color_text(c);
      bool want_low = c == AmpColor::kAlways || (c == AmpColor::kFollow && follows_low(n, low));
      if (c == AmpColor::kFollow)
        reason += want_low ? ": inputs low" : ": an input is fp32 or out of range";
      if (want_low && has_kernel_ && !has_kernel_(n, low)) {
        const std::string why = "no " + std::string(dtype_name(low)) + " kernel for " + rep.op;
        if (pinned && c == AmpColor::kAlways)
          return unsupported("AMP policy pins node '" + n.name + "' (" + rep.op + ") to " +
                             std::string(dtype_name(low)) + ", but the backend has " + why);
        want_low = false;
        rep.fallback = true;
        reason += "; fallback: " + why;
      }
      exec = want_low ? low : DType::kF32;
      rep.reason = reason;
      ++report_.nodes_total;
      if (want_low) ++report_.nodes_low;
    }

    Node out_node;
    out_node.name = n.name;
    out_node.op = n.op;
    out_node.op_version = n.op_version;
    out_node.attrs = n.attrs;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const ValueId v = n.inputs[k];
      if (v == kNoValue) {
        out_node.inputs.push_back(kNoValue);
        continue;
      }
      const DType own = planned_dtype(v);
      const bool convert = d.float_node && !is_model_cast && is_float(src_.value(v).dtype) &&
                           !keeps_own_dtype(n.op, k) && src_.value(v).dtype != DType::kF64;
      const bool cast_target = n.op == OpType::kCastLike && k == 1;
      AMP_ASSIGN_OR_RETURN(ValueId id,
                           get(v, cast_target ? src_.value(v).dtype : (convert ? exec : own)));
      out_node.inputs.push_back(id);
    }
    bool any_low_output = false;
    for (ValueId v : n.outputs) {
      if (v == kNoValue) {
        out_node.outputs.push_back(kNoValue);
        continue;
      }
      Value nv = src_.value(v);
      if (d.float_node && !is_model_cast && nv.dtype == DType::kF32) nv.dtype = exec;
      any_low_output = any_low_output || is_low_float(nv.dtype);
      const ValueId id = out_.add_value(std::move(nv));
      out_node.outputs.push_back(id);
      avail_[v][out_.value(id).dtype] = id;
      produced_[v] = id;
    }
    rep.dtype = d.float_node && !is_model_cast ? exec : (any_low_output ? low_ : DType::kF32);
    const double flops = node_flops(src_, n);
    report_.flops_total += flops;
    if (is_low_float(exec)) report_.flops_low += flops;
    if (rep.fallback) report_.fallbacks.push_back(rep);
    report_.nodes.push_back(std::move(rep));
    out_.add_node(std::move(out_node));
    return Status::ok();
  }

  Status plan_outputs() {
    for (ValueId o : src_.outputs) {
      const Value& sv = src_.value(o);
      const DType have = planned_dtype(o);
      if (!policy_.keep_io_types || have == sv.dtype || sv.is_constant()) {
        AMP_ASSIGN_OR_RETURN(ValueId id, get(o, sv.is_constant() ? sv.dtype : have));
        out_.outputs.push_back(id);
        continue;
      }
      // Cast back under the original name; the low value gets a derived name.
      const ValueId low_id = produced_[o];
      out_.value(low_id).name = value_names_.fresh(sv.name + "." + std::string(dtype_name(have)));
      AMP_ASSIGN_OR_RETURN(ValueId id, get(o, sv.dtype, sv.name));
      out_.outputs.push_back(id);
    }
    return Status::ok();
  }

  const Graph& src_;
  const AmpPolicy& policy_;
  const KernelAvailability& has_kernel_;
  AmpReport& report_;
  DType low_;
  Graph out_;
  std::vector<std::map<DType, ValueId>> avail_;
  std::vector<ValueId> produced_;
  NameTable value_names_;
  NameTable node_names_;
  mutable ConstantFitCache fits_;        // per source constant: fits the target (a memo)
  mutable ConstantFitCache fits_other_;  // the same for the other low type (hinted nodes)
};

int64_t weights_bytes(const Graph& g) {
  int64_t total = 0;
  for (const Value& v : g.values)
    if (v.is_constant()) total += static_cast<int64_t>(v.constant->byte_size());
  return total;
}

}  // namespace

double node_flops(const Graph& g, const Node& n) {
  auto val = [&](size_t k) -> const Value* {
    return k < n.inputs.size() && n.inputs[k] != kNoValue ? &g.value(n.inputs[k]) : nullptr;
  };
  const Value* out =
      n.outputs.empty() || n.outputs[0] == kNoValue ? nullptr : &g.value(n.outputs[0]);
  const Value* a = val(0);
  const Value* w = val(1);
  if (!out || !a || !w || !a->shape || !w->shape) return 0;
  switch (n.op) {
    case OpType::kConv: {
      // out elements x (Cin/group x kernel volume) multiply-adds
      double per_out = 1;
      for (size_t i = 1; i < w->shape->rank(); ++i) per_out *= dim_or_one(w->shape->dims[i]);
      return 2.0 * numel_or_one(*out) * per_out;
    }
    case OpType::kConvTranspose: {
      double per_in = 1;
      for (size_t i = 1; i < w->shape->rank(); ++i) per_in *= dim_or_one(w->shape->dims[i]);
      // weights [Cin, Cout/group, k...]: each input element feeds Cout/group x kernel volume
      return 2.0 * numel_or_one(*a) * per_in;
    }
    case OpType::kMatMul: {
      const int64_t k = a->shape->rank() ? dim_or_one(a->shape->dims.back()) : 1;
      return 2.0 * numel_or_one(*out) * k;
    }
    case OpType::kGemm: {
      auto trans_a = n.attrs.get_int("transA", 0);
      if (a->shape->rank() != 2) return 0;
      const int64_t k = dim_or_one(a->shape->dims[(trans_a.is_ok() && *trans_a) ? 0 : 1]);
      return 2.0 * numel_or_one(*out) * k;
    }
    default:
      return 0;
  }
}

namespace {

// Adds a body's report to its graph's, its nodes named "<node>/<attribute>/<body node>".
void merge_body_report(AmpReport& into, AmpReport body, const std::string& prefix) {
  for (AmpNodeReport& n : body.nodes) {
    n.node = prefix + n.node;
    into.nodes.push_back(std::move(n));
  }
  for (AmpNodeReport& n : body.fallbacks) {
    n.node = prefix + n.node;
    into.fallbacks.push_back(std::move(n));
  }
  into.nodes_total += body.nodes_total;
  into.nodes_low += body.nodes_low;
  into.casts += body.casts;
  into.cast_bytes_per_run += body.cast_bytes_per_run;
  into.weights_bytes_before += body.weights_bytes_before;
  into.weights_bytes_after += body.weights_bytes_after;
  into.flops_total += body.flops_total;
  into.flops_low += body.flops_low;
  into.weight_values_overflowed += body.weight_values_overflowed;
  into.weights_clamped = into.weights_clamped || body.weights_clamped;
}

// If/Loop/Scan bodies are planned by the same rules, as graphs of their own. The node itself
// is NEVER (op_types.def), so every float crossing the boundary is in the model's dtype on
// the outside; the body keeps its inputs' dtypes and casts its outputs back to theirs
// (keep_io_types), so each boundary value has that one dtype on both sides.
Status plan_bodies(Graph& g, const AmpPolicy& policy, const KernelAvailability& has_kernel,
                   AmpReport& report) {
  AmpPolicy body_policy = policy;
  body_policy.keep_io_types = true;
  for (Node& n : g.nodes) {
    std::vector<std::pair<std::string, SubgraphAttr>> planned;
    for (const auto& [name, attr] : n.attrs.all()) {
      const auto* sub = std::get_if<SubgraphAttr>(&attr);
      if (!sub) continue;
      // An If branch that did not infer for the load-time shapes (infer_control_flow.cc)
      // stays as written, in fp32: it runs only if taken, and is then planned as it is.
      bool typed = true;
      for (const Value& v : sub->graph->values) typed = typed && v.dtype != DType::kUndefined;
      if (!typed) continue;
      Graph body = *sub->graph;
      Result<AmpReport> r = plan_mixed_precision(body, body_policy, has_kernel);
      if (!r.is_ok()) return r.status().with_context("node '" + n.name + "' " + name);
      merge_body_report(report, std::move(r).value(), n.name + "/" + name + "/");
      planned.emplace_back(name, SubgraphAttr{std::make_shared<const Graph>(std::move(body))});
    }
    for (auto& [name, attr] : planned) n.attrs.set(name, std::move(attr));
  }
  return Status::ok();
}

}  // namespace

Result<AmpReport> plan_mixed_precision(Graph& g, const AmpPolicy& policy,
                                       const KernelAvailability& has_kernel) {
  if (!is_low_float(policy.target))
    return invalid_argument("AMP target must be f16 or bf16, got " +
                            std::string(dtype_name(policy.target)));
  AmpReport report;
  report.target = policy.target;
  report.weights_bytes_before = weights_bytes(g);
  PlanBuilder builder(g, policy, has_kernel, report);
  AMP_ASSIGN_OR_RETURN(Graph planned, builder.build());
  AMP_RETURN_IF_ERROR(verify_graph(planned).with_context("AMP planner produced an invalid graph"));

  AMP_ASSIGN_OR_RETURN(CastCleanupStats cleanup, cleanup_casts(planned, builder.inserted_casts));
  (void)cleanup;
  DeadCodeElimination dce;
  AMP_RETURN_IF_ERROR(dce.run(planned).status());
  AMP_RETURN_IF_ERROR(
      verify_graph(planned).with_context("AMP cast cleanup produced an invalid graph"));

  // Casts and their bytes, counted on the final graph (cleanup removed some).
  for (const Node& n : planned.nodes) {
    if (n.op != OpType::kCast || n.name.find("/amp_cast_") == std::string::npos) continue;
    ++report.casts;
    const Value& v = planned.value(n.outputs[0]);
    report.cast_bytes_per_run += numel_or_one(v) * static_cast<int64_t>(dtype_size(v.dtype));
  }
  report.weights_bytes_after = weights_bytes(planned);
  g = std::move(planned);
  AMP_RETURN_IF_ERROR(plan_bodies(g, policy, has_kernel, report));
  return report;
}

}  // namespace amp::graph
