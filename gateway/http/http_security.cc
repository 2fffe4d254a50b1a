#include "gateway/http/http_security.h"

#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>

#include "absl/status/status.h"

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

bool HostAllowed(std::string_view host_header, const std::vector<std::string>& allowed) {
  host_header = Trim(host_header);
  if (host_header.empty()) return true;
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
  if (authority.empty()) return false;
  std::string name = HostName(authority);
  for (const std::string& entry : allowed) {
    if (entry.find("://") == std::string::npos && Lower(entry) == name) return true;
  }
  return false;
}

bool BearerAccepted(std::string_view authorization, const std::vector<std::string>& tokens) {
  authorization = Trim(authorization);
  if (authorization.size() < 7 || Lower(authorization.substr(0, 7)) != "bearer ") return false;
  std::string_view presented = Trim(authorization.substr(7));
  bool accepted = false;
  for (const std::string& token : tokens) {
    // Compare every byte of every token so timing reveals neither which nor how much matched.
    unsigned char diff = token.size() == presented.size() ? 0 : 1;
    for (size_t i = 0; i < token.size(); ++i) {
      unsigned char other = i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0;
      diff |= static_cast<unsigned char>(static_cast<unsigned char>(token[i]) ^ other);
    }
    accepted |= (diff == 0 && !token.empty());
  }
  return accepted;
}

absl::StatusOr<std::vector<std::string>> LoadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read token file " + path);
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    std::string_view token = Trim(line);
    if (token.empty() || token.front() == '#') continue;
    tokens.emplace_back(token);
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
