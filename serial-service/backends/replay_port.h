// replay://SESSION_ID: a ScriptedPort over a ReplayedInstrument, which the port keeps a handle
// on so that writes can report divergences and replay_status can read the progress.
#pragma once

#include <memory>
#include <utility>

#include "serial-service/backends/scripted_port.h"
#include "serial-service/sim/replayed_instrument.h"

namespace labgate::serial {

class ReplayPort : public ScriptedPort {
 public:
  explicit ReplayPort(std::shared_ptr<ReplayedInstrument> replay)
      : ScriptedPort(replay, "replay"), replay_(std::move(replay)) {}
  std::shared_ptr<ReplayedInstrument> replay() const override { return replay_; }

 private:
  const std::shared_ptr<ReplayedInstrument> replay_;
};

}  // namespace labgate::serial
