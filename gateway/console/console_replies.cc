#include "gateway/console/console_replies.h"

#include "gateway/jsonrpc/message.h"

namespace labgate::gateway::console {

void RespondJson(const std::shared_ptr<http::HttpConnection>& connection, int status,
                 const nlohmann::json& body, http::HeaderList headers) {
  headers.push_back({"Content-Type", "application/json"});
  headers.push_back({"Cache-Control", "no-store"});
  connection->Respond(status, std::move(headers), jsonrpc::DumpJson(body));
}

void RespondError(const std::shared_ptr<http::HttpConnection>& connection, int status,
                  std::string_view message, http::HeaderList headers) {
  RespondJson(connection, status, {{"error", message}}, std::move(headers));
}

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 502;
  }
}

void RespondStatus(const std::shared_ptr<http::HttpConnection>& connection,
                   const absl::Status& status) {
  RespondError(connection, HttpStatusOf(status), std::string(status.message()));
}

}  // namespace labgate::gateway::console
