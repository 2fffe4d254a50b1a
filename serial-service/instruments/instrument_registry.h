// The named instruments while labgate-serial runs: the catalog in force (profiles and
// instruments, replaced whole by Reload on SIGHUP; files that do not load leave the old one in
// force), where each instrument was last found, and the last quantities accepted for each. Those
// outlive its port: a supply keeps the last voltage it was given after the port closes, so a
// max_step rule still compares with it when the port is opened again.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/limits/quantity_limits.h"

namespace labgate::serial {

// One instrument's accepted quantities, shared by whoever writes to it.
struct GuardedLimitState {
  absl::Mutex mu;
  LimitState state ABSL_GUARDED_BY(mu);
};

class InstrumentRegistry {
 public:
  // Either may be empty: no profiles, no instruments.
  InstrumentRegistry(std::string profiles_dir, std::string instruments_file);

  // Loads (or reloads) both files; on an error the catalog in force stays and the error, naming
  // the file and what is wrong, is returned.
  absl::Status Load() ABSL_LOCKS_EXCLUDED(mu_);
  std::shared_ptr<const InstrumentCatalog> catalog() const ABSL_LOCKS_EXCLUDED(mu_);

  // What binds writes to `instrument`: its profile's limits (null: none) and its state. An
  // instrument that a reload removed keeps the limits it had, while its port stays open.
  struct Limits {
    std::shared_ptr<const QuantityLimits> limits;
    std::shared_ptr<GuardedLimitState> state;
  };
  Limits LimitsOf(const std::string& instrument) ABSL_LOCKS_EXCLUDED(mu_);

  // The path a probe last found an idn_serial instrument at (list_instruments shows it without
  // probing again).
  void NoteFoundAt(const std::string& instrument, const std::string& path) ABSL_LOCKS_EXCLUDED(mu_);
  // What the instrument answered its probe when it was opened: a device that comes back must
  // answer with the same serial number (or, without one, the same reply) to take its place.
  void NoteIdentity(const std::string& instrument, const std::string& reply)
      ABSL_LOCKS_EXCLUDED(mu_);
  std::optional<std::string> IdentityOf(const std::string& instrument) const
      ABSL_LOCKS_EXCLUDED(mu_);
  std::optional<std::string> LastFoundAt(const std::string& instrument) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::string profiles_dir_;
  const std::string instruments_file_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const InstrumentCatalog> catalog_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Limits> limits_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> found_at_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> identities_ ABSL_GUARDED_BY(mu_);
};

}  // namespace labgate::serial
