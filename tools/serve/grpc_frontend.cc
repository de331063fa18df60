#include "tools/serve/grpc_frontend.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include <chrono>
#include <cstring>

#include "amp/version.h"
#include "runtime/common/half.h"
#include "tools/serve/grpc_service.grpc.pb.h"
#include "tools/serve/serve_error.h"
#include "tools/serve/v2_metadata.h"

namespace amp::serve {
namespace {

grpc::StatusCode grpc_code(ServeStatus s) {
  switch (s) {
    case ServeStatus::kOk:
      return grpc::StatusCode::OK;
    case ServeStatus::kBadRequest:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case ServeStatus::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case ServeStatus::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case ServeStatus::kOverloaded:
    case ServeStatus::kPayloadTooLarge:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ServeStatus::kTimeout:
      return grpc::StatusCode::DEADLINE_EXCEEDED;
    case ServeStatus::kInternal:
      return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::INTERNAL;
}

// Runs `body`, turning every failure into a gRPC status naming it.
template <typename F>
grpc::Status guarded(F&& body) {
  try {
    body();
    return grpc::Status::OK;
  } catch (const ServeError& e) {
    return {grpc_code(e.status()), e.what()};
  } catch (const Error& e) {
    return {grpc_code(serve_status_of(e.code())), e.message()};
  } catch (const std::bad_alloc&) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory while handling the request"};
  } catch (const std::exception& e) {
    return {grpc::StatusCode::INTERNAL, e.what()};
  }
}

[[noreturn]] void bad(const std::string& message) {
  throw ServeError(ServeStatus::kBadRequest, message);
}

inference::DataType config_type(DType t) {
  inference::DataType d = inference::TYPE_INVALID;
  inference::DataType_Parse(std::string(triton_config_type(t)), &d);
  return d;
}

void fill_tensor_metadata(const TensorInfo& t,
                          inference::ModelMetadataResponse::TensorMetadata* m) {
  m->set_name(t.name);
  m->set_datatype(std::string(v2_datatype(t.dtype)));
  for (int64_t d : metadata_shape(t)) m->add_shape(d);
}

// Copies a typed contents field into `t`, element by element, after checking its count.
template <typename Field, typename Elem>
void copy_contents(const Field& field, int64_t numel, Tensor& t, const std::string& where,
                   const char* field_name) {
  if (static_cast<int64_t>(field.size()) != numel)
    bad(where + ": contents." + field_name + " holds " + std::to_string(field.size()) +
        " values, its shape needs " + std::to_string(numel));
  Elem* out = static_cast<Elem*>(t.raw_data());
  for (int64_t i = 0; i < numel; ++i) out[i] = static_cast<Elem>(field.Get(static_cast<int>(i)));
}

Tensor tensor_from_contents(const inference::InferTensorContents& c, DType dtype,
                            const std::vector<int64_t>& shape, int64_t numel,
                            const std::string& where) {
  Tensor t = Tensor::empty(dtype, shape);
  switch (dtype) {
    case DType::kBool:
      copy_contents<decltype(c.bool_contents()), bool>(c.bool_contents(), numel, t, where,
                                                       "bool_contents");
      break;
    case DType::kU8:
      for (uint32_t v : c.uint_contents())
        if (v > 255) bad(where + ": uint_contents value " + std::to_string(v) + " exceeds UINT8");
      copy_contents<decltype(c.uint_contents()), uint8_t>(c.uint_contents(), numel, t, where,
                                                          "uint_contents");
      break;
    case DType::kI8:
    case DType::kI16:
      for (int32_t v : c.int_contents())
        if ((dtype == DType::kI8 && (v < -128 || v > 127)) ||
            (dtype == DType::kI16 && (v < -32768 || v > 32767)))
          bad(where + ": int_contents value " + std::to_string(v) + " is out of range");
      if (dtype == DType::kI8)
        copy_contents<decltype(c.int_contents()), int8_t>(c.int_contents(), numel, t, where,
                                                          "int_contents");
      else
        copy_contents<decltype(c.int_contents()), int16_t>(c.int_contents(), numel, t, where,
                                                           "int_contents");
      break;
    case DType::kI32:
      copy_contents<decltype(c.int_contents()), int32_t>(c.int_contents(), numel, t, where,
                                                         "int_contents");
      break;
    case DType::kI64:
      copy_contents<decltype(c.int64_contents()), int64_t>(c.int64_contents(), numel, t, where,
                                                           "int64_contents");
      break;
    case DType::kF32:
      copy_contents<decltype(c.fp32_contents()), float>(c.fp32_contents(), numel, t, where,
                                                        "fp32_contents");
      break;
    case DType::kF64:
      copy_contents<decltype(c.fp64_contents()), double>(c.fp64_contents(), numel, t, where,
                                                         "fp64_contents");
      break;
    default:
      bad(where + ": " + std::string(v2_datatype(dtype)) +
          " inputs must come as raw_input_contents (the protocol has no typed field for them)");
  }
  return t;
}

InferRequest request_from_proto(const inference::ModelInferRequest& req, const ServedModel& model,
                                const grpc::ServerContext& ctx) {
  InferRequest r;
  r.id = req.id();
  const bool raw = req.raw_input_contents_size() > 0;
  if (raw && req.raw_input_contents_size() != req.inputs_size())
    bad(std::to_string(req.raw_input_contents_size()) + " raw_input_contents for " +
        std::to_string(req.inputs_size()) + " inputs (raw contents need one per input)");
  for (int i = 0; i < req.inputs_size(); ++i) {
    const auto& in = req.inputs(i);
    const std::string where = "input '" + in.name() + "'";
    const std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
    const CheckedInput checked = check_input(model.engine().inputs(), in.name(), in.datatype(),
                                             shape, model.config().batching.max_batch_size);
    if (raw) {
      const std::string& bytes = req.raw_input_contents(i);
      if (bytes.size() != checked.bytes)
        bad(where + ": raw_input_contents has " + std::to_string(bytes.size()) +
            " bytes, its shape and " + in.datatype() + " need " + std::to_string(checked.bytes));
      r.inputs.push_back(
          {in.name(), Tensor::from_bytes(checked.dtype, shape, bytes.data(), checked.bytes)});
    } else {
      r.inputs.push_back({in.name(), tensor_from_contents(in.contents(), checked.dtype, shape,
                                                          checked.numel, where)});
    }
  }
  for (const auto& o : req.outputs()) r.outputs.push_back({o.name(), false});
  if (auto it = req.parameters().find("timeout"); it != req.parameters().end()) {
    if (it->second.parameter_choice_case() != inference::InferParameter::kInt64Param)
      bad("parameter \"timeout\" must be an int64 (microseconds)");
    r.timeout_us = it->second.int64_param();
  }
  // The call's own deadline bounds the wait too: past it, nobody reads the answer.
  const auto left = ctx.deadline() - std::chrono::system_clock::now();
  if (ctx.deadline() != std::chrono::system_clock::time_point::max() &&
      left < std::chrono::hours(24 * 365)) {
    const int64_t us =
        std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::microseconds>(left).count());
    if (!r.timeout_us || *r.timeout_us == 0 || *r.timeout_us > us) r.timeout_us = us;
  }
  return r;
}

}  // namespace

