// _amprt: the C++ half of the Python package amprt (tools/python/amprt/ is the Python half,
// which users import). It binds the public C++ API one to one; the Python half turns the
// results into Python idioms (dicts, dataclasses, ml_dtypes).
//
// Threads: Engine.run and Context.run release the GIL while the model runs, so threads that
// share an Engine (each with its own Context, or Engine.run's pooled contexts) run in
// parallel. Errors: every amp::Error becomes the amprt error class of its code
// (amprt/_errors.py), with the message unchanged.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <initializer_list>
#include <new>

#include "amp/engine.h"
#include "amp/tensor_io.h"
#include "amp/version.h"
#include "tools/python/numpy_tensor.h"

namespace nb = nanobind;

namespace amp::python {
namespace {

// Raises the amprt._errors class for `code` with `message`.
void raise_error(ErrorCode code, const std::string& message) {
  nb::object errors = nb::module_::import_("amprt._errors");
  nb::object cls = errors.attr("error_class")(static_cast<int>(code));
  PyErr_SetString(cls.ptr(), message.c_str());
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    raise_error(e.code(), e.message());
  } catch (const std::bad_alloc&) {
    raise_error(ErrorCode::kOutOfMemory, "out of host memory");
  }
}

// Option `what`'s value as one of `choices`; otherwise an InvalidArgument naming them all
// ("backend 'tpu': expected auto, cpu or cuda").
template <typename T>
T choose(const char* what, const std::string& value,
         std::initializer_list<std::pair<const char*, T>> choices) {
  std::string expected;
  size_t i = 0;
  for (const auto& [name, v] : choices) {
    if (value == name) return v;
    expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + std::string(name);
    ++i;
  }
  throw Error(ErrorCode::kInvalidArgument,
              std::string(what) + " '" + value + "': expected " + expected);
}

Options make_options(const std::string& precision, const std::string& backend,
                     const std::optional<std::string>& policy,
                     const std::vector<std::string>& calibration, int threads,
                     bool emulate_low_precision, const std::string& precision_timing,
                     const std::map<std::string, double>& accuracy,
                     const std::map<std::string, std::vector<int64_t>>& input_shapes) {
  Options o;
  o.precision = choose<Precision>("precision", precision,
                                  {{"fp32", Precision::kFp32},
                                   {"fp16", Precision::kFp16},
                                   {"bf16", Precision::kBf16},
                                   {"auto", Precision::kAuto}});
  o.backend = choose<BackendKind>(
      "backend", backend,
      {{"auto", BackendKind::kAuto}, {"cpu", BackendKind::kCpu}, {"cuda", BackendKind::kCuda}});
  if (policy) o.policy_file = *policy;
  o.calibration_dirs = calibration;
  if (threads < 0) throw Error(ErrorCode::kInvalidArgument, "threads must be >= 0");
  o.threads = threads;
  o.emulate_low_precision = emulate_low_precision;
  o.precision_timing = choose<PrecisionTimingMode>("precision_timing", precision_timing,
                                                   {{"auto", PrecisionTimingMode::kAuto},
                                                    {"on", PrecisionTimingMode::kOn},
                                                    {"off", PrecisionTimingMode::kOff}});
  if (!accuracy.empty()) {
    AccuracyTarget target;
    for (const auto& [key, value] : accuracy) {
      if (key == "cosine")
        target.min_cosine = value;
      else if (key == "max_rel_err")
        target.max_rel_err = value;
      else
        throw Error(ErrorCode::kInvalidArgument,
                    "accuracy key '" + key + "': expected cosine and/or max_rel_err");
    }
    o.accuracy = target;
  }
  o.input_shapes = input_shapes;
  return o;
}

// Runs `run` on the dict's arrays, without the GIL; returns {output name: array}.
template <typename RunFn>
nb::dict run_dict(const Engine& engine, const nb::dict& inputs, const RunFn& run) {
  const std::vector<TensorInfo>& infos = engine.inputs();
  std::vector<InputArray> keep;  // the arrays stay referenced until the run is over
  keep.reserve(inputs.size());
  std::vector<NamedTensor> named;
  for (auto [key, value] : inputs) {
    if (!nb::isinstance<nb::str>(key))
      throw Error(ErrorCode::kInvalidInput, "input names must be strings");
    const std::string name = nb::cast<std::string>(key);
    const TensorInfo* info = nullptr;
    for (const TensorInfo& t : infos)
      if (t.name == name) info = &t;
    if (!info) {
      std::string names;
      for (const TensorInfo& t : infos) names += (names.empty() ? "'" : ", '") + t.name + "'";
      throw Error(ErrorCode::kInvalidInput,
                  "unknown input '" + name + "'; the model's inputs are " + names);
    }
    InputArray array;
    if (!nb::try_cast(value, array, /*convert=*/false))
      throw Error(ErrorCode::kInvalidInput,
                  "input '" + name + "': expected a numpy array of numbers or bools, got " +
                      nb::cast<std::string>(nb::str(value.type())) +
                      " (object and string arrays are not tensors)");
    keep.push_back(array);
    named.push_back({name, wrap_input(*info, keep.back())});
  }
  std::vector<Tensor> outs;
  {
    nb::gil_scoped_release released;
    outs = run(named);
  }
  nb::dict result;
  const std::vector<TensorInfo>& out_infos = engine.outputs();
  for (size_t i = 0; i < outs.size() && i < out_infos.size(); ++i)
    result[out_infos[i].name.c_str()] = to_numpy(outs[i]);
  return result;
}

// (name, dtype name, shape with -1 for symbolic dims, symbol per dim ("" if static))
nb::list tensor_infos(const std::vector<TensorInfo>& infos) {
  nb::list l;
  for (const TensorInfo& t : infos)
    l.append(nb::make_tuple(t.name, std::string(dtype_name(t.dtype)), t.shape, t.symbols));
  return l;
}

// An ExecutionContext with the Engine it came from (kept alive: the context uses its plan).
struct Context {
  Engine engine;
  ExecutionContext context;
};

}  // namespace
}  // namespace amp::python

