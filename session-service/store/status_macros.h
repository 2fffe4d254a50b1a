// Early-return helpers for absl::Status plumbing inside the store.
#pragma once

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define LG_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status lg_status_ = (expr);      \
    if (!lg_status_.ok()) return lg_status_; \
  } while (false)

#define LG_CONCAT_INNER(a, b) a##b
#define LG_CONCAT(a, b) LG_CONCAT_INNER(a, b)

#define LG_ASSIGN_OR_RETURN(lhs, expr) \
  LG_ASSIGN_OR_RETURN_IMPL(LG_CONCAT(lg_statusor_, __LINE__), lhs, expr)
#define LG_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                             \
  if (!statusor.ok()) return statusor.status();       \
  lhs = std::move(statusor).value()
