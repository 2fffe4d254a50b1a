#include "serial-service/grpc/replay_messages.h"

#include "common/time_format.h"

namespace labgate::serial {

void ReplayProgressToProto(const ReplayProgress& progress, v1::ReplayStatusResponse* out) {
  out->set_session_id(progress.target.session_id);
  out->set_mode(ReplayModeName(progress.target.mode));
  out->set_speed(progress.target.speed);
  out->set_matched(progress.matched);
  out->set_total_tx(progress.total_tx);
  out->set_total_rx(progress.total_rx);
  out->set_rx_played(progress.rx_played);
  for (const ReplayDivergence& divergence : progress.divergences) {
    v1::ReplayDivergence* shown = out->add_divergences();
    shown->set_message_id(divergence.message_id);
    shown->set_expected(divergence.expected);
    shown->set_sent(divergence.sent);
    shown->set_at(FormatRfc3339(divergence.at));
  }
  out->set_divergence_count(progress.divergence_count);
  out->set_finished(progress.finished);
  out->set_summary(progress.loaded ? progress.Summary() : "loading the recording");
}

}  // namespace labgate::serial
