// Hand-offs that ThreadSanitizer cannot see. Debian's gRPC is not built with it, so when a
// thread starts a gRPC operation and another runs its completion (a completion queue's tag,
// a reactor's OnWriteDone), nothing tells ThreadSanitizer that the second comes after the
// first. HandOff(object) before the operation starts and TakeOver(object) where its
// completion begins say so. Both do nothing in other builds.
#pragma once

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#include <sanitizer/tsan_interface.h>
#define LABGATE_TSAN_HANDOFF 1
#endif
#endif

namespace labgate {

inline void HandOff([[maybe_unused]] void* object) {
#ifdef LABGATE_TSAN_HANDOFF
  __tsan_release(object);
#endif
}

inline void TakeOver([[maybe_unused]] void* object) {
#ifdef LABGATE_TSAN_HANDOFF
  __tsan_acquire(object);
#endif
}

}  // namespace labgate
