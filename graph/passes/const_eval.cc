#include "graph/passes/const_eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/common/half.h"

namespace amp::graph {
namespace {

using Outputs = std::optional<std::vector<TensorData>>;

// Element access goes through TensorData::f64_at / i64_at (graph/ir/tensor_data.h).

template <typename T>
T saturate_cast(int64_t v) {
  if (v < static_cast<int64_t>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v > static_cast<int64_t>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// Stores element i of a buffer of dtype `t`, from an integer or a double source.
void store(DType t, uint8_t* p, int64_t i, bool from_int, int64_t iv, double dv) {
  switch (t) {
    case DType::kF32:
      reinterpret_cast<float*>(p)[i] = from_int ? static_cast<float>(iv) : static_cast<float>(dv);
      break;
    case DType::kF64:
      reinterpret_cast<double*>(p)[i] = from_int ? static_cast<double>(iv) : dv;
      break;
    case DType::kF16:
      reinterpret_cast<uint16_t*>(p)[i] =
          float_to_half_bits(from_int ? static_cast<float>(iv) : static_cast<float>(dv));
      break;
    case DType::kBF16:
      reinterpret_cast<uint16_t*>(p)[i] =
          float_to_bf16_bits(from_int ? static_cast<float>(iv) : static_cast<float>(dv));
      break;
    case DType::kBool:
      p[i] = from_int ? (iv != 0) : (dv != 0.0);
      break;
    case DType::kI64:
    case DType::kI32:
    case DType::kI16:
    case DType::kI8:
    case DType::kU8: {
      int64_t v = iv;
      if (!from_int) {
        if (std::isnan(dv))
          v = 0;
        else if (dv >= 9.2e18)
          v = std::numeric_limits<int64_t>::max();
        else if (dv <= -9.2e18)
          v = std::numeric_limits<int64_t>::min();
        else
          v = static_cast<int64_t>(dv);
      }
      if (t == DType::kI64) reinterpret_cast<int64_t*>(p)[i] = v;
      if (t == DType::kI32) reinterpret_cast<int32_t*>(p)[i] = saturate_cast<int32_t>(v);
      if (t == DType::kI16) reinterpret_cast<int16_t*>(p)[i] = saturate_cast<int16_t>(v);
      if (t == DType::kI8) reinterpret_cast<int8_t*>(p)[i] = saturate_cast<int8_t>(v);
      if (t == DType::kU8) p[i] = saturate_cast<uint8_t>(v);
      break;
    }
    case DType::kUndefined:
      break;
  }
}

bool integral(DType t) {
  return is_integer(t) || t == DType::kBool;
}

// ---- output allocation ----------------------------------------------------------------

struct OutBuf {
  DType dtype;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
  int64_t numel;
};

// The caller (ConstantFolding) has already decided the output is small enough to fold;
// the size is still computed without overflow, as everything derived from a file is.
std::optional<OutBuf> make_out(const Value* out) {
  if (!out || !out->shape || !out->shape->is_static()) return std::nullopt;
  auto n = out->shape->numel();
  const size_t es = dtype_size(out->dtype);
  if (!n || es == 0 || static_cast<uint64_t>(*n) > SIZE_MAX / es) return std::nullopt;
  OutBuf o{out->dtype, out->shape->static_dims(), {}, *n};
  o.bytes.resize(static_cast<size_t>(*n) * es);
  return o;
}

Result<Outputs> finish(OutBuf o) {
  AMP_ASSIGN_OR_RETURN(TensorData t,
                       TensorData::from_bytes(o.dtype, std::move(o.dims), std::move(o.bytes)));
  return Outputs(std::vector<TensorData>{std::move(t)});
}

std::vector<int64_t> strides_of(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// Walks the output elements in order and tracks, for one input, the offset of the input
// element that broadcasts to the current one: no per-element offset tables, which would
// cost 8 bytes per output element on top of the output itself.
class BroadcastWalker {
 public:
  // False when `in` does not broadcast to `out`: the node is left unfolded.
  bool init(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
    if (in.size() > out.size()) return false;
    out_ = out;
    strides_.assign(out.size(), 0);
    idx_.assign(out.size(), 0);
    const std::vector<int64_t> in_strides = strides_of(in);
    const size_t lead = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != out[lead + i] && in[i] != 1) return false;
      strides_[lead + i] = in[i] == 1 ? 0 : in_strides[i];
    }
    return true;
  }
  int64_t offset() const { return off_; }
  void next() {
    for (size_t a = out_.size(); a-- > 0;) {
      off_ += strides_[a];
      if (++idx_[a] < out_[a]) return;
      off_ -= strides_[a] * out_[a];
      idx_[a] = 0;
    }
  }

 private:
  std::vector<int64_t> out_, strides_, idx_;
  int64_t off_ = 0;
};

const TensorData& cdata(const Value* v) {
  return *v->constant;
}

// ---- ops ----------------------------------------------------------------------------

Result<Outputs> eval_shape(const Node& n, const Value* x, OutBuf o) {
  const std::vector<int64_t> dims = x->shape->static_dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  // The range shape inference resolved (it knows which opsets have start / end).
  const ShapeAttrs* a = std::get_if<ShapeAttrs>(&n.resolved);
  if (a == nullptr || a->end > rank) return Outputs();
  const int64_t start = a->start, end = a->end;
  if (o.dtype != DType::kI64 || o.numel != std::max<int64_t>(end - start, 0)) return Outputs();
  for (int64_t i = start, k = 0; i < end && k < o.numel; ++i, ++k)
    reinterpret_cast<int64_t*>(o.bytes.data())[k] = dims[static_cast<size_t>(i)];
  return finish(std::move(o));
}

// Same bytes, new shape: Reshape, Flatten, Squeeze, Unsqueeze, Identity.
Result<Outputs> eval_view(const Value* x, OutBuf o) {
  const TensorData& t = cdata(x);
  if (t.byte_size() != o.bytes.size() || t.dtype() != o.dtype) return Outputs();
  if (!o.bytes.empty()) std::memcpy(o.bytes.data(), t.bytes(), o.bytes.size());
  return finish(std::move(o));
}

Result<Outputs> eval_cast(const Value* x, OutBuf o) {
  const TensorData& t = cdata(x);
  if (t.numel() != o.numel) return Outputs();
  const bool from_int = integral(t.dtype());
  for (int64_t i = 0; i < o.numel; ++i)
    store(o.dtype, o.bytes.data(), i, from_int, from_int ? t.i64_at(i) : 0,
          from_int ? 0.0 : t.f64_at(i));
  return finish(std::move(o));
}

Result<Outputs> eval_binary(const Node& n, const Value* a, const Value* b, OutBuf o) {
  const TensorData& ta = cdata(a);
  const TensorData& tb = cdata(b);
  BroadcastWalker wa, wb;
  if (!wa.init(ta.dims(), o.dims) || !wb.init(tb.dims(), o.dims)) return Outputs();
  const bool ints = integral(ta.dtype()) && integral(tb.dtype());
  for (int64_t e = 0; e < o.numel; ++e, wa.next(), wb.next()) {
    if (ints) {
      const int64_t x = ta.i64_at(wa.offset());
      const int64_t y = tb.i64_at(wb.offset());
      int64_t r = 0;
      switch (n.op) {
        case OpType::kAdd:
          r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
          break;
        case OpType::kSub:
          r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
          break;
        case OpType::kMul:
          r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
          break;
        case OpType::kDiv:
          if (y == 0 || (x == std::numeric_limits<int64_t>::min() && y == -1)) return Outputs();
          r = x / y;
          break;
        case OpType::kEqual:
          r = x == y;
          break;
        case OpType::kLess:
          r = x < y;
          break;
        case OpType::kGreater:
          r = x > y;
          break;
        case OpType::kAnd:
          r = (x != 0) && (y != 0);
          break;
        default:
          return Outputs();
      }
      store(o.dtype, o.bytes.data(), e, true, r, 0);
    } else {
      const double x = ta.f64_at(wa.offset());
      const double y = tb.f64_at(wb.offset());
      double r = 0;
      switch (n.op) {
        case OpType::kAdd:
          r = x + y;
          break;
        case OpType::kSub:
          r = x - y;
          break;
        case OpType::kMul:
          r = x * y;
          break;
        case OpType::kDiv:
          r = x / y;
          break;
        case OpType::kEqual:
          r = x == y;
          break;
        case OpType::kLess:
          r = x < y;
          break;
        case OpType::kGreater:
          r = x > y;
          break;
        default:
          return Outputs();
      }
      // Round through the declared float type once, as a kernel would.
      store(o.dtype, o.bytes.data(), e, false, 0, r);
    }
  }
  return finish(std::move(o));
}

Result<Outputs> eval_where(const Value* c, const Value* x, const Value* y, OutBuf o) {
  const TensorData& tc = cdata(c);
  const TensorData& tx = cdata(x);
  const TensorData& ty = cdata(y);
  if (tc.dtype() != DType::kBool || tx.dtype() != o.dtype || ty.dtype() != o.dtype)
    return Outputs();
  const size_t es = dtype_size(o.dtype);
  BroadcastWalker wc, wx, wy;
  if (!wc.init(tc.dims(), o.dims) || !wx.init(tx.dims(), o.dims) || !wy.init(ty.dims(), o.dims))
    return Outputs();
  for (int64_t e = 0; e < o.numel; ++e, wc.next(), wx.next(), wy.next()) {
    const bool take_x = tc.bytes()[wc.offset()] != 0;
    const uint8_t* src = take_x ? tx.bytes() + wx.offset() * es : ty.bytes() + wy.offset() * es;
    std::memcpy(o.bytes.data() + e * es, src, es);
  }
  return finish(std::move(o));
}

Result<Outputs> eval_expand(const Value* x, OutBuf o) {
  const TensorData& t = cdata(x);
  if (t.dtype() != o.dtype) return Outputs();
  const size_t es = dtype_size(o.dtype);
  BroadcastWalker w;
  if (!w.init(t.dims(), o.dims)) return Outputs();
  for (int64_t e = 0; e < o.numel; ++e, w.next())
    std::memcpy(o.bytes.data() + e * es, t.bytes() + w.offset() * es, es);
  return finish(std::move(o));
}

Result<Outputs> eval_unary(const Node& n, const Value* x, OutBuf o) {
  const TensorData& t = cdata(x);
  if (t.numel() != o.numel) return Outputs();
  const bool ints = integral(t.dtype());
  for (int64_t e = 0; e < o.numel; ++e) {
    if (ints) {
      const int64_t v = t.i64_at(e);
      int64_t r = 0;
      switch (n.op) {
        case OpType::kNeg:
          r = static_cast<int64_t>(0 - static_cast<uint64_t>(v));
          break;
        case OpType::kAbs:
          r = v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
          break;
        case OpType::kNot:
          r = v == 0;
          break;
        default:
          return Outputs();
      }
      store(o.dtype, o.bytes.data(), e, true, r, 0);
    } else {
      const double v = t.f64_at(e);
      double r = 0;
      switch (n.op) {
        case OpType::kNeg:
          r = -v;
          break;
        case OpType::kAbs:
          r = std::fabs(v);
          break;
        case OpType::kSqrt:
          r = std::sqrt(v);
          break;
        default:
          return Outputs();
      }
      store(o.dtype, o.bytes.data(), e, false, 0, r);
    }
  }
  return finish(std::move(o));
}

Result<Outputs> eval_concat(const Node& n, const std::vector<const Value*>& in, OutBuf o) {
  AMP_ASSIGN_OR_RETURN(int64_t axis, n.attrs.get_int("axis", 0));
  const int64_t rank = static_cast<int64_t>(o.dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return Outputs();
  const size_t es = dtype_size(o.dtype);
  int64_t outer = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= o.dims[a];
  int64_t inner = 1;
  for (int64_t a = axis + 1; a < rank; ++a) inner *= o.dims[a];
  // Every input must match the output off the axis, and the axis sizes must add up; a
  // file may record an output shape that inference did not overwrite.
  int64_t axis_total = 0;
  for (const Value* v : in) {
    const TensorData& t = cdata(v);
    if (t.dtype() != o.dtype || static_cast<int64_t>(t.dims().size()) != rank) return Outputs();
    for (int64_t a = 0; a < rank; ++a)
      if (a != axis && t.dims()[a] != o.dims[a]) return Outputs();
    axis_total += t.dims()[axis];  // each <= its numel: no overflow
  }
  if (axis_total != o.dims[axis]) return Outputs();
  uint8_t* dst = o.bytes.data();
  for (int64_t i = 0; i < outer; ++i) {
    for (const Value* v : in) {
      const TensorData& t = cdata(v);
      const size_t chunk = static_cast<size_t>(t.dims()[axis] * inner) * es;
      if (chunk == 0) continue;  // an empty input may have no storage at all (nullptr)
      std::memcpy(dst, t.bytes() + i * chunk, chunk);
      dst += chunk;
    }
  }
  return finish(std::move(o));
}

Result<Outputs> eval_gather(const Node& n, const Value* x, const Value* idx, OutBuf o) {
  const TensorData& t = cdata(x);
  const TensorData& ti = cdata(idx);
  AMP_ASSIGN_OR_RETURN(int64_t axis, n.attrs.get_int("axis", 0));
  const int64_t rank = static_cast<int64_t>(t.dims().size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank || t.dtype() != o.dtype) return Outputs();
  const size_t es = dtype_size(o.dtype);
  int64_t outer = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= t.dims()[a];
  int64_t inner = 1;
  for (int64_t a = axis + 1; a < rank; ++a) inner *= t.dims()[a];
  const int64_t axis_dim = t.dims()[axis];
  // outer x indices x inner elements must be exactly the output, checked before writing.
  const auto total = [&]() -> std::optional<int64_t> {
    int64_t r = 0;
    if (__builtin_mul_overflow(outer, ti.numel(), &r) || __builtin_mul_overflow(r, inner, &r))
      return std::nullopt;
    return r;
  }();
  if (!total || *total != o.numel || !integral(ti.dtype())) return Outputs();
  uint8_t* dst = o.bytes.data();
  for (int64_t i = 0; i < outer; ++i) {
    for (int64_t k = 0; k < ti.numel(); ++k) {
      int64_t j = ti.i64_at(k);
      if (j < 0) j += axis_dim;
      if (j < 0 || j >= axis_dim)
        return invalid_model("Gather index " + std::to_string(ti.i64_at(k)) +
                             " out of range for axis of size " + std::to_string(axis_dim));
      if (inner == 0) continue;  // nothing to copy, and the storage may be nullptr
      std::memcpy(dst, t.bytes() + ((i * axis_dim + j) * inner) * es, inner * es);
      dst += inner * es;
    }
  }
  if (dst != o.bytes.data() + o.bytes.size()) return Outputs();
  return finish(std::move(o));
}

Result<Outputs> eval_transpose(const Node& n, const Value* x, OutBuf o) {
  const TensorData& t = cdata(x);
  const size_t rank = t.dims().size();
  // The permutation shape inference validated (the default one included).
  const PermuteAttrs* rec = std::get_if<PermuteAttrs>(&n.resolved);
  if (rec == nullptr) return Outputs();
  const std::vector<int64_t>& perm = rec->perm;
  if (perm.size() != rank || t.dtype() != o.dtype || o.dims.size() != rank) return Outputs();
  for (size_t a = 0; a < rank; ++a)
    if (o.dims[a] != t.dims()[static_cast<size_t>(perm[a])]) return Outputs();
  const std::vector<int64_t> in_strides = strides_of(t.dims());
  std::vector<int64_t> idx(rank, 0);
  const size_t es = dtype_size(o.dtype);
  for (int64_t e = 0; e < o.numel; ++e) {
    int64_t off = 0;
    for (size_t a = 0; a < rank; ++a) off += idx[a] * in_strides[static_cast<size_t>(perm[a])];
    std::memcpy(o.bytes.data() + e * es, t.bytes() + off * es, es);
    for (size_t a = rank; a-- > 0;) {
      if (++idx[a] < o.dims[a]) break;
      idx[a] = 0;
    }
  }
  return finish(std::move(o));
}

Result<Outputs> eval_slice(const std::vector<const Value*>& in, OutBuf o) {
  const TensorData& t = cdata(in[0]);
  const size_t rank = t.dims().size();
  if (t.dtype() != o.dtype || o.dims.size() != rank) return Outputs();
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> starts, cdata(in[1]).to_i64_vector());
  AMP_ASSIGN_OR_RETURN(std::vector<int64_t> ends, cdata(in[2]).to_i64_vector());
  std::vector<int64_t> axes, steps;
  if (in.size() > 3 && in[3]) {
    AMP_ASSIGN_OR_RETURN(axes, cdata(in[3]).to_i64_vector());
  }
  if (in.size() > 4 && in[4]) {
    AMP_ASSIGN_OR_RETURN(steps, cdata(in[4]).to_i64_vector());
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int64_t> begin(rank, 0), step(rank, 1);
  for (size_t k = 0; k < axes.size() && k < starts.size() && k < steps.size(); ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + static_cast<int64_t>(rank) : axes[k];
    if (a < 0 || a >= static_cast<int64_t>(rank) || steps[k] == 0) return Outputs();
    const int64_t dim = t.dims()[a];
    int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
    s = steps[k] > 0 ? std::clamp<int64_t>(s, 0, dim) : std::clamp<int64_t>(s, 0, dim - 1);
    begin[a] = s;
    step[a] = steps[k];
  }
  const std::vector<int64_t> in_strides = strides_of(t.dims());
  std::vector<int64_t> idx(rank, 0);
  const size_t es = dtype_size(o.dtype);
  for (int64_t e = 0; e < o.numel; ++e) {
    // Checked: a step near INT64_MIN/MAX with a recorded (not inferred) output shape
    // would overflow; such a node stays unfolded.
    int64_t off = 0;
    for (size_t a = 0; a < rank; ++a) {
      int64_t pos = 0, term = 0;
      if (__builtin_mul_overflow(idx[a], step[a], &pos) ||
          __builtin_add_overflow(pos, begin[a], &pos) || pos < 0 || pos >= t.dims()[a] ||
          __builtin_mul_overflow(pos, in_strides[a], &term) ||
          __builtin_add_overflow(off, term, &off))
        return Outputs();
    }
    if (off < 0 || off >= t.numel()) return Outputs();
    std::memcpy(o.bytes.data() + e * es, t.bytes() + off * es, es);
    for (size_t a = rank; a-- > 0;) {
      if (++idx[a] < o.dims[a]) break;
      idx[a] = 0;
    }
  }
  return finish(std::move(o));
}

Result<Outputs> eval_constant_of_shape(const Node& n, OutBuf o) {
  AMP_ASSIGN_OR_RETURN(std::optional<TensorData> value, n.attrs.get_tensor("value"));
  const size_t es = dtype_size(o.dtype);
  if (value) {
    if (value->numel() != 1 || value->dtype() != o.dtype) return Outputs();
    for (int64_t e = 0; e < o.numel; ++e) std::memcpy(o.bytes.data() + e * es, value->bytes(), es);
  }  // else zeros (bytes are value-initialized)
  return finish(std::move(o));
}

Result<Outputs> eval_range(const std::vector<const Value*>& in, OutBuf o) {
  const TensorData& start = cdata(in[0]);
  const TensorData& delta = cdata(in[2]);
  const bool ints = integral(o.dtype);
  for (int64_t e = 0; e < o.numel; ++e) {
    // start + e * delta lies between start and limit, but e * delta alone can overflow
    // (start = INT64_MIN, delta = INT64_MAX): compute modulo 2^64, which is exact here.
    if (ints)
      store(o.dtype, o.bytes.data(), e, true,
            static_cast<int64_t>(static_cast<uint64_t>(start.i64_at(0)) +
                                 static_cast<uint64_t>(e) * static_cast<uint64_t>(delta.i64_at(0))),
            0);
    else
      store(o.dtype, o.bytes.data(), e, false, 0,
            start.f64_at(0) + static_cast<double>(e) * delta.f64_at(0));
  }
  return finish(std::move(o));
}

}  // namespace

Result<Outputs> ReferenceEvaluator::evaluate(const Node& n, const std::vector<const Value*>& in,
                                             const std::vector<const Value*>& outs) {
  if (outs.size() != 1) return Outputs();  // multi-output ops (Split, ...) are not folded here
  std::optional<OutBuf> o = make_out(outs[0]);
  if (!o) return Outputs();
  auto is_const = [&](size_t i) { return i < in.size() && in[i] && in[i]->is_constant(); };
  switch (n.op) {
    case OpType::kShape:
      if (in.empty() || !in[0] || !in[0]->shape || !in[0]->shape->is_static()) return Outputs();
      return eval_shape(n, in[0], std::move(*o));
    case OpType::kSize:
      if (in.empty() || !in[0] || !in[0]->shape || !in[0]->shape->is_static()) return Outputs();
      if (!in[0]->shape->numel() || o->numel != 1 || o->dtype != DType::kI64) return Outputs();
      store(DType::kI64, o->bytes.data(), 0, true, *in[0]->shape->numel(), 0);
      return finish(std::move(*o));
    case OpType::kIdentity:
    case OpType::kReshape:
    case OpType::kFlatten:
    case OpType::kSqueeze:
    case OpType::kUnsqueeze:
      if (!is_const(0)) return Outputs();
      return eval_view(in[0], std::move(*o));
    case OpType::kCast:
      if (!is_const(0)) return Outputs();
      return eval_cast(in[0], std::move(*o));
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
    case OpType::kEqual:
    case OpType::kLess:
    case OpType::kGreater:
    case OpType::kAnd:
      if (!is_const(0) || !is_const(1)) return Outputs();
      return eval_binary(n, in[0], in[1], std::move(*o));
    case OpType::kNeg:
    case OpType::kAbs:
    case OpType::kNot:
    case OpType::kSqrt:
      if (!is_const(0)) return Outputs();
      return eval_unary(n, in[0], std::move(*o));
    case OpType::kWhere:
      if (!is_const(0) || !is_const(1) || !is_const(2)) return Outputs();
      return eval_where(in[0], in[1], in[2], std::move(*o));
    case OpType::kExpand:
      if (!is_const(0)) return Outputs();
      return eval_expand(in[0], std::move(*o));
    case OpType::kConcat:
      for (size_t i = 0; i < in.size(); ++i)
        if (!is_const(i)) return Outputs();
      return eval_concat(n, in, std::move(*o));
    case OpType::kGather:
      if (!is_const(0) || !is_const(1)) return Outputs();
      return eval_gather(n, in[0], in[1], std::move(*o));
    case OpType::kTranspose:
      if (!is_const(0)) return Outputs();
      return eval_transpose(n, in[0], std::move(*o));
    case OpType::kSlice:
      for (size_t i = 0; i < in.size(); ++i)
        if (in[i] && !is_const(i)) return Outputs();
      if (in.size() < 3) return Outputs();
      return eval_slice(in, std::move(*o));
    case OpType::kConstantOfShape:
      return eval_constant_of_shape(n, std::move(*o));
    case OpType::kRange:
      if (!is_const(0) || !is_const(1) || !is_const(2)) return Outputs();
      return eval_range(in, std::move(*o));
    default:
      return Outputs();
  }
}

}  // namespace amp::graph
