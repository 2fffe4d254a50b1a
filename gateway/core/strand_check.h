// Debug checks of "runs on the strand" preconditions (see LG_DCHECK in common/dcheck.h).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <typeinfo>

#include "gateway/core/run_or_queue_strand.h"

namespace labgate::gateway {

// True when the calling thread is running `executor`'s work: a RunOrQueueStrand or an Asio
// strand on an io_context. Any other executor cannot tell, and passes.
// (Boost 1.74's any_executor::target<T>() does not check T: the type is compared first.)
inline bool RunningOnStrand(const boost::asio::any_io_executor& executor) {
  using AsioStrand = boost::asio::strand<boost::asio::io_context::executor_type>;
  if (executor.target_type() == typeid(RunOrQueueStrand)) {
    return executor.target<RunOrQueueStrand>()->running_in_this_thread();
  }
  if (executor.target_type() == typeid(AsioStrand)) {
    return executor.target<AsioStrand>()->running_in_this_thread();
  }
  return true;
}

}  // namespace labgate::gateway
