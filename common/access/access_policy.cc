#include "common/access/access_policy.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json_schema_check.h"

namespace labgate::access {
namespace {

// Abseil's string_view here is its own type.
absl::string_view V(std::string_view text) { return {text.data(), text.size()}; }

using nlohmann::json;

constexpr char kSchema[] = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "additionalProperties": false,
  "required": ["principals"],
  "properties": {
    "principals": {
      "type": "object",
      "propertyNames": {"minLength": 1},
      "additionalProperties": {"$ref": "#/definitions/grant"}
    },
    "default": {"$ref": "#/definitions/grant"}
  },
  "definitions": {
    "globs": {"type": "array", "items": {"type": "string", "minLength": 1}},
    "grant": {
      "type": "object",
      "additionalProperties": false,
      "required": ["role"],
      "properties": {
        "role": {"enum": ["viewer", "operator", "admin"]},
        "tools": {"$ref": "#/definitions/globs"},
        "benches": {"$ref": "#/definitions/globs"},
        "ports": {"$ref": "#/definitions/globs"},
        "may_approve": {"$ref": "#/definitions/globs"},
        "read_only": {"type": "boolean"}
      }
    }
  }
})";

std::optional<std::vector<std::string>> Globs(const json& entry, const char* key) {
  if (!entry.contains(key)) return std::nullopt;
  return entry[key].get<std::vector<std::string>>();
}

absl::StatusOr<Grant> GrantFrom(const json& entry, const std::string& where) {
  Grant grant;
  const std::string role = entry["role"].get<std::string>();
  grant.role = role == "admin"      ? Role::kAdmin
               : role == "operator" ? Role::kOperator
                                    : Role::kViewer;
  grant.tools = Globs(entry, "tools");
  grant.benches = Globs(entry, "benches");
  grant.ports = Globs(entry, "ports");
  grant.may_approve = Globs(entry, "may_approve");
  switch (grant.role) {
    case Role::kViewer:
      if (entry.value("read_only", true) == false) {
        return absl::InvalidArgumentError(where + ": a viewer is always read-only");
      }
      if (grant.may_approve) {
        return absl::InvalidArgumentError(where + ": a viewer never approves (no may_approve)");
      }
      grant.read_only = true;
      break;
    case Role::kOperator:
      grant.read_only = entry.value("read_only", false);
      break;
    case Role::kAdmin:
      for (const char* key : {"tools", "benches", "ports", "may_approve", "read_only"}) {
        if (entry.contains(key)) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, ": an admin is unrestricted, so it has no ", key,
                           " (make it an operator to restrict it)"));
        }
      }
      grant.read_only = false;
      break;
  }
  return grant;
}

}  // namespace

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kViewer:
      return "viewer";
    case Role::kOperator:
      return "operator";
    case Role::kAdmin:
      return "admin";
  }
  return "viewer";
}

std::string PrincipalOfOwner(std::string_view owner) {
  if (owner.substr(0, 5) == "http:") return std::string(owner.substr(5));
  if (owner.substr(0, 6) == "stdio-") return "stdio";
  return std::string(owner);
}

bool MatchesAny(const std::optional<std::vector<std::string>>& globs, std::string_view name) {
  if (!globs) return true;
  const std::string text(name);
  for (const std::string& glob : *globs) {
    if (::fnmatch(glob.c_str(), text.c_str(), 0) == 0) return true;
  }
  return false;
}

absl::StatusOr<AccessPolicy> AccessPolicy::Parse(const json& document, std::string source) {
  static const json* schema = new json(json::parse(kSchema));
  if (absl::Status valid = CheckAgainstSchema(*schema, document); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", valid.message()));
  }
  AccessPolicy policy;
  policy.source_ = std::move(source);
  for (const auto& [name, entry] : document["principals"].items()) {
    auto grant = GrantFrom(entry, absl::StrCat(policy.source_, ": [principals][", name, "]"));
    if (!grant.ok()) return grant.status();
    policy.principals_.emplace(name, *std::move(grant));
  }
  if (document.contains("default")) {
    auto grant = GrantFrom(document["default"], policy.source_ + ": [default]");
    if (!grant.ok()) return grant.status();
    policy.default_ = *std::move(grant);
  }
  return policy;
}

absl::StatusOr<AccessPolicy> AccessPolicy::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read the access file " + path);
  std::stringstream text;
  text << in.rdbuf();
  json document = json::parse(text.str(), nullptr, false);
  if (document.is_discarded()) {
    return absl::InvalidArgumentError("the access file " + path + " is not valid JSON");
  }
  return Parse(document, path);
}

std::map<std::string, std::string> AccessPolicy::Roles() const {
  std::map<std::string, std::string> roles;
  for (const auto& [name, grant] : principals_) roles[name] = std::string(RoleName(grant.role));
  return roles;
}

