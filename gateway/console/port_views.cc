#include "gateway/console/port_views.h"

#include <algorithm>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/caller_metadata.h"
#include "gateway/backends/async_calls.h"
#include "gateway/backends/unreachable.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/console/console_replies.h"

namespace labgate::gateway::console {

namespace serial_v1 = labgate::serial::v1;
using nlohmann::json;

namespace {

// "TYPE_AUTO_CLOSE" -> "auto_close".
std::string EventTypeName(serial_v1::PortEvent::Type type) {
  std::string name = serial_v1::PortEvent::Type_Name(type);
  if (name.rfind("TYPE_", 0) == 0) name = name.substr(5);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

json PortJson(const Bench& bench, const std::string& local_name,
              const serial_v1::GetStatusResponse& status,
              const absl::StatusOr<serial_v1::GetMetricsResponse>& metrics) {
  json port = {
      {"name", SerialBenches::Qualify(bench, local_name)},
      {"bench", bench.name},
      {"local_name", local_name},
      {"state",
       EnumValueJsonName(serial_v1::PortState_descriptor()->FindValueByNumber(status.status()))},
      {"owner", status.owner()},
      {"instrument", status.has_instrument() ? json(status.instrument()) : json(nullptr)},
      {"session_id", nullptr},
      {"settings", nullptr},
      {"policy", nullptr}};
  if (status.has_settings()) {
    port["settings"] = ProtoToJson(status.settings());
    if (status.settings().has_session_id() && !status.settings().session_id().empty()) {
      port["session_id"] = status.settings().session_id();
    }
  }
  if (status.has_policy()) port["policy"] = ProtoToJson(status.policy());
  json counters = {{"records_pending", status.records_pending()},
                   {"records_lost", status.records_lost()}};
  if (metrics.ok()) {
    counters["bytes_read_total"] = metrics->bytes_read_total();
    counters["bytes_written_total"] = metrics->bytes_written_total();
    counters["idle_close_count"] = metrics->idle_close_count();
    counters["open_duration_ms"] = metrics->open_duration_ms();
    counters["last_activity_ms"] = metrics->last_activity_ms();
    counters["timeout_streak"] = metrics->timeout_streak();
    counters["capture_buffered_bytes"] = metrics->capture_buffered_bytes();
    counters["capture_dropped_bytes"] = metrics->capture_dropped_bytes();
  } else {
    port["metrics_error"] = std::string(metrics.status().message());
  }
  port["counters"] = std::move(counters);
  return port;
}

// A replay:// port's progress (replay_status), or its error; null for other ports.
json ReplayJson(const std::optional<absl::StatusOr<serial_v1::ReplayStatusResponse>>& replay) {
  if (!replay.has_value()) return nullptr;
  if (!replay->ok()) return {{"error", std::string(replay->status().message())}};
  return ProtoToJson(**replay);
}

}  // namespace

json PortEventJson(const serial_v1::PortEvent& event, const std::string& qualified_name) {
  json out = {{"type", EventTypeName(event.type())},
              {"port", qualified_name},
              {"timestamp_ms", event.timestamp_ms()}};
  if (event.type() == serial_v1::PortEvent::TYPE_DATA ||
      event.type() == serial_v1::PortEvent::TYPE_WRITTEN) {
    out["data"] = event.data();
    out["encoding"] =
        EnumValueJsonName(serial_v1::Encoding_descriptor()->FindValueByNumber(event.encoding()));
    if (event.dropped_bytes() > 0) out["dropped_bytes"] = event.dropped_bytes();
  }
  if (!event.reason().empty()) out["reason"] = event.reason();
  if (event.type() == serial_v1::PortEvent::TYPE_AUTO_CLOSE) {
    out["idle_ms"] = event.idle_ms();
    out["idle_close_count"] = event.idle_close_count();
  }
  return out;
}

class PortViews::Impl : public std::enable_shared_from_this<PortViews::Impl> {
 public:
  struct BenchStub {
    const Bench* bench;
    std::unique_ptr<serial_v1::SerialService::Stub> stub;
  };

