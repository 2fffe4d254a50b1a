#include "common/metrics/metrics_http_server.h"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <charconv>
#include <chrono>
#include <thread>

#include "common/log.h"
#include "common/metrics/metrics.h"

namespace labgate::metrics {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr size_t kMaxHeaderBytes = 8 * 1024;
constexpr auto kReadTimeout = std::chrono::seconds(10);
constexpr auto kWriteTimeout = std::chrono::seconds(10);
constexpr int kMaxOpen = 64;

// One connection: one request read, one response written, then closed.
class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(tcp::socket socket, std::shared_ptr<std::atomic<int>> open,
           const ReadinessCheck* readiness)
      : stream_(std::move(socket)),
        buffer_(kMaxHeaderBytes),
        open_(std::move(open)),
        readiness_(readiness) {}
  ~Exchange() { open_->fetch_sub(1); }

  void Start() {
    parser_.header_limit(kMaxHeaderBytes);
    stream_.expires_after(kReadTimeout);
    http::async_read(
        stream_, buffer_, parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (ec == beast::error::timeout || ec == http::error::end_of_stream) return Close();
    if (ec)
      return Send(http::status::bad_request, "application/json", R"({"error":"bad request"})",
                  false);
    const auto& request = parser_.get();
    const bool head = request.method() == http::verb::head;
    if (request.method() != http::verb::get && !head) {
      response_.set(http::field::allow, "GET, HEAD");
      return Send(http::status::method_not_allowed, "application/json",
                  R"({"error":"method not allowed"})", false);
    }
    std::string_view target(request.target().data(), request.target().size());
    target = target.substr(0, target.find('?'));
    if (target == "/metrics") return Send(http::status::ok, kContentType, Default().Render(), head);
    if (target == "/healthz" || target == "/health") {
      return Send(http::status::ok, "application/json", R"({"status":"ok"})", head);
    }
    if (target == "/readyz") {
      if (!*readiness_) {
        return Send(http::status::ok, "application/json", R"({"status":"ready"})", head);
      }
      Readiness ready = (*readiness_)();
      return Send(ready.ready ? http::status::ok : http::status::service_unavailable,
                  "application/json", std::move(ready.json), head);
    }
    Send(http::status::not_found, "application/json", R"({"error":"not found"})", head);
  }

  void Send(http::status status, const char* type, std::string body, bool head) {
    response_.result(status);
    response_.version(11);
    response_.set(http::field::content_type, type);
    response_.keep_alive(false);
    const size_t length = body.size();
    if (!head) response_.body() = std::move(body);
    response_.content_length(length);
    stream_.expires_after(kWriteTimeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code, size_t) { self->Close(); });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  http::request_parser<http::empty_body> parser_;
  http::response<http::string_body> response_;
  std::shared_ptr<std::atomic<int>> open_;
  const ReadinessCheck* readiness_;  // the server's, which outlives every exchange
};

}  // namespace

struct MetricsHttpServer::Impl {
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  std::shared_ptr<std::atomic<int>> open = std::make_shared<std::atomic<int>>(0);
  std::thread thread;
  uint16_t port = 0;
  ReadinessCheck readiness;

  void Accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
      if (!ec) {
        if (open->fetch_add(1) >= kMaxOpen) {
          open->fetch_sub(1);
          beast::error_code ignored;
          socket.close(ignored);  // over the cap: refused rather than queued
        } else {
          std::make_shared<Exchange>(std::move(socket), open, &readiness)->Start();
        }
      }
      Accept();
    });
  }
};

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& address, ReadinessCheck readiness) {
  std::string host = address;
  std::string port_text;
  if (!address.empty() && address.front() == '[') {
    const size_t close = address.find("]:");
    if (close == std::string::npos) {
      return absl::InvalidArgumentError("--metrics-listen: want [V6]:PORT, got '" + address + "'");
    }
    host = address.substr(1, close - 1);
    port_text = address.substr(close + 2);
  } else if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
    host = address.substr(0, colon);
    port_text = address.substr(colon + 1);
  }
  if (host == "localhost") host = "127.0.0.1";
  unsigned port = 0;
  auto [end, parse_error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (host.empty() || port_text.empty() || parse_error != std::errc() ||
      end != port_text.data() + port_text.size() || port > 65535) {
    return absl::InvalidArgumentError("--metrics-listen: bad HOST:PORT '" + address + "'");
  }
  auto impl = std::make_shared<Impl>();
  impl->readiness = std::move(readiness);
  beast::error_code ec;
  auto ip = asio::ip::make_address(host, ec);
  if (ec) return absl::InvalidArgumentError("--metrics-listen: bad address '" + host + "'");
  tcp::endpoint endpoint(ip, static_cast<uint16_t>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError("cannot serve metrics on " + address + ": " + ec.message());
  }
  impl->port = impl->acceptor.local_endpoint().port();
  impl->Accept();
  impl->thread = std::thread([raw = impl.get()] { raw->io.run(); });
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(impl)));
}

MetricsHttpServer::MetricsHttpServer(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsHttpServer::~MetricsHttpServer() {
  asio::post(impl_->io, [impl = impl_.get()] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
  });
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

uint16_t MetricsHttpServer::port() const { return impl_->port; }

}  // namespace labgate::metrics
