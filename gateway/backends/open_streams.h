// The client streams this process has open on its backends. Each stream reactor holds an
// OpenStreams::Entry from its start until gRPC reports it done, so that shutdown can wait
// for cancelled streams to finish before the channels they run on are destroyed (gRPC
// 1.51 aborts when the last channel goes while a stream still completes).
#pragma once

#include <chrono>
#include <cstddef>

namespace labgate::gateway {

class OpenStreams {
 public:
  class Entry {
   public:
    Entry();
    ~Entry();
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
  };

  static std::size_t count();
  // True once no stream is open; false if some are still open after `timeout`.
  static bool WaitUntilNone(std::chrono::milliseconds timeout);
};

}  // namespace labgate::gateway