  Impl(std::shared_ptr<const SerialBenches> benches, std::chrono::milliseconds deadline)
      : benches_(std::move(benches)), deadline_(deadline) {
    for (const Bench& bench : benches_->all()) {
      stubs_.push_back({&bench, serial_v1::SerialService::NewStub(bench.channel)});
    }
  }

  using NamesDone = std::function<void(absl::StatusOr<std::vector<std::string>>)>;
  void ListNames(const BenchStub& bench, NamesDone done) const {
    Unary<serial_v1::ListPortsResponse>(
        serial_v1::ListPortsRequest(), deadline_,
        [stub = bench.stub.get()](auto* context, auto* request, auto* response, auto callback) {
          stub->async()->ListPorts(context, request, response, std::move(callback));
        },
        [done = std::move(done),
         bench = bench.bench](absl::StatusOr<serial_v1::ListPortsResponse> listed) {
          if (!listed.ok()) {
            return done(BackendCallStatus(listed.status(), bench->channel.get(),
                                          serial_v1::SerialService::service_full_name(),
                                          bench->address));
          }
          std::vector<std::string> names;
          for (const auto& port : listed->ports()) names.push_back(port.port_name());
          done(std::move(names));
        });
  }

  void FetchPort(const BenchStub& bench, const std::string& local_name, JsonDone done) const {
    struct Pending {
      explicit Pending(JsonDone then) : done(std::move(then)) {}
      absl::Mutex mutex;
      int left ABSL_GUARDED_BY(mutex) = 2;
      std::optional<absl::StatusOr<serial_v1::GetStatusResponse>> status ABSL_GUARDED_BY(mutex);
      std::optional<absl::StatusOr<serial_v1::GetMetricsResponse>> metrics ABSL_GUARDED_BY(mutex);
      std::optional<absl::StatusOr<serial_v1::ReplayStatusResponse>> replay ABSL_GUARDED_BY(mutex);
      const JsonDone done;  // called once, by the last answer, outside the lock
    };
    auto pending = std::make_shared<Pending>(std::move(done));
    const bool replaying = local_name.rfind("replay://", 0) == 0;
    if (replaying) {
      absl::MutexLock lock(&pending->mutex);
      pending->left = 3;
    }
    // Runs once both calls have answered.
    auto finish = [self = shared_from_this(), pending, bench = bench.bench, local_name] {
      std::optional<absl::StatusOr<serial_v1::GetStatusResponse>> status;
      std::optional<absl::StatusOr<serial_v1::GetMetricsResponse>> metrics;
      std::optional<absl::StatusOr<serial_v1::ReplayStatusResponse>> replay;
      {
        absl::MutexLock lock(&pending->mutex);
        status = std::move(pending->status);
        metrics = std::move(pending->metrics);
        replay = std::move(pending->replay);
      }
      if (!status->ok()) return pending->done(status->status());
      json port = PortJson(*bench, local_name, **status, *metrics);
      port["replay"] = ReplayJson(replay);
      pending->done(std::move(port));
    };
    if (replaying) {
      serial_v1::ReplayStatusRequest replay_request;
      replay_request.set_port_name(local_name);
      Unary<serial_v1::ReplayStatusResponse>(
          replay_request, deadline_,
          [stub = bench.stub.get()](auto* context, auto* request, auto* response, auto callback) {
            stub->async()->ReplayStatus(context, request, response, std::move(callback));
          },
          [pending, finish](absl::StatusOr<serial_v1::ReplayStatusResponse> replay) {
            bool last;
            {
              absl::MutexLock lock(&pending->mutex);
              pending->replay = std::move(replay);
              last = --pending->left == 0;
            }
            if (last) finish();
          });
    }
    serial_v1::GetStatusRequest status_request;
    status_request.set_port_name(local_name);
    Unary<serial_v1::GetStatusResponse>(
        status_request, deadline_,
        [stub = bench.stub.get()](auto* context, auto* request, auto* response, auto callback) {
          stub->async()->GetStatus(context, request, response, std::move(callback));
        },
        [pending, finish](absl::StatusOr<serial_v1::GetStatusResponse> status) {
          bool last;
          {
            absl::MutexLock lock(&pending->mutex);
            pending->status = std::move(status);
            last = --pending->left == 0;
          }
          if (last) finish();
        });
    serial_v1::GetMetricsRequest metrics_request;
    metrics_request.set_port_name(local_name);
    Unary<serial_v1::GetMetricsResponse>(
        metrics_request, deadline_,
        [stub = bench.stub.get()](auto* context, auto* request, auto* response, auto callback) {
          stub->async()->GetMetrics(context, request, response, std::move(callback));
        },
        [pending, finish](absl::StatusOr<serial_v1::GetMetricsResponse> metrics) {
          bool last;
          {
            absl::MutexLock lock(&pending->mutex);
            pending->metrics = std::move(metrics);
            last = --pending->left == 0;
          }
          if (last) finish();
        });
  }

