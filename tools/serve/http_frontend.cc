#include "tools/serve/http_frontend.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "tools/serve/serve_error.h"
#include "tools/serve/v2_json_codec.h"
#include "tools/serve/v2_metadata.h"

namespace amp::serve {
namespace {

constexpr const char* kJson = "application/json";
// /v2/models/{name}[/versions/{version}], then the suffix the route adds.
constexpr const char* kModelPrefix = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";

void send_error(httplib::Response& res, ServeStatus status, const std::string& message) {
  res.status = http_status(status);
  res.set_content(error_json(message), kJson);
}

// Runs `body`, turning every failure into a protocol error response.
template <typename F>
void guarded(httplib::Response& res, F&& body) {
  try {
    body();
  } catch (const ServeError& e) {
    send_error(res, e.status(), e.what());
  } catch (const Error& e) {
    send_error(res, serve_status_of(e.code()), e.message());
  } catch (const std::bad_alloc&) {
    send_error(res, ServeStatus::kOverloaded, "out of memory while handling the request");
  } catch (const std::exception& e) {
    send_error(res, ServeStatus::kInternal, e.what());
  }
}

std::string match(const httplib::Request& req, size_t i) {
  return i < req.matches.size() ? std::string(req.matches[i]) : std::string();
}

}  // namespace

HttpFrontend::HttpFrontend(InferenceService& service, HttpOptions options, bool metrics_only)
    : service_(service),
      options_(std::move(options)),
      server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  const int threads = std::max(1, options_.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_payload_max_length(options_.max_body);
  s.set_keep_alive_max_count(1u << 20);
  s.set_keep_alive_timeout(options_.keep_alive_s);
  // httplib writes a response's headers and body separately; with Nagle's algorithm the
  // body then waits for the client's delayed ACK (40 ms a request). Accepted sockets inherit
  // TCP_NODELAY from the listening one.
  s.set_socket_options([](int sock) {
    httplib::default_socket_options(sock);
    const int one = 1;
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  });
  // Statuses httplib sets itself (404 no route, 413 over the cap, 400 unreadable request)
  // get the protocol's error body too.
  s.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string why = "request failed";
    if (res.status == 404) why = "no route " + req.method + " " + req.path;
    if (res.status == 413)
      why = "the request body exceeds the server's cap of " + std::to_string(options_.max_body) +
            " bytes";
    if (res.status == 400) why = "malformed HTTP request";
    res.set_content(error_json(why), kJson);
  });
  if (metrics_only) {
    s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(service_.metrics_text(), "text/plain; version=0.0.4");
    });
  } else {
    add_v2_routes();
  }
  port_ = options_.port == 0 ? s.bind_to_any_port(options_.host)
                             : (s.bind_to_port(options_.host, options_.port) ? options_.port : -1);
  if (port_ <= 0)
    throw Error(ErrorCode::kInvalidArgument,
                "cannot listen on " + options_.host + ":" + std::to_string(options_.port));
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

HttpFrontend::~HttpFrontend() {
  stop();
}

void HttpFrontend::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();  // listen_after_bind returns once the pool has finished its requests
}

void HttpFrontend::add_v2_routes() {
  httplib::Server& s = *server_;
  InferenceService& svc = service_;
  s.Get("/v2/health/live",
        [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  s.Get("/v2/health/ready", [&svc](const httplib::Request&, httplib::Response& res) {
    if (!svc.ready()) send_error(res, ServeStatus::kUnavailable, "the server is shutting down");
  });
  s.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(server_metadata_json(), kJson);
  });
  s.Get(kModelPrefix, [&svc](const httplib::Request& req, httplib::Response& res) {
    guarded(res, [&] {
      res.set_content(model_metadata_json(svc.model(match(req, 1), match(req, 2))), kJson);
    });
  });
  s.Get(std::string(kModelPrefix) + "/ready",
        [&svc](const httplib::Request& req, httplib::Response& res) {
          guarded(res, [&] {
            svc.model(match(req, 1), match(req, 2));
            if (!svc.ready())
              send_error(res, ServeStatus::kUnavailable, "the server is shutting down");
          });
        });
  s.Get(std::string(kModelPrefix) + "/config",
        [&svc](const httplib::Request& req, httplib::Response& res) {
          guarded(res, [&] {
            res.set_content(model_config_json(svc.model(match(req, 1), match(req, 2))), kJson);
          });
        });
  s.Post("/v2/repository/index", [&svc](const httplib::Request&, httplib::Response& res) {
    res.set_content(repository_index_json(svc.model_names()), kJson);
  });
  // A handler that reads the body itself: httplib reads it for the others and then refuses a
  // body sent as application/x-www-form-urlencoded (what `curl -d @request.json` sends
  // without -H 'Content-Type: application/json') over 8 KiB with a 413. Triton reads the
  // body whatever its content type, and so does this; the body cap still applies.
  s.Post(std::string(kModelPrefix) + "/infer", [&svc](const httplib::Request& req,
                                                      httplib::Response& res,
                                                      const httplib::ContentReader& reader) {
    std::string body;
    const bool read = reader([&body](const char* data, size_t length) {
      body.append(data, length);
      return true;
    });
    if (!read) {  // over the cap (httplib set 413) or cut short; the error handler says which
      if (res.status < 400) res.status = 400;
      return;
    }
    guarded(res, [&] {
      std::optional<size_t> header_length;
      if (req.has_header("Inference-Header-Content-Length"))
        header_length =
            parse_header_length(req.get_header_value("Inference-Header-Content-Length"));
      const InferResult r = svc.infer(match(req, 1), match(req, 2), [&](const ServedModel& m) {
        return parse_infer_request(body, header_length, m.engine().inputs(),
                                   m.config().batching.max_batch_size);
      });
      EncodedResponse e = encode_infer_response(r.model, r.id, r.outputs, r.binary);
      if (e.header_length) {
        res.set_header("Inference-Header-Content-Length", std::to_string(*e.header_length));
        res.set_content(std::move(e.body), "application/octet-stream");
      } else {
        res.set_content(std::move(e.body), kJson);
      }
    });
  });
}

}  // namespace amp::serve
