// amp-serve: serves the models of a model repository over the Open Inference Protocol
// (KServe v2 / Triton): REST, gRPC, and Prometheus metrics.
//
//   amp-serve --model-repository DIR [--http-port 8000] [--grpc-port 8001]   (or --flag=value)
//             [--metrics-port 8002] [--host 0.0.0.0] [--http-threads 64]
//             [--max-body-mb 64] [--request-timeout-ms 0]
//
// A port of 0 picks a free one; -1 turns that endpoint off. Once every model is loaded it
// prints one line "amp-serve: listening http=P grpc=P metrics=P" (scripts wait for it).
// SIGTERM or SIGINT: the server stops being ready, refuses new requests, answers every
// request already accepted, and exits 0.
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "tools/serve/http_frontend.h"
#include "tools/serve/inference_service.h"
#ifdef AMP_SERVE_WITH_GRPC
#include "tools/serve/grpc_frontend.h"
#endif

namespace {

struct Args {
  std::string repository;
  std::string host = "0.0.0.0";
  int http_port = 8000, grpc_port = 8001, metrics_port = 8002;
  int http_threads = 64;
  int64_t max_body_mb = 64;
  int64_t request_timeout_ms = 0;
};

[[noreturn]] void usage(const std::string& why) {
  std::cerr << "amp-serve: " << why << "\n"
            << "usage: amp-serve --model-repository DIR [--http-port 8000] [--grpc-port 8001]\n"
               "                 [--metrics-port 8002] [--host 0.0.0.0] [--http-threads 64]\n"
               "                 [--max-body-mb 64] [--request-timeout-ms 0]\n"
               "  a port of 0 picks a free one, -1 turns the endpoint off\n";
  std::exit(2);
}

int64_t integer(const std::string& flag, const std::string& value, int64_t lo, int64_t hi) {
  try {
    size_t used = 0;
    const int64_t v = std::stoll(value, &used);
    if (used == value.size() && v >= lo && v <= hi) return v;
  } catch (const std::exception&) {
  }
  usage(flag + " " + value + ": expected an integer in " + std::to_string(lo) + ".." +
        std::to_string(hi));
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    // "--flag value" or "--flag=value" (what container args usually use).
    std::string flag = argv[i];
    std::optional<std::string> inline_value;
    if (const size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    if (flag == "--help" || flag == "-h") usage("help");
    if (!inline_value && i + 1 >= argc) usage(flag + " needs a value");
    const std::string v = inline_value ? *inline_value : argv[++i];
    if (flag == "--model-repository")
      a.repository = v;
    else if (flag == "--host")
      a.host = v;
    else if (flag == "--http-port")
      a.http_port = static_cast<int>(integer(flag, v, -1, 65535));
    else if (flag == "--grpc-port")
      a.grpc_port = static_cast<int>(integer(flag, v, -1, 65535));
    else if (flag == "--metrics-port")
      a.metrics_port = static_cast<int>(integer(flag, v, -1, 65535));
    else if (flag == "--http-threads")
      a.http_threads = static_cast<int>(integer(flag, v, 1, 4096));
    else if (flag == "--max-body-mb")
      a.max_body_mb = integer(flag, v, 1, 1 << 16);
    else if (flag == "--request-timeout-ms")
      a.request_timeout_ms = integer(flag, v, 0, int64_t{1} << 40);
    else
      usage("unknown flag " + flag);
  }
  if (a.repository.empty()) usage("--model-repository is required");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  // Every thread started from here on inherits the blocked signals; the main thread takes
  // them synchronously with sigwait, so shutdown runs as ordinary code, not in a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server

  try {
    amp::serve::ServiceOptions service_options;
    service_options.default_timeout = std::chrono::milliseconds(args.request_timeout_ms);
    amp::serve::InferenceService service(
        amp::serve::scan_model_repository(args.repository), service_options,
        [](const std::string& line) { std::cout << "amp-serve: " << line << std::endl; });
    if (service.model_names().empty())
      std::cout << "amp-serve: warning: no model folders in " << args.repository << std::endl;

    amp::serve::HttpOptions http;
    http.host = args.host;
    http.threads = args.http_threads;
    http.max_body = static_cast<size_t>(args.max_body_mb) << 20;
    std::unique_ptr<amp::serve::HttpFrontend> rest, metrics;
    if (args.http_port >= 0) {
      http.port = args.http_port;
      rest = std::make_unique<amp::serve::HttpFrontend>(service, http);
    }
    if (args.metrics_port >= 0) {
      amp::serve::HttpOptions m = http;
      m.port = args.metrics_port;
      m.threads = 2;
      metrics = std::make_unique<amp::serve::HttpFrontend>(service, m, /*metrics_only=*/true);
    }
#ifdef AMP_SERVE_WITH_GRPC
    std::unique_ptr<amp::serve::GrpcFrontend> grpc;
    if (args.grpc_port >= 0) {
      amp::serve::GrpcOptions g;
      g.host = args.host;
      g.port = args.grpc_port;
      g.max_message = http.max_body;
      grpc = std::make_unique<amp::serve::GrpcFrontend>(service, g);
    }
    const int grpc_port = grpc ? grpc->port() : -1;
#else
    const int grpc_port = -1;
    if (args.grpc_port >= 0)
      std::cout << "amp-serve: gRPC not built (libgrpc++-dev missing at configure time)"
                << std::endl;
#endif
    std::cout << "amp-serve: listening http=" << (rest ? rest->port() : -1) << " grpc=" << grpc_port
              << " metrics=" << (metrics ? metrics->port() : -1) << std::endl;

    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::cout << "amp-serve: " << (sig == SIGTERM ? "SIGTERM" : "SIGINT")
              << ": draining requests in flight" << std::endl;
    service.begin_shutdown();
    if (rest) rest->stop();
#ifdef AMP_SERVE_WITH_GRPC
    if (grpc) grpc->stop();
#endif
    service.stop();
    if (metrics) metrics->stop();
    std::cout << "amp-serve: stopped; " << service.answered() << " requests answered" << std::endl;
    return 0;
  } catch (const amp::Error& e) {
    std::cerr << "amp-serve: " << e.what() << std::endl;
    return 1;
  }
}
