#include "serial-service/ports/port_registry.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace labgate::serial {

PortRegistry::PortRegistry(PortFactory factory, Clock* clock, EventHub* hub, int poll_period_ms,
                           SessionRecorder* recorder, std::chrono::microseconds query_reply_spin,
                           CaptureOptions capture)
    : factory_(std::move(factory)),
      clock_(clock),
      hub_(hub),
      poll_period_ms_(poll_period_ms),
      recorder_(recorder),
      query_reply_spin_(query_reply_spin),
      capture_(capture) {}

PortRegistry::~PortRegistry() { CloseAll("service stopping", absl::Seconds(5)); }

absl::Status PortInUseError(const std::string& name, const std::string& holder) {
  return absl::FailedPreconditionError(
      absl::StrCat("port ", name, " is in use by another client (held by ", holder, ")"));
}

void PortRegistry::Open(const std::string& owner, const std::string& name,
                        const PortSettings& settings, std::function<void(absl::Status)> done,
                        const PortIdentity& identity) {
  std::shared_ptr<ManagedPort> port;
  std::shared_ptr<ManagedPort> replaced;
  absl::Status refused;
  const std::string& device = identity.device_path.empty() ? name : identity.device_path;
  {
    absl::MutexLock lock(&mu_);
    auto it = ports_.find(name);
    // The same device under another name: an instrument's port and its path are one device.
    for (const auto& [other_name, other] : ports_) {
      if (other_name == name || other->device_path() != device) continue;
      refused = other->owner() != owner
                    ? PortInUseError(name, other->owner())
                    : absl::AlreadyExistsError(absl::StrCat("Port is already open: ", device,
                                                            " is open as ", other_name));
    }
    if (!refused.ok()) {
      // Reported below.
    } else if (it != ports_.end()) {
      if (it->second->owner() != owner) {
        refused = PortInUseError(name, it->second->owner());
      } else if (it->second->state() != PortState::kError) {
        refused = absl::AlreadyExistsError(absl::StrCat("Port is already open: ", name));
      } else {
        replaced = std::move(it->second);
        ports_.erase(it);
      }
    }
    std::unique_ptr<SerialPort> backend = refused.ok() ? factory_(device) : nullptr;
    if (refused.ok() && backend == nullptr) {
      refused = absl::InternalError(absl::StrCat("no backend for port ", name));
    }
    if (refused.ok()) {
      PortEnvironment env;
      env.clock = clock_;
      env.hub = hub_;
      env.on_closed = [this](const std::string& port_name, const void* closed) {
        OnPortClosed(port_name, closed);
      };
      env.count_idle_close = [this](const std::string& port_name) {
        return CountIdleClose(port_name);
      };
      env.poll_period_ms = poll_period_ms_;
      env.recorder = recorder_;
      env.query_reply_spin = query_reply_spin_;
      env.capture = capture_;
      std::shared_ptr<SharedWrittenLine>& line = written_lines_[device];
      if (line == nullptr) line = std::make_shared<SharedWrittenLine>();
      env.written_line = line;
      env.write_gate = write_gate_;
      port =
          ManagedPort::Create(name, owner, std::move(backend), settings, std::move(env), identity);
      ports_[name] = port;
    }
  }
  if (!refused.ok()) {
    done(refused);
    return;
  }
  if (replaced == nullptr) {
    port->Open(std::move(done));
    return;
  }
  // Subscribers see the failed port's CLOSED before the new one's OPENED.
  replaced->Close(
      "replaced by a new open",
      [port, done = std::move(done)](const std::string&) mutable { port->Open(std::move(done)); });
}

absl::StatusOr<std::shared_ptr<ManagedPort>> PortRegistry::Select(
    const std::string& owner, const std::optional<std::string>& name) const {
  absl::MutexLock lock(&mu_);
  if (name.has_value()) {
    std::shared_ptr<ManagedPort> port = FindLocked(*name);
    if (port == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat("port ", *name, " is not open"));
    }
    return port;
  }
  std::vector<std::string> mine;
  std::shared_ptr<ManagedPort> only;
  for (const auto& [port_name, port] : ports_) {
    if (port->owner() != owner) continue;
    mine.push_back(port_name);
    only = port;
  }
  if (mine.empty()) {
    return absl::FailedPreconditionError("no port is open; open one with open_port first");
  }
  if (mine.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("port_name is required when several ports are open; open ports: ",
                     absl::StrJoin(mine, ", ")));
  }
  return only;
}

std::shared_ptr<ManagedPort> PortRegistry::FindByDevice(const std::string& path) const {
  absl::MutexLock lock(&mu_);
  for (const auto& [name, port] : ports_) {
    if (port->device_path() == path) return port;
  }
  return nullptr;
}

std::shared_ptr<ManagedPort> PortRegistry::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  return FindLocked(name);
}

std::shared_ptr<ManagedPort> PortRegistry::FindLocked(const std::string& name) const {
  auto it = ports_.find(name);
  if (it != ports_.end()) return it->second;
  // An instrument's port answers to its device path too, so its limits bind whatever name a
  // caller uses for it.
  for (const auto& [port_name, port] : ports_) {
    if (port->instrument().empty()) continue;
    // Its path, or (opened by its path) its instrument's name.
    if (port->device_path() == name || port->instrument() == name) return port;
  }
  return nullptr;
}

std::vector<std::string> PortRegistry::OpenPortNames() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  names.reserve(ports_.size());
  for (const auto& entry : ports_) names.push_back(entry.first);
  return names;
}

