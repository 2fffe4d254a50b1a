#include "gateway/http/http_security.h"

#include <openssl/sha.h>
#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "common/secret_compare.h"

namespace labgate::gateway::http {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

bool MatchesAuthority(std::string_view authority, const std::vector<std::string>& allowed) {
  std::string name = HostName(authority);
  std::string full = Lower(authority);
  for (const std::string& entry : allowed) {
    if (entry == "*") return true;
    std::string want = Lower(entry);
    if (want == name || want == full) return true;
  }
  return false;
}

}  // namespace

std::string HostName(std::string_view authority) {
  authority = Trim(authority);
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return Lower(authority);
    return Lower(authority.substr(0, close + 1));
  }
  size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos) authority = authority.substr(0, colon);
  return Lower(authority);
}

bool WellFormedAuthority(std::string_view authority) {
  if (authority.empty()) return false;
  std::string_view rest;
  if (authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos || close < 3) return false;
    for (char c : authority.substr(1, close - 1)) {
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') {
        return false;
      }
    }
    rest = authority.substr(close + 1);
  } else {
    size_t colon = authority.find(':');
    std::string_view host = authority.substr(0, colon);
    if (host.empty()) return false;
    for (char c : host) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') {
        return false;
      }
    }
    rest = colon == std::string_view::npos ? std::string_view() : authority.substr(colon);
  }
  if (rest.empty()) return true;
  if (rest.front() != ':' || rest.size() == 1 || rest.size() > 6) return false;
  for (char c : rest.substr(1)) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::optional<std::string> HostHeaderProblem(size_t host_headers, std::string_view host,
                                             unsigned version, bool allow_no_host) {
  if (host_headers > 1) return "more than one Host header";
  if (host_headers == 1) {
    if (Trim(host).empty()) return "empty Host header";
    return std::nullopt;
  }
  if (version >= 11) return "an HTTP/1.1 request needs a Host header";
  if (!allow_no_host) {
    return "a Host header is required (labgate --allow-no-host serves HTTP/1.0 requests "
           "without one)";
  }
  return std::nullopt;
}

bool HostAllowed(std::string_view host_header, const std::vector<std::string>& allowed) {
  host_header = Trim(host_header);
  if (host_header.empty()) return true;
  if (!WellFormedAuthority(host_header)) return false;
  return MatchesAuthority(host_header, allowed);
}

bool OriginAllowed(std::string_view origin, const std::vector<std::string>& allowed) {
  origin = Trim(origin);
  if (origin.empty()) return true;
  for (const std::string& entry : allowed) {
    if (entry == "*") return true;
    if (Lower(entry) == Lower(origin)) return true;  // a full origin entry
  }
  size_t scheme_end = origin.find("://");
  if (scheme_end == std::string_view::npos) return false;  // includes "null"
  std::string_view authority = origin.substr(scheme_end + 3);
  if (size_t slash = authority.find('/'); slash != std::string_view::npos) {
    authority = authority.substr(0, slash);
  }
  if (!WellFormedAuthority(authority)) return false;  // userinfo, "[::1].evil.com", ...
  std::string name = HostName(authority);
  for (const std::string& entry : allowed) {
    if (entry.find("://") == std::string::npos && Lower(entry) == name) return true;
  }
  return false;
}

std::optional<std::string> BearerPrincipal(std::string_view authorization,
                                           const std::vector<HttpOptions::NamedToken>& tokens) {
  authorization = Trim(authorization);
  if (authorization.size() < 7 || Lower(authorization.substr(0, 7)) != "bearer ") {
    return std::nullopt;
  }
  std::string_view presented = Trim(authorization.substr(7));
  // The first match, not an optional updated in the loop: clang-tidy's optional
  // analysis did not finish on that shape.
  const HttpOptions::NamedToken* matched = nullptr;
  for (const auto& named : tokens) {
    // Every token is compared in full, so timing reveals neither which nor how much matched.
    if (SecretEquals(presented, named.token) && matched == nullptr) matched = &named;
  }
  if (matched == nullptr) return std::nullopt;
  return matched->name;
}

absl::StatusOr<std::vector<HttpOptions::NamedToken>> LoadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read token file " + path);
  std::vector<HttpOptions::NamedToken> tokens;
  std::set<std::string> names;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = Trim(line);
    if (text.empty() || text.front() == '#') continue;
    std::vector<std::string> fields =
        absl::StrSplit(std::string(text), absl::ByAnyChar(" \t"), absl::SkipEmpty());
    HttpOptions::NamedToken named;
    if (fields.size() == 1) {
      unsigned char digest[SHA256_DIGEST_LENGTH];
      SHA256(reinterpret_cast<const unsigned char*>(fields[0].data()), fields[0].size(), digest);
      static constexpr char kHex[] = "0123456789abcdef";
      named.name = "token-";
      for (int i = 0; i < 4; ++i) {
        named.name.push_back(kHex[digest[i] >> 4]);
        named.name.push_back(kHex[digest[i] & 15]);
      }
      named.token = fields[0];
    } else if (fields.size() == 2) {
      named.name = fields[0];
      named.token = fields[1];
    } else {
      return absl::InvalidArgumentError(path + ":" + std::to_string(number) +
                                        ": expected NAME TOKEN or TOKEN");
    }
    if (!names.insert(named.name).second) {
      return absl::InvalidArgumentError(path + ":" + std::to_string(number) + ": the name " +
                                        named.name + " is used twice");
    }
    tokens.push_back(std::move(named));
  }
  if (tokens.empty()) return absl::InvalidArgumentError("token file " + path + " has no tokens");
  return tokens;
}

bool AcceptIncludes(std::string_view accept, std::string_view media_type) {
  std::string want = Lower(media_type);
  std::string type = want.substr(0, want.find('/'));
  for (const std::string& item : SplitList(accept)) {
    std::string range = Lower(Trim(std::string_view(item).substr(0, item.find(';'))));
    if (range == want || range == "*/*" || range == type + "/*") return true;
  }
  return false;
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = Trim(text.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

std::string NewSessionId() {
  unsigned char bytes[32];
  size_t filled = 0;
  while (filled < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + filled, sizeof(bytes) - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::abort();  // no kernel randomness: never hand out guessable session ids
    }
    filled += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  id.reserve(64);
  for (unsigned char b : bytes) {
    id.push_back(kHex[b >> 4]);
    id.push_back(kHex[b & 15]);
  }
  return id;
}

}  // namespace labgate::gateway::http
