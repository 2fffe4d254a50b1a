// Command-line flags of the HTTP transport, kept beside it so main.cc only asks
// whether HTTP is on and starts it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "gateway/http/http_server.h"

namespace labgate::gateway::http {

// True when --http was given.
bool HttpRequested();

// Validates the HTTP flags and reads --auth-token-file (also for --check-config).
absl::StatusOr<HttpOptions> HttpOptionsFromFlags();
// The same settings for the operator listener on --metrics-listen (operator_only).
absl::StatusOr<HttpOptions> OperatorHttpOptionsFromFlags();

// Builds options from the flags, starts the server, prints "labgate listening on
// http://HOST:PORT/mcp" to stderr and writes --http-port-file. Connections are spread over
// `connection_contexts` when there are any (HttpServer::SetConnectionContexts).
absl::StatusOr<std::unique_ptr<HttpServer>> StartHttpFromFlags(
    boost::asio::io_context& io, const McpServer* server, ReadinessProbe readiness,
    stateless::StatelessDialect* stateless_dialect,
    std::vector<boost::asio::io_context*> connection_contexts = {});

// With --metrics-listen: the operator routes (/metrics, /healthz, /readyz; no MCP) there,
// under the same bearer tokens; prints where to stderr and writes --metrics-port-file.
// Null without the flag. A stdio-only gateway can be scraped this way.
absl::StatusOr<std::unique_ptr<HttpServer>> StartOperatorHttpFromFlags(boost::asio::io_context& io,
                                                                       const McpServer* server,
                                                                       ReadinessProbe readiness);

// "HOST:PORT", ":PORT" or "PORT" (host 127.0.0.1), "[::1]:PORT".
absl::Status ParseListenAddress(const std::string& text, HttpOptions* options);

}  // namespace labgate::gateway::http
