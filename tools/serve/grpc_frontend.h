// The gRPC frontend of amp-serve: inference.GRPCInferenceService (grpc_service.proto) on
// gRPC's synchronous server. ModelInfer takes inputs as raw_input_contents (what tritonclient
// sends) or as typed contents, and answers with raw_output_contents, as Triton does.
//
// Status codes: INVALID_ARGUMENT for a bad request, NOT_FOUND for an unknown model,
// UNAVAILABLE while shutting down, RESOURCE_EXHAUSTED for a full queue or an oversized
// message, DEADLINE_EXCEEDED when the request's timeout (its "timeout" parameter, or the
// call's gRPC deadline, whichever is sooner) passes in the queue, INTERNAL for a backend
// failure. The message names the problem, as the REST frontend's does.
#pragma once

#include <memory>
#include <string>

#include "tools/serve/inference_service.h"

namespace grpc {
class Server;
}

namespace amp::serve {

struct GrpcOptions {
  std::string host = "0.0.0.0";
  int port = 8001;  // 0: pick a free port (see port())
  size_t max_message = 64u << 20;
  int max_threads = 64;
  int drain_timeout_s = 30;  // stop(): how long requests in flight may still take
};

class GrpcService;

class GrpcFrontend {
 public:
  // Binds and starts serving; throws amp::Error if the port cannot be bound.
  GrpcFrontend(InferenceService& service, GrpcOptions options);
  ~GrpcFrontend();  // stop()
  int port() const { return port_; }
  // Refuses new calls, lets the ones in flight finish (up to drain_timeout_s). Idempotent.
  void stop();

 private:
  std::unique_ptr<GrpcService> service_;
  std::unique_ptr<grpc::Server> server_;
  GrpcOptions options_;
  int port_ = 0;
};

}  // namespace amp::serve