NB_MODULE(_amprt, m) {
  using namespace amp;
  using namespace amp::python;
  m.doc() = "AMPRT's C++ API, bound one to one (import amprt instead)";
  nb::register_exception_translator(translate);
  m.def("version", [] { return std::string(amp::version()); });

  nb::class_<Engine>(m, "Engine")
      .def_static(
          "load",
          [](const std::string& path, const std::string& precision, const std::string& backend,
             const std::optional<std::string>& policy, const std::vector<std::string>& calibration,
             int threads, bool emulate_low_precision, const std::string& precision_timing,
             const std::map<std::string, double>& accuracy,
             const std::map<std::string, std::vector<int64_t>>& input_shapes) {
            Options o =
                make_options(precision, backend, policy, calibration, threads,
                             emulate_low_precision, precision_timing, accuracy, input_shapes);
            nb::gil_scoped_release released;  // loading plans and compiles: seconds
            return Engine::load(path, o);
          },
          nb::arg("path"), nb::arg("precision"), nb::arg("backend"), nb::arg("policy").none(),
          nb::arg("calibration"), nb::arg("threads"), nb::arg("emulate_low_precision"),
          nb::arg("precision_timing"), nb::arg("accuracy"), nb::arg("input_shapes"))
      .def("run",
           [](const Engine& e, const nb::dict& inputs) {
             return run_dict(e, inputs,
                             [&e](const std::vector<NamedTensor>& in) { return e.run(in); });
           })
      .def("create_context",
           [](const Engine& e) {
             return Context{e, e.create_context()};
           })
      .def("inputs", [](const Engine& e) { return tensor_infos(e.inputs()); })
      .def("outputs", [](const Engine& e) { return tensor_infos(e.outputs()); })
      .def("backend", [](const Engine& e) { return std::string(backend_kind_name(e.backend())); })
      .def("backend_note", &Engine::backend_note)
      .def("precision", [](const Engine& e) { return std::string(precision_name(e.precision())); })
      .def("precision_note", &Engine::precision_note)
      .def("device_name", &Engine::device_name)
      .def("precision_report_json", &Engine::precision_report_json)
      .def("policy_json", &Engine::policy_json)
      .def("plan_summary", &Engine::plan_summary)
      .def("memory",
           [](const Engine& e) {
             const MemoryReport r = e.memory();
             nb::dict d;
             d["weights_bytes"] = r.weights_bytes;
             d["weights_bytes_fp32"] = r.weights_bytes_fp32;
             d["arena_bytes"] = r.arena_bytes;
             d["lower_bound_bytes"] = r.lower_bound_bytes;
             d["io_outside_arena_bytes"] = r.io_outside_arena_bytes;
             d["workspace_bytes"] = r.workspace_bytes;
             d["packed_weights_bytes"] = r.packed_weights_bytes;
             d["model_file_released_bytes"] = r.model_file_released_bytes;
             return d;
           })
      .def("load_timings", [](const Engine& e) {
        const LoadTimings t = e.load_timings();
        nb::dict d;
        d["total_ms"] = t.total;
        d["verify_ms"] = t.verify;
        d["passes_ms"] = t.passes;
        d["amp_ms"] = t.amp;
        d["memory_ms"] = t.memory;
        d["upload_ms"] = t.upload;
        return d;
      });

  nb::class_<Context>(m, "Context").def("run", [](Context& c, const nb::dict& inputs) {
    return run_dict(c.engine, inputs,
                    [&c](const std::vector<NamedTensor>& in) { return c.context.run(in); });
  });

  // (array, dtype name): bf16 comes back as uint16 bit patterns, the name says so.
  m.def("load_tensor_pb", [](const std::string& path) {
    const Tensor t = load_tensor_pb(path);
    return nb::make_tuple(to_numpy(t), std::string(dtype_name(t.dtype())));
  });
  m.def(
      "save_tensor_pb",
      [](const std::string& path, const nb::ndarray<nb::ro, nb::device::cpu>& array,
         const std::string& dtype, const std::string& name) {
        const std::optional<DType> t = dtype_from_name(dtype);
        if (!t) throw Error(ErrorCode::kInvalidArgument, "unknown dtype '" + dtype + "'");
        TensorInfo info{name.empty() ? "tensor" : name, *t, {}, {}};
        save_tensor_pb(path, wrap_input(info, array), name);
      },
      nb::arg("path"), nb::arg("array"), nb::arg("dtype"), nb::arg("name") = "");
}