std::vector<std::string> PortRegistry::OpenPortNamesOf(const std::string& owner) const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, port] : ports_) {
    if (port->owner() == owner) names.push_back(name);
  }
  return names;
}

void PortRegistry::CloseAllOf(const std::string& owner, const std::string& reason,
                              std::function<void(std::vector<std::string>)> done) {
  std::vector<std::shared_ptr<ManagedPort>> closing;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, port] : ports_) {
      if (port->owner() == owner) closing.push_back(port);
    }
  }
  std::vector<std::string> names;
  names.reserve(closing.size());
  for (const auto& port : closing) names.push_back(port->name());
  if (closing.empty()) {
    if (done) done(std::move(names));
    return;
  }
  struct Countdown {
    std::atomic<size_t> left;
    std::vector<std::string> names;
    std::function<void(std::vector<std::string>)> done;
  };
  auto countdown = std::make_shared<Countdown>();
  countdown->left = closing.size();
  countdown->names = std::move(names);
  countdown->done = std::move(done);
  for (const auto& port : closing) {
    port->Close(reason, [countdown](const std::string&) {
      if (countdown->left.fetch_sub(1) == 1 && countdown->done) {
        countdown->done(std::move(countdown->names));
      }
    });
  }
}

void PortRegistry::CloseAll(const std::string& reason, absl::Duration wait) {
  std::vector<std::shared_ptr<ManagedPort>> closing;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& entry : ports_) closing.push_back(entry.second);
  }
  if (closing.empty()) return;
  struct Countdown {
    absl::Mutex mu;
    size_t left ABSL_GUARDED_BY(mu) = 0;
  };
  auto countdown = std::make_shared<Countdown>();
  {
    absl::MutexLock lock(&countdown->mu);
    countdown->left = closing.size();
  }
  for (const auto& port : closing) {
    port->Close(reason, [countdown](const std::string&) {
      absl::MutexLock lock(&countdown->mu);
      --countdown->left;
    });
  }
  closing.clear();
  absl::MutexLock lock(&countdown->mu);
  countdown->mu.AwaitWithTimeout(absl::Condition(
                                     +[](size_t* left) { return *left == 0; }, &countdown->left),
                                 wait);
}

void PortRegistry::AcquireLease(const std::string& owner) {
  absl::MutexLock lock(&mu_);
  ++leases_[owner].count;
}

void PortRegistry::ReleaseLease(const std::string& owner) {
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(owner);
    if (it == leases_.end()) return;
    if (--it->second.count > 0) return;
    it->second.ended->store(true);
    leases_.erase(it);
  }
  CloseAllOf(owner, "owner disconnected", nullptr);
}

int PortRegistry::LeaseCount(const std::string& owner) const {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(owner);
  return it == leases_.end() ? 0 : it->second.count;
}

PortRegistry::LeaseMark PortRegistry::MarkLease(const std::string& owner) const {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(owner);
  return it == leases_.end() ? nullptr : it->second.ended;
}

bool PortRegistry::GoneSince(const std::string& owner, const LeaseMark& mark) const {
  return mark != nullptr && mark->load() && LeaseCount(owner) == 0;
}

int64_t PortRegistry::IdleCloseCount(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = idle_close_counts_.find(name);
  return it == idle_close_counts_.end() ? 0 : it->second;
}

void PortRegistry::OnPortClosed(const std::string& name, const void* port) {
  absl::MutexLock lock(&mu_);
  auto it = ports_.find(name);
  if (it == ports_.end() || it->second.get() != port) return;
  const std::shared_ptr<SharedWrittenLine> line = it->second->written_line();
  ports_.erase(it);
  if (line == nullptr) return;
  {
    absl::MutexLock line_lock(&line->mu);
    if (!line->line.empty()) return;  // the device still holds half a line: kept for the next open
  }
  // A finished line needs no keeping: names such as replay://ID would otherwise pile up.
  for (auto kept = written_lines_.begin(); kept != written_lines_.end(); ++kept) {
    if (kept->second == line) {
      written_lines_.erase(kept);
      break;
    }
  }
}

std::shared_ptr<SharedWrittenLine> PortRegistry::UnfinishedLineAt(
    const std::string& device_path) const {
  std::shared_ptr<SharedWrittenLine> line;
  {
    absl::MutexLock lock(&mu_);
    auto kept = written_lines_.find(device_path);
    if (kept == written_lines_.end()) return nullptr;
    line = kept->second;
  }
  absl::MutexLock line_lock(&line->mu);
  return line->line.empty() ? nullptr : line;
}

void PortRegistry::MoveWrittenLine(const ManagedPort& port, const std::string& device_path) {
  const std::shared_ptr<SharedWrittenLine>& line = port.written_line();
  if (line == nullptr) return;
  absl::MutexLock lock(&mu_);
  for (auto kept = written_lines_.begin(); kept != written_lines_.end(); ++kept) {
    if (kept->second == line) {
      written_lines_.erase(kept);
      break;
    }
  }
  written_lines_[device_path] = line;
}

size_t PortRegistry::WrittenLinesKept() const {
  absl::MutexLock lock(&mu_);
  return written_lines_.size();
}

int64_t PortRegistry::CountIdleClose(const std::string& name) {
  absl::MutexLock lock(&mu_);
  return ++idle_close_counts_[name];
}

}  // namespace labgate::serial