  void List(JsonDone done) const {
    struct Gathered {
      Gathered(size_t benches, JsonDone then)
          : left(benches), bench_entries(benches), bench_ports(benches), done(std::move(then)) {}
      absl::Mutex mutex;
      size_t left ABSL_GUARDED_BY(mutex);
      std::vector<json> bench_entries ABSL_GUARDED_BY(mutex);  // per bench, in bench order
      // Per bench, in name order.
      std::vector<std::vector<json>> bench_ports ABSL_GUARDED_BY(mutex);
      bool truncated ABSL_GUARDED_BY(mutex) = false;
      const JsonDone done;  // called once, by the last bench, outside the lock
    };
    if (stubs_.empty())
      return done(json{{"ports", json::array()}, {"benches", json::array()}, {"truncated", false}});
    auto gathered = std::make_shared<Gathered>(stubs_.size(), std::move(done));
    auto bench_done = [gathered] {
      json answer;
      {
        absl::MutexLock lock(&gathered->mutex);
        if (--gathered->left != 0) return;
        json ports = json::array();
        for (auto& list : gathered->bench_ports) {
          for (auto& port : list) ports.push_back(std::move(port));
        }
        answer = {{"ports", std::move(ports)},
                  {"benches", std::move(gathered->bench_entries)},
                  {"truncated", gathered->truncated}};
      }
      gathered->done(std::move(answer));
    };
    for (size_t i = 0; i < stubs_.size(); ++i) {
      const BenchStub& bench = stubs_[i];
      ListNames(bench, [self = shared_from_this(), gathered, bench_done, i,
                        &bench](absl::StatusOr<std::vector<std::string>> names) {
        json entry = {{"name", bench.bench->name},
                      {"address", bench.bench->address},
                      {"reachable", names.ok()}};
        if (!names.ok()) entry["error"] = std::string(names.status().message());
        {
          absl::MutexLock lock(&gathered->mutex);
          gathered->bench_entries[i] = std::move(entry);
        }
        if (!names.ok() || names->empty()) return bench_done();
        if (names->size() > kMaxPortsPerBench) {
          names->resize(kMaxPortsPerBench);
          absl::MutexLock lock(&gathered->mutex);
          gathered->truncated = true;
        }
        struct PortsLeft {
          explicit PortsLeft(size_t count) : left(count), ports(count) {}
          absl::Mutex mutex;
          size_t left ABSL_GUARDED_BY(mutex);
          std::vector<json> ports ABSL_GUARDED_BY(mutex);
        };
        auto left = std::make_shared<PortsLeft>(names->size());
        for (size_t j = 0; j < names->size(); ++j) {
          const std::string name = (*names)[j];
          self->FetchPort(
              bench, name,
              [self, gathered, bench_done, left, i, j, &bench, name](absl::StatusOr<json> port) {
                json entry = port.ok() ? std::move(*port)
                                       : json{{"name", SerialBenches::Qualify(*bench.bench, name)},
                                              {"bench", bench.bench->name},
                                              {"local_name", name},
                                              {"error", std::string(port.status().message())}};
                std::vector<json> ports;
                {
                  absl::MutexLock lock(&left->mutex);
                  left->ports[j] = std::move(entry);
                  if (--left->left != 0) return;
                  ports = std::move(left->ports);
                }
                {
                  absl::MutexLock gathered_lock(&gathered->mutex);
                  gathered->bench_ports[i] = std::move(ports);
                }
                bench_done();
              });
        }
      });
    }
  }

