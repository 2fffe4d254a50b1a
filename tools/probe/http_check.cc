#include "tools/probe/http_check.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "absl/strings/str_cat.h"

namespace labgate::probe {
namespace beast = boost::beast;

absl::Status CheckHttp(const std::string& url, std::chrono::milliseconds timeout) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("want an http:// URL, got '", url, "'"));
  }
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  std::string target = slash == std::string::npos ? "/" : rest.substr(slash);
  std::string host = authority;
  std::string port = "80";
  if (size_t colon = authority.rfind(':');
      colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.size() > 1 && host.front() == '[') host = host.substr(1, host.size() - 2);
  if (host.empty()) return absl::InvalidArgumentError(absl::StrCat("no host in '", url, "'"));

  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  stream.expires_after(timeout);
  beast::error_code error;
  boost::asio::ip::tcp::resolver resolver(io);
  auto endpoints = resolver.resolve(host, port, error);
  if (error) return absl::UnavailableError(absl::StrCat(url, ": ", error.message()));
  stream.connect(endpoints, error);
  if (error) return absl::UnavailableError(absl::StrCat(url, ": ", error.message()));
  beast::http::request<beast::http::empty_body> request(beast::http::verb::get, target, 11);
  request.set(beast::http::field::host, authority);
  request.set(beast::http::field::user_agent, "labgate-probe");
  beast::http::write(stream, request, error);
  if (error) return absl::UnavailableError(absl::StrCat(url, ": ", error.message()));
  beast::flat_buffer buffer;
  beast::http::response<beast::http::string_body> response;
  beast::http::read(stream, buffer, response, error);
  if (error) return absl::UnavailableError(absl::StrCat(url, ": ", error.message()));
  const unsigned code = response.result_int();
  if (code < 200 || code > 299) {
    return absl::UnavailableError(absl::StrCat(url, ": HTTP ", code, " ", response.body()));
  }
  return absl::OkStatus();
}

}  // namespace labgate::probe
