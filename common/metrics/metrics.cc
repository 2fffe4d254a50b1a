#include "common/metrics/metrics.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace labgate::metrics {
namespace {

[[noreturn]] void Misuse(const std::string& what) {
  std::fprintf(stderr, "labgate metrics: %s\n", what.c_str());
  std::abort();
}

bool ValidName(std::string_view name, bool colons) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!(letter || (colons && c == ':') || (i > 0 && digit))) return false;
  }
  return true;
}

std::string EscapeHelp(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

const char* TypeName(Type type) {
  switch (type) {
    case Type::kCounter:
      return "counter";
    case Type::kGauge:
      return "gauge";
    case Type::kHistogram:
      return "histogram";
  }
  return "untyped";
}

}  // namespace

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) return "NaN";
  return std::string(buffer, end);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), counts_(new std::atomic<uint64_t>[bounds.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double value) {
  // Few buckets: a linear scan beats a binary search here.
  size_t bucket = 0;
  while (bucket < bounds_.size() && value > bounds_[bucket]) ++bucket;
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::Read() const {
  Snapshot snapshot;
  uint64_t running = 0;
  snapshot.cumulative.reserve(bounds_.size() + 1);
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    snapshot.cumulative.push_back(running);
  }
  snapshot.sum = sum_.load(std::memory_order_relaxed);
  return snapshot;
}

FamilyBase::FamilyBase(std::string name, std::string help, Type type,
                       std::vector<std::string> labels)
    : name_(std::move(name)), help_(std::move(help)), type_(type), labels_(std::move(labels)) {
  if (!ValidName(name_, /*colons=*/true)) Misuse("bad metric name '" + name_ + "'");
  for (const std::string& label : labels_) {
    if (!ValidName(label, /*colons=*/false) || label.rfind("__", 0) == 0 ||
        (type_ == Type::kHistogram && label == "le")) {
      Misuse("bad label name '" + label + "' in " + name_);
    }
  }
}

void FamilyBase::Render(std::string* out) const {
  *out += "# HELP " + name_ + " " + EscapeHelp(help_) + "\n";
  *out += "# TYPE " + name_ + " " + TypeName(type_) + "\n";
  RenderSeries(out);
}

void FamilyBase::MakeKey(std::initializer_list<std::string_view> values, std::string* key) const {
  if (values.size() != labels_.size()) {
    Misuse(name_ + " takes " + std::to_string(labels_.size()) + " label value(s), not " +
           std::to_string(values.size()));
  }
  key->clear();
  for (std::string_view value : values) {
    key->append(value.data(), value.size());
    *key += '\xff';
  }
}

std::string FamilyBase::LabelText(const std::vector<std::string>& values) const {
  std::string text = "{";
  for (size_t i = 0; i < labels_.size(); ++i) {
    if (i > 0) text += ',';
    text += labels_[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  return text;
}

template <>
void Family<Counter>::RenderSeries(std::string* out) const {
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [key, entry] : series_) {
    std::string labels = LabelText(entry.values);
    *out += name() + (labels.size() > 1 ? labels + "}" : "") + " " +
            std::to_string(entry.series->value()) + "\n";
  }
}

template <>
void Family<Gauge>::RenderSeries(std::string* out) const {
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [key, entry] : series_) {
    std::string labels = LabelText(entry.values);
    *out += name() + (labels.size() > 1 ? labels + "}" : "") + " " +
            FormatValue(entry.series->value()) + "\n";
  }
}

template <>
void Family<Histogram>::RenderSeries(std::string* out) const {
  const std::vector<double>& bounds = *bounds_;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [key, entry] : series_) {
    const Histogram::Snapshot snapshot = entry.series->Read();
    std::string labels = LabelText(entry.values);
    const std::string open = labels.size() > 1 ? labels + "," : "{";
    for (size_t i = 0; i <= bounds.size(); ++i) {
      const std::string le = i < bounds.size() ? FormatValue(bounds[i]) : "+Inf";
      *out += name() + "_bucket" + open + "le=\"" + le + "\"} " +
              std::to_string(snapshot.cumulative[i]) + "\n";
    }
    const std::string plain = labels.size() > 1 ? labels + "}" : "";
    *out += name() + "_sum" + plain + " " + FormatValue(snapshot.sum) + "\n";
    *out += name() + "_count" + plain + " " + std::to_string(snapshot.cumulative.back()) + "\n";
  }
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> labels, std::vector<double> bounds)
    : Family<Histogram>(std::move(name), std::move(help), Type::kHistogram, std::move(labels)),
      buckets_(std::move(bounds)) {
  bounds_ = &buckets_;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    if (!std::isfinite(buckets_[i]) || (i > 0 && buckets_[i] <= buckets_[i - 1])) {
      Misuse("bucket bounds of " + this->name() + " must be finite and ascending");
    }
  }
}

FamilyBase& Registry::Add(std::unique_ptr<FamilyBase> family) {
  absl::MutexLock lock(&mutex_);
  auto [it, added] = families_.try_emplace(family->name(), nullptr);
  if (added) {
    it->second = std::move(family);
  } else if (it->second->type() != family->type() || it->second->labels() != family->labels()) {
    Misuse(family->name() + " registered twice with different types or labels");
  }
  return *it->second;
}

CounterFamily& Registry::Counter(const std::string& name, const std::string& help,
                                 std::vector<std::string> labels) {
  return static_cast<CounterFamily&>(
      Add(std::make_unique<CounterFamily>(name, help, Type::kCounter, std::move(labels))));
}

GaugeFamily& Registry::Gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> labels) {
  return static_cast<GaugeFamily&>(
      Add(std::make_unique<GaugeFamily>(name, help, Type::kGauge, std::move(labels))));
}

HistogramFamily& Registry::Histogram(const std::string& name, const std::string& help,
                                     std::vector<std::string> labels, std::vector<double> bounds) {
  FamilyBase& family =
      Add(std::make_unique<HistogramFamily>(name, help, std::move(labels), std::move(bounds)));
  return static_cast<HistogramFamily&>(family);
}

std::string Registry::Render() const {
  std::string out;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [name, family] : families_) family->Render(&out);
  return out;
}

Registry& Default() {
  static Registry* registry = new Registry();  // never destroyed: series outlive everything
  return *registry;
}

const std::vector<double>& LatencyBuckets() {
  static const std::vector<double> bounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                             0.01,   0.025,   0.05,   0.1,   0.25,   0.5,
                                             1,      2.5,     5,      10,    30};
  return bounds;
}

}  // namespace labgate::metrics