class GrpcService final : public inference::GRPCInferenceService::Service {
 public:
  explicit GrpcService(InferenceService& svc) : svc_(svc) {}

  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* resp) override {
    resp->set_live(true);
    return grpc::Status::OK;
  }
  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* resp) override {
    resp->set_ready(svc_.ready());
    return grpc::Status::OK;
  }
  grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* req,
                          inference::ModelReadyResponse* resp) override {
    return guarded([&] {
      svc_.model(req->name(), req->version());
      resp->set_ready(svc_.ready());
    });
  }
  grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* resp) override {
    resp->set_name(kServerName);
    resp->set_version(amp::version());
    for (const std::string& e : server_extensions()) resp->add_extensions(e);
    return grpc::Status::OK;
  }
  grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* req,
                             inference::ModelMetadataResponse* resp) override {
    return guarded([&] {
      const ServedModel& m = svc_.model(req->name(), req->version());
      resp->set_name(m.config().name);
      resp->add_versions("1");
      resp->set_platform(kPlatform);
      for (const TensorInfo& t : m.engine().inputs()) fill_tensor_metadata(t, resp->add_inputs());
      for (const TensorInfo& t : m.engine().outputs()) fill_tensor_metadata(t, resp->add_outputs());
    });
  }
  grpc::Status ModelConfig(grpc::ServerContext*, const inference::ModelConfigRequest* req,
                           inference::ModelConfigResponse* resp) override {
    return guarded([&] {
      const ServedModel& m = svc_.model(req->name(), req->version());
      const serve::ModelConfig& c = m.config();
      const int mbs = c.batching.max_batch_size;
      inference::ModelConfig* cfg = resp->mutable_config();
      cfg->set_name(c.name);
      cfg->set_platform(kPlatform);
      cfg->set_backend(kPlatform);
      cfg->set_max_batch_size(mbs);
      for (const TensorInfo& t : m.engine().inputs()) {
        inference::ModelInput* in = cfg->add_input();
        in->set_name(t.name);
        in->set_data_type(config_type(t.dtype));
        for (int64_t d : config_dims(t, mbs)) in->add_dims(d);
      }
      for (const TensorInfo& t : m.engine().outputs()) {
        inference::ModelOutput* out = cfg->add_output();
        out->set_name(t.name);
        out->set_data_type(config_type(t.dtype));
        for (int64_t d : config_dims(t, mbs)) out->add_dims(d);
      }
      inference::ModelInstanceGroup* g = cfg->add_instance_group();
      g->set_name(c.name);
      g->set_count(c.batching.instances);
      g->set_kind(m.engine().backend() == BackendKind::kCuda
                      ? inference::ModelInstanceGroup::KIND_GPU
                      : inference::ModelInstanceGroup::KIND_CPU);
      if (mbs > 0) {
        inference::ModelDynamicBatching* b = cfg->mutable_dynamic_batching();
        for (int p : c.batching.preferred_batch_sizes) b->add_preferred_batch_size(p);
        b->set_max_queue_delay_microseconds(
            static_cast<uint64_t>(c.batching.max_queue_delay.count()));
      }
    });
  }
  grpc::Status ModelInfer(grpc::ServerContext* ctx, const inference::ModelInferRequest* req,
                          inference::ModelInferResponse* resp) override {
    return guarded([&] {
      InferResult r =
          svc_.infer(req->model_name(), req->model_version(),
                     [&](const ServedModel& m) { return request_from_proto(*req, m, *ctx); });
      resp->set_model_name(r.model);
      resp->set_model_version("1");
      resp->set_id(r.id);
      for (const NamedTensor& o : r.outputs) {
        auto* t = resp->add_outputs();
        t->set_name(o.name);
        t->set_datatype(std::string(v2_datatype(o.tensor.dtype())));
        for (int64_t d : o.tensor.shape()) t->add_shape(d);
        resp->add_raw_output_contents(static_cast<const char*>(o.tensor.raw_data()),
                                      o.tensor.byte_size());
      }
    });
  }

 private:
  InferenceService& svc_;
};

GrpcFrontend::GrpcFrontend(InferenceService& service, GrpcOptions options)
    : service_(std::make_unique<GrpcService>(service)), options_(std::move(options)) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.host + ":" + std::to_string(options_.port),
                           grpc::InsecureServerCredentials(), &port_);
  builder.SetMaxReceiveMessageSize(
      static_cast<int>(std::min<size_t>(options_.max_message, INT32_MAX)));
  builder.SetMaxSendMessageSize(INT32_MAX);
  grpc::ResourceQuota quota("amp-serve");
  quota.SetMaxThreads(std::max(2, options_.max_threads));
  builder.SetResourceQuota(quota);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || port_ <= 0)
    throw Error(ErrorCode::kInvalidArgument,
                "cannot listen for gRPC on " + options_.host + ":" + std::to_string(options_.port));
}

GrpcFrontend::~GrpcFrontend() {
  stop();
}

void GrpcFrontend::stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() +
                    std::chrono::seconds(options_.drain_timeout_s));
  server_->Wait();
  server_.reset();
}

}  // namespace amp::serve
