// How the console's JSON endpoints answer: a JSON body, never cached; errors as
// {"error": "..."} with an HTTP status derived from the backend's status code.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "absl/status/status.h"
#include "gateway/http/http_connection.h"

namespace labgate::gateway::console {

void RespondJson(const std::shared_ptr<http::HttpConnection>& connection, int status,
                 const nlohmann::json& body, http::HeaderList headers = {});
void RespondError(const std::shared_ptr<http::HttpConnection>& connection, int status,
                  std::string_view message, http::HeaderList headers = {});
// 404 NOT_FOUND, 400 INVALID_ARGUMENT, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED, 502 otherwise.
int HttpStatusOf(const absl::Status& status);
// Answers a backend failure with its status and message.
void RespondStatus(const std::shared_ptr<http::HttpConnection>& connection,
                   const absl::Status& status);

}  // namespace labgate::gateway::console
