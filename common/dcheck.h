// LG_DCHECK(condition, what): a precondition that debug builds check (Debug, and so the
// asan, tsan and clang-tsa presets), such as "runs on the connection's strand". A failure
// names the condition and `what` on stderr and aborts. Under NDEBUG (release and
// RelWithDebInfo) the condition is not evaluated.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace labgate::internal {

[[noreturn]] inline void DcheckFailed(const char* condition, const char* what, const char* file,
                                      int line) {
  std::fprintf(stderr, "%s:%d: debug check failed: %s (%s)\n", file, line, condition, what);
  std::abort();
}

}  // namespace labgate::internal

#ifdef NDEBUG
#define LG_DCHECK(condition, what) static_cast<void>(0)
#else
#define LG_DCHECK(condition, what)    \
  ((condition) ? static_cast<void>(0) \
               : ::labgate::internal::DcheckFailed(#condition, what, __FILE__, __LINE__))
#endif
