#include "common/tests/exposition_parser.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace labgate::metrics::testing {
namespace {

bool IsNameChar(char c, bool first, bool colons) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (colons && c == ':') return true;
  return !first && c >= '0' && c <= '9';
}

// Reads a name at `*at`; empty when there is none.
std::string ReadName(const std::string& line, size_t* at, bool colons) {
  size_t start = *at;
  while (*at < line.size() && IsNameChar(line[*at], *at == start, colons)) ++*at;
  return line.substr(start, *at - start);
}

bool ParseValue(const std::string& text, double* value) {
  if (text == "+Inf") {
    *value = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Inf") {
    *value = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "NaN") {
    *value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text.empty() || text.find_first_of(" \t") != std::string::npos) return false;
  return absl::SimpleAtod(text, value) && std::isfinite(*value);
}

// The family a sample name belongs to: itself, or a histogram's base name.
std::string FamilyOf(const std::string& sample, const Exposition& families) {
  if (families.count(sample) != 0) return sample;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string tail(suffix);
    if (sample.size() > tail.size() &&
        sample.compare(sample.size() - tail.size(), tail.size(), tail) == 0) {
      std::string base = sample.substr(0, sample.size() - tail.size());
      auto it = families.find(base);
      if (it != families.end() && it->second.type == "histogram") return base;
    }
  }
  return "";
}

