// gRPC 1.51 (Debian bookworm) runs the callback API's completions on a pool of threads that
// exists while some channel that made a callback call exists. If the last such channel is
// destroyed on one of those threads (a call's ClientContext held the last reference and was
// freed inside its callback, after its owner had let the channel go), the pool joins itself
// and frees its queue under its own feet: the process aborts with "assertion failed:
// prior > 0". One such channel held for the life of the process keeps the pool alive.
#pragma once

namespace labgate {

// Makes sure the pool outlives every other channel. Cheap after the first call; call it
// wherever channels for callback calls are made.
void KeepGrpcCallbackThreads();

}  // namespace labgate
