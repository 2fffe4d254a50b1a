// labgate-probe http: GETs a URL (e.g. the gateway's /readyz) and wants a 2xx.
#pragma once

#include <chrono>
#include <string>

#include "absl/status/status.h"

namespace labgate::probe {

// Only http:// URLs: the gateway's health endpoints are checked from beside it.
absl::Status CheckHttp(const std::string& url, std::chrono::milliseconds timeout);

}  // namespace labgate::probe