absl::Status CheckHistogram(const std::string& name, const ParsedFamily& family) {
  // Per label set without le: buckets in ascending le, cumulative, +Inf == _count.
  struct Series {
    std::vector<std::pair<double, double>> buckets;
    bool has_sum = false;
    double count = -1;
  };
  std::map<std::map<std::string, std::string>, Series> series;
  for (const Sample& sample : family.samples) {
    std::map<std::string, std::string> labels = sample.labels;
    if (sample.name == name + "_bucket") {
      auto le = labels.find("le");
      if (le == labels.end()) return absl::InvalidArgumentError(name + ": a bucket without le");
      double bound;
      if (!ParseValue(le->second, &bound)) {
        return absl::InvalidArgumentError(name + ": bad le '" + le->second + "'");
      }
      labels.erase(le);
      series[labels].buckets.emplace_back(bound, sample.value);
    } else if (sample.name == name + "_sum") {
      series[labels].has_sum = true;
    } else if (sample.name == name + "_count") {
      series[labels].count = sample.value;
    } else {
      return absl::InvalidArgumentError(name + ": unexpected histogram sample " + sample.name);
    }
  }
  for (const auto& [labels, one] : series) {
    if (one.buckets.empty() || !std::isinf(one.buckets.back().first) || !one.has_sum ||
        one.count < 0) {
      return absl::InvalidArgumentError(name + ": a series lacks +Inf, _sum or _count");
    }
    for (size_t i = 1; i < one.buckets.size(); ++i) {
      if (one.buckets[i].first <= one.buckets[i - 1].first ||
          one.buckets[i].second < one.buckets[i - 1].second) {
        return absl::InvalidArgumentError(name + ": buckets not ascending and cumulative");
      }
    }
    if (one.buckets.back().second != one.count) {
      return absl::InvalidArgumentError(name + ": +Inf bucket differs from _count");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Exposition> ParseExposition(const std::string& text) {
  Exposition families;
  if (!text.empty() && text.back() != '\n') {
    return absl::InvalidArgumentError("the exposition must end with a newline");
  }
  std::string current;  // the family whose samples may follow
  std::set<std::string> seen_series;
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty()) lines.pop_back();  // after the final newline
  for (size_t number = 1; number <= lines.size(); ++number) {
    const std::string& line = lines[number - 1];
    auto fail = [&](const std::string& why) {
      return absl::InvalidArgumentError(absl::StrCat("line ", number, ": ", why, ": ", line));
    };
    if (line.empty()) return fail("empty line");
    if (line.rfind("# HELP ", 0) == 0) {
      size_t at = 7;
      std::string name = ReadName(line, &at, true);
      if (name.empty() || at >= line.size() || line[at] != ' ') return fail("bad HELP");
      if (families.count(name) != 0) return fail("a second HELP for " + name);
      std::string help = line.substr(at + 1);
      for (size_t i = 0; i < help.size(); ++i) {
        if (help[i] == '\\' &&
            (i + 1 >= help.size() || (help[i + 1] != '\\' && help[i + 1] != 'n'))) {
          return fail("bad escape in HELP");
        }
        if (help[i] == '\\') ++i;
      }
      families[name].help = help;
      families[name].type = "";
      current = "";
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      size_t at = 7;
      std::string name = ReadName(line, &at, true);
      if (name.empty() || at >= line.size() || line[at] != ' ') return fail("bad TYPE");
      auto it = families.find(name);
      if (it == families.end()) return fail("TYPE before HELP");
      if (!it->second.type.empty()) return fail("a second TYPE");
      std::string type = line.substr(at + 1);
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped") {
        return fail("unknown type");
      }
      it->second.type = type;
      current = name;
      continue;
    }
    if (line[0] == '#') return fail("a comment labgate does not write");
    Sample sample;
    size_t at = 0;
    sample.name = ReadName(line, &at, true);
    if (sample.name.empty()) return fail("no metric name");
    if (at < line.size() && line[at] == '{') {
      ++at;
      while (at < line.size() && line[at] != '}') {
        std::string label = ReadName(line, &at, false);
        if (label.empty() || line.compare(at, 2, "=\"") != 0) return fail("bad label");
        at += 2;
        std::string value;
        while (at < line.size() && line[at] != '"') {
          if (line[at] == '\\') {
            if (at + 1 >= line.size()) return fail("bad escape");
            const char next = line[at + 1];
            if (next == '\\' || next == '"') {
              value += next;
            } else if (next == 'n') {
              value += '\n';
            } else {
              return fail("bad escape");
            }
            at += 2;
          } else {
            value += line[at++];
          }
        }
        if (at >= line.size()) return fail("unterminated label value");
        ++at;  // closing quote
        if (!sample.labels.emplace(label, value).second) return fail("label twice");
        if (at < line.size() && line[at] == ',') ++at;
      }
      if (at >= line.size()) return fail("unterminated labels");
      ++at;  // '}'
    }
    if (at >= line.size() || line[at] != ' ') return fail("no space before the value");
    const std::string rest = line.substr(at + 1);
    const std::string value_text = rest.substr(0, rest.find(' '));
    if (!ParseValue(value_text, &sample.value)) return fail("bad value");
    if (value_text.size() != rest.size()) {
      int64_t timestamp;
      if (!absl::SimpleAtoi(rest.substr(value_text.size() + 1), &timestamp)) {
        return fail("bad timestamp");
      }
    }
    const std::string family = FamilyOf(sample.name, families);
    if (family.empty() || family != current) return fail("a sample outside its family");
    std::string identity = sample.name;
    for (const auto& [key, value] : sample.labels) absl::StrAppend(&identity, "|", key, "=", value);
    if (!seen_series.insert(identity).second) return fail("a series twice");
    families[family].samples.push_back(std::move(sample));
  }
  for (const auto& [name, family] : families) {
    if (family.type.empty()) return absl::InvalidArgumentError(name + " has HELP but no TYPE");
    if (family.type == "histogram") {
      if (absl::Status valid = CheckHistogram(name, family); !valid.ok()) return valid;
    }
    if (family.type == "counter") {
      for (const Sample& sample : family.samples) {
        if (sample.value < 0) return absl::InvalidArgumentError(name + ": a negative counter");
      }
    }
  }
  return families;
}

double ValueOf(const Exposition& exposition, const std::string& name,
               const std::map<std::string, std::string>& labels) {
  const std::string family = FamilyOf(name, exposition);
  auto it = exposition.find(family);
  if (it == exposition.end()) return std::numeric_limits<double>::quiet_NaN();
  for (const Sample& sample : it->second.samples) {
    if (sample.name == name && sample.labels == labels) return sample.value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace labgate::metrics::testing
