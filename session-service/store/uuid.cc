#include "session-service/store/uuid.h"

#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>

namespace labgate::session {

std::string NewUuidV4() {
  // One generator per thread: boost's is not safe to share, and each draws from the OS.
  thread_local boost::uuids::random_generator generator;
  return boost::uuids::to_string(generator());
}

}  // namespace labgate::session
