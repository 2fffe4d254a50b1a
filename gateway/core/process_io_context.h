// An io_context that is never destroyed.
#pragma once

#include <boost/asio/io_context.hpp>

namespace labgate::gateway {

// A new io_context that lives as long as the process. gRPC's threads, which nothing can join,
// may let go of the last reference to a session, and so to its strand, after its owner has
// stopped; an Asio strand must not outlive its io_context. Work still queued on it when it
// stops is neither run nor destroyed (it stays reachable, so LeakSanitizer does not count it).
boost::asio::io_context& ProcessLifetimeIoContext();

}  // namespace labgate::gateway
