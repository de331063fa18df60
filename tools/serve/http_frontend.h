// The REST frontend of amp-serve (Open Inference Protocol / KServe v2 over HTTP/1.1, on
// cpp-httplib), and the metrics endpoint:
//
//   GET  /v2/health/live, /v2/health/ready, /v2
//   GET  /v2/models/{m}[/versions/{v}], .../ready, .../config
//   POST /v2/models/{m}[/versions/{v}]/infer      JSON, or JSON + binary tensor data
//   POST /v2/repository/index
//   GET  /metrics                                 (its own port: Prometheus text)
//
// Errors are {"error": "..."} with the status of the ServeError (400 bad request, 404
// unknown model or route, 413 over the body cap, 503 full queue or shutting down, 504
// timeout, 500 backend failure). Each connection is served by one thread of a fixed pool,
// so the pool's size bounds the requests being parsed at once; the batcher's queue bounds
// the rest.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "tools/serve/inference_service.h"

namespace httplib {
class Server;
}

namespace amp::serve {

struct HttpOptions {
  std::string host = "0.0.0.0";
  int port = 8000;   // 0: pick a free port (see port())
  int threads = 64;  // connection threads: at least the clients' concurrency
  size_t max_body = 64u << 20;
  // An idle keep-alive connection is closed after this long. httplib notices a stop() only
  // between requests, so SIGTERM waits up to this long for idle connections: keep it short.
  int keep_alive_s = 5;
};

class HttpFrontend {
 public:
  // Binds the port (throws amp::Error if it cannot) and serves on a background thread.
  // `metrics_only`: serve only GET /metrics (the --metrics-port server).
  HttpFrontend(InferenceService& service, HttpOptions options, bool metrics_only = false);
  ~HttpFrontend();  // stop()
  int port() const { return port_; }
  // Stops accepting, lets the requests in flight finish, joins. Idempotent.
  void stop();

 private:
  void add_v2_routes();

  InferenceService& service_;
  HttpOptions options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace amp::serve
