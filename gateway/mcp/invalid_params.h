// -32602 with data {reason, field}, so that a client can tell which field was wrong.
#pragma once

#include <string_view>

#include "absl/strings/string_view.h"
#include "common/status_map.h"
#include "gateway/core/reply_once.h"

namespace labgate::gateway {

inline void InvalidParams(ReplyOnce& reply, absl::string_view field, absl::string_view reason) {
  reply.Error(jsonrpc_code::kInvalidParams, reason,
              {{"reason", std::string(reason)}, {"field", std::string(field)}});
}

}  // namespace labgate::gateway
