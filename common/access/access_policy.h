// Who may do what: the access file (--access-file, JSON). Each principal, named as the
// gateway names it (a bearer token's name, "local", "stdio") or as labgate-serial names a
// direct caller, has a role and permissions; "default" covers every principal not named.
// Without an entry and without "default", a principal may do nothing.
//
//   {"principals": {"student": {"role": "viewer", "tools": ["list_*", "read", "query"],
//                               "ports": ["dmm-*"]},
//                   "alice":   {"role": "operator", "benches": ["lab-a"]},
//                   "root":    {"role": "admin"}},
//    "default": {"role": "viewer"}}
//
// Roles:
// - viewer: read-only (only tools whose readOnlyHint is true), never approves, no console
//   actions;
// - operator: what its permissions allow, approves the confirm rules in may_approve (default
//   all), and may act from the console;
// - admin: everything, unrestricted (an admin entry may not list permissions).
// Permissions are glob lists (fnmatch: `*`, `?`, `[...]`); an absent list allows all:
// tools, benches, ports (port or instrument names), may_approve (confirm rule names), and
// read_only (an operator limited to read-only tools).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace labgate::access {

enum class Role { kViewer, kOperator, kAdmin };

std::string_view RoleName(Role role);

struct Grant {
  Role role = Role::kViewer;
  std::optional<std::vector<std::string>> tools;  // none: every tool
  std::optional<std::vector<std::string>> benches;
  std::optional<std::vector<std::string>> ports;
  std::optional<std::vector<std::string>> may_approve;
  bool read_only = true;
};

class AccessPolicy {
 public:
  // Checks `document` against the access schema and the role rules; `source` (a file name)
  // appears in errors and refusals.
  static absl::StatusOr<AccessPolicy> Parse(const nlohmann::json& document, std::string source);
  static absl::StatusOr<AccessPolicy> Load(const std::string& path);

  // The principal's own entry, else "default", else none.
  const Grant* GrantOf(std::string_view principal) const;
  std::string RoleOf(std::string_view principal) const;  // "viewer", ... or "none"

  // Each is OK or PERMISSION_DENIED saying which permission is missing.
  // `read_only_tool`: the tool's readOnlyHint.
  absl::Status MayCallTool(std::string_view principal, std::string_view tool,
                           bool read_only_tool) const;
  absl::Status MayUseBench(std::string_view principal, std::string_view bench) const;
  absl::Status MayUsePort(std::string_view principal, std::string_view port) const;
  // Changing what a port does (writing, opening, line changes), as opposed to reading it.
  absl::Status MayChangePort(std::string_view principal, std::string_view port) const;
  absl::Status MayApprove(std::string_view principal, std::string_view rule) const;
  // Whether any principal (the default included) may answer a write held by `rule`: may act,
  // may approve the rule and, when `port` is given, may change that port (on `bench`, when
  // named), as the console asks of whoever answers. "stdio" is not counted: a stdio
  // connection never reaches the console.
  bool SomeoneMayApprove(std::string_view rule, std::string_view bench = "",
                         std::string_view port = "") const;
  // Console actions (force-close a port, end a reservation, revoke sessions).
  absl::Status MayAct(std::string_view principal) const;

  const std::string& source() const { return source_; }
  // Each named principal's role, and the default's ("" when there is no default).
  std::map<std::string, std::string> Roles() const;
  std::string DefaultRole() const;

 private:
  absl::Status Missing(std::string_view principal) const;

  std::string source_;
  std::map<std::string, Grant, std::less<>> principals_;
  std::optional<Grant> default_;
};

// The principal a serial port owner id names, as the access file knows it: the gateway's
// "http:alice" is "alice", a stdio connection's "stdio-3f9c..." is "stdio", and a direct gRPC
// caller's own name (its token's, its certificate's, "anonymous") is itself.
std::string PrincipalOfOwner(std::string_view owner);

// True if `name` matches one of the globs (an absent list matches everything).
bool MatchesAny(const std::optional<std::vector<std::string>>& globs, std::string_view name);

}  // namespace labgate::access
