// Process-wide metrics and their Prometheus text exposition (format 0.0.4), written by hand
// because Debian ships no Prometheus client for C++. A component registers its families once
// (registering the same name again returns the same family); a series, once looked up, is a
// few atomics, so counting takes no lock. Looking a series up by its labels takes a reader
// lock, and only the first use of a label set takes the writer lock.
//
// Label values must come from small fixed sets (dialects, methods, tool names, outcomes,
// benches): never a session id, a request id or message contents.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace labgate::metrics {

class Counter {
 public:
  void Increment(uint64_t by = 1) { value_.fetch_add(by, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
  void Increment() { Add(1); }
  void Decrement() { Add(-1); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // `bounds`: the buckets' upper bounds, ascending (+Inf is implied).
  explicit Histogram(const std::vector<double>& bounds);
  void Observe(double value);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf (= count)
    double sum = 0;
  };
  Snapshot Read() const;

 private:
  const std::vector<double>& bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // per bucket, not cumulative
  std::atomic<double> sum_{0};
};

enum class Type { kCounter, kGauge, kHistogram };

// A metric's name, help and label names: what every family has.
class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, Type type, std::vector<std::string> labels);
  virtual ~FamilyBase() = default;

  const std::string& name() const { return name_; }
  Type type() const { return type_; }
  const std::vector<std::string>& labels() const { return labels_; }
  // Appends HELP, TYPE and every series.
  void Render(std::string* out) const;

 protected:
  // Each series line's name{labels} part is written by the family's type.
  virtual void RenderSeries(std::string* out) const = 0;
  // The map key of a label set (values joined with '\xff') in `key`, replacing what it held;
  // aborts on the wrong arity.
  void MakeKey(std::initializer_list<std::string_view> values, std::string* key) const;
  // `{a="x",b="y"` (no closing brace: a histogram adds le).
  std::string LabelText(const std::vector<std::string>& values) const;

 private:
  const std::string name_;
  const std::string help_;
  const Type type_;
  const std::vector<std::string> labels_;
};

template <typename T>
std::unique_ptr<T> MakeSeries(const std::vector<double>* /*bounds*/) {
  return std::make_unique<T>();
}
template <>
inline std::unique_ptr<Histogram> MakeSeries<Histogram>(const std::vector<double>* bounds) {
  return std::make_unique<Histogram>(*bounds);
}

// A family of series of type T, one per label set, made on first use and kept for the
// process's life (so references to them stay valid).
template <typename T>
class Family : public FamilyBase {
 public:
  using FamilyBase::FamilyBase;

  // The series with these label values, one per label name, in order.
  // Counting on a hot path finds its series without allocating: the key is built in a
  // per-thread buffer and looked up in a hash index.
  T& With(std::initializer_list<std::string_view> values) const {
    thread_local std::string key;
    MakeKey(values, &key);
    {
      absl::ReaderMutexLock lock(&mutex_);
      if (auto it = index_.find(key); it != index_.end()) return *it->second;
    }
    absl::MutexLock lock(&mutex_);
    auto [it, added] = series_.try_emplace(key);
    if (added) {
      it->second.values.assign(values.begin(), values.end());
      it->second.series = MakeSeries<T>(bounds_);
      index_.emplace(key, it->second.series.get());
    }
    return *it->second.series;
  }
  // The one series of a family without labels.
  T& Get() const { return With({}); }

 protected:
  void RenderSeries(std::string* out) const override;
  const std::vector<double>* bounds_ = nullptr;  // a histogram family's buckets

 private:
  struct Series {
    std::vector<std::string> values;
    std::unique_ptr<T> series;
  };
  mutable absl::Mutex mutex_;
  mutable std::map<std::string, Series> series_ ABSL_GUARDED_BY(mutex_);  // rendered in order
  mutable absl::flat_hash_map<std::string, T*> index_ ABSL_GUARDED_BY(mutex_);
};

template <>
void Family<Counter>::RenderSeries(std::string* out) const;
template <>
void Family<Gauge>::RenderSeries(std::string* out) const;
template <>
void Family<Histogram>::RenderSeries(std::string* out) const;

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;

class HistogramFamily : public Family<Histogram> {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> labels,
                  std::vector<double> bounds);
  const std::vector<double>& bounds() const { return buckets_; }

 private:
  const std::vector<double> buckets_;
};

class Registry {
 public:
  // Names must match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (and a
  // histogram's not "le"); a name registered again must have the same type and labels.
  // Breaking either is a programming error: the process aborts with a message.
  CounterFamily& Counter(const std::string& name, const std::string& help,
                         std::vector<std::string> labels = {});
  GaugeFamily& Gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> labels = {});
  HistogramFamily& Histogram(const std::string& name, const std::string& help,
                             std::vector<std::string> labels, std::vector<double> bounds);

  // The text exposition of every family, in name order.
  std::string Render() const;

 private:
  FamilyBase& Add(std::unique_ptr<FamilyBase> family);

  mutable absl::Mutex mutex_;
  std::map<std::string, std::unique_ptr<FamilyBase>, std::less<>> families_ ABSL_GUARDED_BY(mutex_);
};

// The process's registry: what /metrics serves. Embedded services register here too, so
// the gateway's endpoint covers them.
Registry& Default();

// The Content-Type of the exposition.
inline constexpr char kContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// Bucket bounds for latencies in seconds: 100 µs to 30 s.
const std::vector<double>& LatencyBuckets();

// Exposition spellings, shared with tests: a sample value ("+Inf", shortest round trip)
// and a label value with \\, \" and \n escaped.
std::string FormatValue(double value);
std::string EscapeLabelValue(std::string_view value);

}  // namespace labgate::metrics
