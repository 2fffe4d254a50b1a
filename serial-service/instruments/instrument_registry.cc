#include "serial-service/instruments/instrument_registry.h"

#include <utility>

#include "common/log.h"

namespace labgate::serial {

InstrumentRegistry::InstrumentRegistry(std::string profiles_dir, std::string instruments_file)
    : profiles_dir_(std::move(profiles_dir)),
      instruments_file_(std::move(instruments_file)),
      catalog_(std::make_shared<const InstrumentCatalog>()) {}

absl::Status InstrumentRegistry::Load() {
  if (profiles_dir_.empty() && instruments_file_.empty()) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<const InstrumentCatalog>> loaded =
      LoadInstrumentCatalog(profiles_dir_, instruments_file_);
  if (!loaded.ok()) {
    LG_LOG(kError) << "instruments not (re)loaded, the previous ones stay in force: "
                   << std::string(loaded.status().message());
    return loaded.status();
  }
  absl::MutexLock lock(&mu_);
  catalog_ = *std::move(loaded);
  LG_LOG(kInfo) << "instruments: " << catalog_->profiles.size() << " profile(s), "
                << catalog_->instruments.size() << " named instrument(s)";
  return absl::OkStatus();
}

std::shared_ptr<const InstrumentCatalog> InstrumentRegistry::catalog() const {
  absl::MutexLock lock(&mu_);
  return catalog_;
}

InstrumentRegistry::Limits InstrumentRegistry::LimitsOf(const std::string& instrument) {
  absl::MutexLock lock(&mu_);
  Limits& known = limits_[instrument];
  if (known.state == nullptr) known.state = std::make_shared<GuardedLimitState>();
  if (const NamedInstrument* named = catalog_->Find(instrument); named != nullptr) {
    const InstrumentProfile* profile = catalog_->ProfileFor(named->profile);
    known.limits = profile != nullptr ? profile->limits : nullptr;
  }
  return known;
}

void InstrumentRegistry::NoteFoundAt(const std::string& instrument, const std::string& path) {
  absl::MutexLock lock(&mu_);
  found_at_[instrument] = path;
}

void InstrumentRegistry::NoteIdentity(const std::string& instrument, const std::string& reply) {
  absl::MutexLock lock(&mu_);
  identities_[instrument] = reply;
}

std::optional<std::string> InstrumentRegistry::IdentityOf(const std::string& instrument) const {
  absl::MutexLock lock(&mu_);
  auto it = identities_.find(instrument);
  if (it == identities_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> InstrumentRegistry::LastFoundAt(const std::string& instrument) const {
  absl::MutexLock lock(&mu_);
  auto it = found_at_.find(instrument);
  if (it == found_at_.end()) return std::nullopt;
  return it->second;
}

}  // namespace labgate::serial