std::string AccessPolicy::DefaultRole() const {
  return default_ ? std::string(RoleName(default_->role)) : "";
}

const Grant* AccessPolicy::GrantOf(std::string_view principal) const {
  if (auto found = principals_.find(principal); found != principals_.end()) return &found->second;
  return default_ ? &*default_ : nullptr;
}

std::string AccessPolicy::RoleOf(std::string_view principal) const {
  const Grant* grant = GrantOf(principal);
  return grant ? std::string(RoleName(grant->role)) : "none";
}

absl::Status AccessPolicy::Missing(std::string_view principal) const {
  return absl::PermissionDeniedError(
      absl::StrCat(V(principal), " may do nothing here: it is not in the access file ", source_,
                   " and the file has no \"default\" entry"));
}

absl::Status AccessPolicy::MayCallTool(std::string_view principal, std::string_view tool,
                                       bool read_only_tool) const {
  const Grant* grant = GrantOf(principal);
  if (grant == nullptr) return Missing(principal);
  if (!MatchesAny(grant->tools, tool)) {
    return absl::PermissionDeniedError(absl::StrCat(
        V(principal), " may not call ", V(tool), ": the tool is not among its tools in ", source_));
  }
  if (grant->read_only && !read_only_tool) {
    return absl::PermissionDeniedError(absl::StrCat(
        V(principal), " may not call ", V(tool), ": ", V(principal), " (", V(RoleName(grant->role)),
        ") is read-only in ", source_, ", and ", V(tool), " is not a read-only tool"));
  }
  return absl::OkStatus();
}

absl::Status AccessPolicy::MayUseBench(std::string_view principal, std::string_view bench) const {
  const Grant* grant = GrantOf(principal);
  if (grant == nullptr) return Missing(principal);
  if (!MatchesAny(grant->benches, bench)) {
    return absl::PermissionDeniedError(absl::StrCat(V(principal), " may not use bench ", V(bench),
                                                    ": it is not among its benches in ", source_));
  }
  return absl::OkStatus();
}

absl::Status AccessPolicy::MayUsePort(std::string_view principal, std::string_view port) const {
  const Grant* grant = GrantOf(principal);
  if (grant == nullptr) return Missing(principal);
  if (!MatchesAny(grant->ports, port)) {
    return absl::PermissionDeniedError(absl::StrCat(V(principal), " may not use port ", V(port),
                                                    ": it is not among its ports in ", source_));
  }
  return absl::OkStatus();
}

absl::Status AccessPolicy::MayChangePort(std::string_view principal, std::string_view port) const {
  if (absl::Status usable = MayUsePort(principal, port); !usable.ok()) return usable;
  const Grant* grant = GrantOf(principal);
  if (grant->read_only) {
    return absl::PermissionDeniedError(
        absl::StrCat(V(principal), " may not change port ", V(port), ": ", V(principal), " (",
                     V(RoleName(grant->role)), ") is read-only in ", source_));
  }
  return absl::OkStatus();
}

bool AccessPolicy::SomeoneMayApprove(std::string_view rule, std::string_view bench,
                                     std::string_view port) const {
  auto may = [&](const Grant& grant) {
    if (grant.role == Role::kViewer || !MatchesAny(grant.may_approve, rule)) return false;
    if (port.empty()) return true;
    return !grant.read_only && MatchesAny(grant.ports, port) &&
           (bench.empty() || MatchesAny(grant.benches, bench));
  };
  if (default_ && may(*default_)) return true;
  for (const auto& [name, grant] : principals_) {
    if (name != "stdio" && may(grant)) return true;
  }
  return false;
}

absl::Status AccessPolicy::MayApprove(std::string_view principal, std::string_view rule) const {
  const Grant* grant = GrantOf(principal);
  if (grant == nullptr) return Missing(principal);
  if (grant->role == Role::kViewer) {
    return absl::PermissionDeniedError(
        absl::StrCat(V(principal), " may not approve: a viewer never approves (", source_, ")"));
  }
  if (!MatchesAny(grant->may_approve, rule)) {
    return absl::PermissionDeniedError(absl::StrCat(V(principal), " may not approve rule ", V(rule),
                                                    ": it is not in its may_approve in ", source_));
  }
  return absl::OkStatus();
}

absl::Status AccessPolicy::MayAct(std::string_view principal) const {
  const Grant* grant = GrantOf(principal);
  if (grant == nullptr) return Missing(principal);
  if (grant->role == Role::kViewer) {
    return absl::PermissionDeniedError(absl::StrCat(
        V(principal), " may not act from the console: it needs the operator or admin role (",
        source_, ")"));
  }
  return absl::OkStatus();
}

}  // namespace labgate::access
