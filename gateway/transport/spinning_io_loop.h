// Runs an io_context like run(), but polls for the next event for a while after each one
// before it sleeps.
#ifndef LABGATE_GATEWAY_TRANSPORT_SPINNING_IO_LOOP_H_
#define LABGATE_GATEWAY_TRANSPORT_SPINNING_IO_LOOP_H_

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace labgate::gateway {

// A sleeping thread costs each request two wake-ups, one on each side of the connection, and
// on a VM an idle core is slow to wake. After handlers have run, the thread keeps polling the
// context (epoll without a timeout) for `spin`, so a client's next request within that time
// finds it awake; then it sleeps in run_one() until the next event. An idle context therefore
// costs no CPU, and at most `spin` of polling follows each burst of work. SpinGuard stops the
// polling for a while when other threads want the CPU (a share of events preempted, or a rate).
// `spin` of zero is plain run(). Returns when the context stops or runs out of work; a handler's
// exception goes to the caller, as from run().
void RunSpinning(boost::asio::io_context& context, std::chrono::microseconds spin);

}  // namespace labgate::gateway

#endif  // LABGATE_GATEWAY_TRANSPORT_SPINNING_IO_LOOP_H_
