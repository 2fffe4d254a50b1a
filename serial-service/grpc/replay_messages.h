// A replay:// port's progress as replay_status reports it.
#pragma once

#include "labgate/serial/v1/serial.pb.h"
#include "serial-service/sim/replayed_instrument.h"

namespace labgate::serial {

void ReplayProgressToProto(const ReplayProgress& progress, v1::ReplayStatusResponse* out);

}  // namespace labgate::serial
