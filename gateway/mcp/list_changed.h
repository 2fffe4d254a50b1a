// The notification method for each kind of list change.
#pragma once

#include "gateway/mcp/providers.h"

namespace labgate::gateway {

inline const char* ListChangedMethod(ListKind kind) {
  switch (kind) {
    case ListKind::kTools:
      return "notifications/tools/list_changed";
    case ListKind::kResources:
      return "notifications/resources/list_changed";
    case ListKind::kPrompts:
      return "notifications/prompts/list_changed";
  }
  return "";
}

}  // namespace labgate::gateway