  using FoundDone = std::function<void(absl::StatusOr<std::pair<const BenchStub*, std::string>>)>;
  void Find(const std::string& port_name, FoundDone done) const {
    absl::StatusOr<SerialBenches::Route> route = benches_->Resolve(port_name);
    if (!route.ok()) return done(absl::NotFoundError(route.status().message()));
    const BenchStub* bench = nullptr;
    for (const BenchStub& candidate : stubs_) {
      if (candidate.bench == route->bench) bench = &candidate;
    }
    if (bench == nullptr) return done(absl::NotFoundError("no such port: " + port_name));
    ListNames(*bench, [self = shared_from_this(), bench, local = route->local_port, port_name,
                       done = std::move(done)](absl::StatusOr<std::vector<std::string>> names) {
      if (!names.ok()) return done(names.status());
      if (std::find(names->begin(), names->end(), local) == names->end()) {
        return done(absl::NotFoundError("no such port: " + port_name));
      }
      done(std::make_pair(bench, local));
    });
  }

  void Describe(const std::string& port_name, JsonDone done) const {
    Find(port_name, [self = shared_from_this(), done = std::move(done)](
                        absl::StatusOr<std::pair<const BenchStub*, std::string>> found) mutable {
      if (!found.ok()) return done(found.status());
      self->FetchPort(*found->first, found->second, std::move(done));
    });
  }

  void Relay(std::shared_ptr<http::HttpConnection> connection, const std::string& port_name,
             std::shared_ptr<RelayRegistry> relays) const {
    Find(port_name, [self = shared_from_this(), connection = std::move(connection), port_name,
                     relays = std::move(relays)](
                        absl::StatusOr<std::pair<const BenchStub*, std::string>> found) {
      if (!found.ok()) return RespondStatus(connection, found.status());
      serial_v1::SubscribeRequest request;
      request.set_port_name(found->second);
      request.set_encoding(serial_v1::ENCODING_TEXT);
      request.set_include_writes(true);
      const std::string qualified = SerialBenches::Qualify(*found->first->bench, found->second);
      RelayStream<serial_v1::PortEvent>(
          relays, connection, std::move(request),
          [self, stub = found->first->stub.get()](auto* context, auto* request, auto* reactor) {
            stub->async()->Subscribe(context, request, reactor);
          },
          [qualified](const serial_v1::PortEvent& event) {
            return PortEventJson(event, qualified);
          });
    });
  }

  void OpenReplay(const std::string& owner, const std::string& port_name, JsonDone done) const {
    absl::StatusOr<SerialBenches::Route> route = benches_->Resolve(port_name);
    if (!route.ok()) return done(route.status());
    const BenchStub* bench = StubOf(*route);
    if (bench == nullptr) return done(absl::NotFoundError("no such bench for " + port_name));
    serial_v1::OpenPortRequest request;
    request.set_port_name(route->local_port);
    request.set_baud_rate(9600);  // a recording has no wire: any rate will do
    request.set_terminator("\n");
    Unary<serial_v1::OpenPortResponse>(
        request, deadline_,
        [stub = bench->stub.get(), owner](auto* context, auto* request, auto* response,
                                          auto callback) {
          context->AddMetadata(kOwnerMetadataKey, owner);
          stub->async()->OpenPort(context, request, response, std::move(callback));
        },
        [done = std::move(done), bench = bench->bench, local = route->local_port,
         owner](const absl::StatusOr<serial_v1::OpenPortResponse>& opened) {
          if (!opened.ok())
            return done(SerialBenches::QualifyError(*bench, local, opened.status()));
          done(json{{"port_name", SerialBenches::Qualify(*bench, local)}, {"owner", owner}});
        });
  }

