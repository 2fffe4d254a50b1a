#include "serial-service/grpc/instrument_messages.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/ports/port_settings.h"

namespace labgate::serial {

absl::StatusOr<PortSettings> InstrumentSettingsFromOpenRequest(const v1::OpenPortRequest& request,
                                                               const InstrumentProfile& profile) {
  v1::OpenPortRequest filled = request;
  // Called by the instrument's name; SettingsFromOpenRequest wants a port name.
  filled.set_port_name(request.instrument());
  const InstrumentProfile::Settings& given = profile.settings;
  if (filled.baud_rate() == 0) {
    if (!given.baud_rate.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("baud_rate is required: the profile of ",
                                                     request.instrument(), " (", profile.model,
                                                     ", ", profile.source, ") gives none"));
    }
    filled.set_baud_rate(*given.baud_rate);
  }
  if (!filled.has_timeout_ms() && given.timeout_ms.has_value()) {
    filled.set_timeout_ms(*given.timeout_ms);
  }
  if (filled.data_bits() == v1::DATA_BITS_UNSPECIFIED && given.data_bits.has_value()) {
    filled.set_data_bits(static_cast<v1::DataBits>(*given.data_bits));
  }
  if (filled.stop_bits() == v1::STOP_BITS_UNSPECIFIED && given.stop_bits.has_value()) {
    filled.set_stop_bits(*given.stop_bits == 2 ? v1::STOP_BITS_TWO : v1::STOP_BITS_ONE);
  }
  if (filled.parity() == v1::PARITY_UNSPECIFIED && given.parity.has_value()) {
    filled.set_parity(*given.parity == "odd"    ? v1::PARITY_ODD
                      : *given.parity == "even" ? v1::PARITY_EVEN
                                                : v1::PARITY_NONE);
  }
  if (filled.flow_control() == v1::FLOW_CONTROL_UNSPECIFIED && given.flow_control.has_value()) {
    if (*given.flow_control == "hardware") filled.set_flow_control(v1::FLOW_CONTROL_HARDWARE);
    if (*given.flow_control == "software") filled.set_flow_control(v1::FLOW_CONTROL_SOFTWARE);
  }
  if (!filled.has_terminator() && given.terminator.has_value()) {
    filled.set_terminator(*given.terminator);
  }
  absl::StatusOr<PortSettings> settings = SettingsFromOpenRequest(filled);
  if (!settings.ok()) return settings;
  std::set<std::string> named;
  for (const LineSequence& sequence : settings->sequences) named.insert(sequence.name);
  for (const LineSequence& sequence : profile.sequences) {
    if (!named.contains(sequence.name)) settings->sequences.push_back(sequence);
  }
  return settings;
}

void InstrumentListingToProto(const InstrumentListing& listing, v1::InstrumentInfo* out) {
  const NamedInstrument& named = listing.named;
  out->set_name(named.name);
  out->set_model(named.profile);
  out->set_present(listing.present);
  if (listing.path.has_value()) out->set_port(*listing.path);
  if (named.bench.has_value()) out->set_bench(*named.bench);
  out->set_owner(listing.owner);
  out->set_open(listing.open);
  for (const std::string& tag : named.tags) out->add_tags(tag);
  out->set_match(absl::StrCat(MatchKindName(named.match.kind), " ", named.match.value));
  if (!listing.present && !listing.absent_reason.empty()) {
    out->set_absent_reason(listing.absent_reason);
  }
  if (listing.profile == nullptr || listing.profile->limits == nullptr) return;
  const LimitsSpec& spec = listing.profile->limits->spec();
  for (const LimitRule& rule : spec.rules) {
    v1::InstrumentLimit* limit = out->add_limits();
    limit->set_name(rule.name);
    limit->set_quantity(rule.quantity);
    if (const int index = listing.profile->limits->QuantityIndex(rule.quantity); index >= 0) {
      limit->set_unit(spec.quantities[static_cast<size_t>(index)].unit);
    }
    if (rule.channel.has_value()) limit->set_channel(*rule.channel);
    if (rule.max.has_value()) limit->set_max(*rule.max);
    if (rule.min.has_value()) limit->set_min(*rule.min);
    if (rule.max_step.has_value()) limit->set_max_step(*rule.max_step);
    if (rule.ramp_per_s.has_value()) limit->set_ramp_per_s(*rule.ramp_per_s);
    if (rule.confirm_above.has_value()) limit->set_confirm_above(*rule.confirm_above);
  }
}

}  // namespace labgate::serial