  void ForceClose(const std::string& port_name, const std::string& by, const std::string& reason,
                  JsonDone done) const {
    absl::StatusOr<SerialBenches::Route> route = benches_->Resolve(port_name);
    if (!route.ok()) return done(route.status());
    const BenchStub* bench = StubOf(*route);
    if (bench == nullptr) return done(absl::NotFoundError("no such bench for " + port_name));
    serial_v1::ForceCloseRequest request;
    request.set_port_name(route->local_port);
    request.set_by(by);
    request.set_reason(reason);
    Unary<serial_v1::ClosePortResponse>(
        request, deadline_,
        [stub = bench->stub.get()](auto* context, auto* request, auto* response, auto callback) {
          stub->async()->ForceClose(context, request, response, std::move(callback));
        },
        [done = std::move(done), bench = bench->bench,
         local = route->local_port](const absl::StatusOr<serial_v1::ClosePortResponse>& closed) {
          if (!closed.ok())
            return done(SerialBenches::QualifyError(*bench, local, closed.status()));
          done(json{{"port_name", SerialBenches::Qualify(*bench, local)},
                    {"status", closed->status()}});
        });
  }

 private:
  // The stub of the bench `route` names; null for none.
  const BenchStub* StubOf(const SerialBenches::Route& route) const {
    for (const BenchStub& candidate : stubs_) {
      if (candidate.bench == route.bench) return &candidate;
    }
    return nullptr;
  }

  std::shared_ptr<const SerialBenches> benches_;
  std::chrono::milliseconds deadline_;
  std::vector<BenchStub> stubs_;
};

absl::Status MayChangePort(const access::AccessControl* access, const SerialBenches* benches,
                           const std::string& principal, const std::string& port_name) {
  if (access == nullptr || !access->enabled()) return absl::OkStatus();
  std::string local_port = port_name;
  if (benches != nullptr) {
    absl::StatusOr<SerialBenches::Route> route = benches->Resolve(port_name);
    if (!route.ok()) return route.status();
    if (route->bench != nullptr && !route->bench->name.empty()) {
      if (absl::Status may = access->MayUseBench(principal, route->bench->name); !may.ok()) {
        return may;
      }
    }
    local_port = route->local_port;
  }
  return access->MayChangePort(principal, local_port);
}

PortViews::PortViews(std::shared_ptr<const SerialBenches> benches,
                     std::chrono::milliseconds deadline)
    : impl_(std::make_shared<const Impl>(std::move(benches), deadline)) {}

void PortViews::List(JsonDone done) const { impl_->List(std::move(done)); }

void PortViews::Describe(const std::string& port_name, JsonDone done) const {
  impl_->Describe(port_name, std::move(done));
}

void PortViews::OpenReplay(const std::string& owner, const std::string& port_name,
                           JsonDone done) const {
  impl_->OpenReplay(owner, port_name, std::move(done));
}

void PortViews::ForceClose(const std::string& port_name, const std::string& by,
                           const std::string& reason, JsonDone done) const {
  impl_->ForceClose(port_name, by, reason, std::move(done));
}

void PortViews::Relay(std::shared_ptr<http::HttpConnection> connection,
                      const std::string& port_name, std::shared_ptr<RelayRegistry> relays) const {
  impl_->Relay(std::move(connection), port_name, std::move(relays));
}

}  // namespace labgate::gateway::console
