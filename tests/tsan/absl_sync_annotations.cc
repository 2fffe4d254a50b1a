// ThreadSanitizer cannot see inside Debian's libabsl_synchronization: it is built without the
// sanitizer, so absl::Mutex, CondVar and Notification create no happens-before edges and every
// state they guard looks racy. The tsan preset links this file into each executable. It
// defines the library's entry points (the executable's definitions take precedence over the
// shared library's, for gRPC's calls too), tells ThreadSanitizer what each does, and calls
// the library's own definition, found with dlsym(RTLD_NEXT).
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "absl/base/config.h"
#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

// The mangled names below are those of Debian bookworm's abseil (20220623, inline namespace
// debian3); another build must update them.
static_assert(std::string_view(ABSL_INTERNAL_TOKEN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME)) ==
              "debian3");

namespace {

// The library's definition of the symbol `name` (mangled), or a clear abort.
template <typename Fn>
Fn Real(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "tsan annotations: %s not found in libabsl_synchronization\n", name);
    std::abort();
  }
  return reinterpret_cast<Fn>(symbol);
}

// The library calls its own entry points too (CondVar::WaitWithTimeout calls WaitWithDeadline,
// Notification::Notify locks a Mutex): only the outermost call is annotated.
thread_local int nesting = 0;
struct Nested {
  Nested() { ++nesting; }
  ~Nested() { --nesting; }
};

// Declares `real`, the library's definition; an inner call goes straight to it.
#define LABGATE_REAL(type, mangled, ...)        \
  static const auto real = Real<type>(mangled); \
  if (nesting > 0) return real(__VA_ARGS__);    \
  const Nested nested

using MutexFn = void (*)(absl::Mutex*);
using MutexBoolFn = bool (*)(absl::Mutex*);
using CondVarWaitFn = void (*)(absl::CondVar*, absl::Mutex*);
using CondVarDeadlineFn = bool (*)(absl::CondVar*, absl::Mutex*, absl::Time);
using CondVarTimeoutFn = bool (*)(absl::CondVar*, absl::Mutex*, absl::Duration);
using AwaitTimeoutFn = bool (*)(absl::Mutex*, const absl::Condition&, absl::Duration);
using AwaitDeadlineFn = bool (*)(absl::Mutex*, const absl::Condition&, absl::Time);
using AwaitFn = void (*)(absl::Mutex*, const absl::Condition&);
using NotifyFn = void (*)(absl::Notification*);
using WaitNotificationFn = void (*)(const absl::Notification*);
using WaitNotificationTimeoutFn = bool (*)(const absl::Notification*, absl::Duration);

// A wait gives the mutex up and takes it back. What the library does in between (it may
// evaluate the waiter's condition) is ignored, as the unlock annotation already does.
template <typename Wait>
auto AroundWait(absl::Mutex* mutex, unsigned read_flag, Wait wait) {
  __tsan_mutex_pre_unlock(mutex, read_flag);
  auto result = wait();
  __tsan_mutex_post_unlock(mutex, read_flag);
  __tsan_mutex_pre_lock(mutex, read_flag);
  __tsan_mutex_post_lock(mutex, read_flag, 0);
  return result;
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  LABGATE_REAL(MutexFn, "_ZN4absl7debian35Mutex4LockEv", this);
  __tsan_mutex_pre_lock(this, 0);
  real(this);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::Unlock() {
  LABGATE_REAL(MutexFn, "_ZN4absl7debian35Mutex6UnlockEv", this);
  __tsan_mutex_pre_unlock(this, 0);
  real(this);
  __tsan_mutex_post_unlock(this, 0);
}

bool Mutex::TryLock() {
  LABGATE_REAL(MutexBoolFn, "_ZN4absl7debian35Mutex7TryLockEv", this);
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_try_lock | (locked ? 0 : __tsan_mutex_try_lock_failed),
                         0);
  return locked;
}

void Mutex::ReaderLock() {
  LABGATE_REAL(MutexFn, "_ZN4absl7debian35Mutex10ReaderLockEv", this);
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

void Mutex::ReaderUnlock() {
  LABGATE_REAL(MutexFn, "_ZN4absl7debian35Mutex12ReaderUnlockEv", this);
  __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

void Mutex::Await(const Condition& cond) {
  LABGATE_REAL(AwaitFn, "_ZN4absl7debian35Mutex5AwaitERKNS0_9ConditionE", this, cond);
  AroundWait(this, 0, [&] {
    real(this, cond);
    return 0;
  });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  LABGATE_REAL(AwaitTimeoutFn,
               "_ZN4absl7debian35Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE", this,
               cond, timeout);
  return AroundWait(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  LABGATE_REAL(AwaitDeadlineFn,
               "_ZN4absl7debian35Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE", this,
               cond, deadline);
  return AroundWait(this, 0, [&] { return real(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mutex) {
  LABGATE_REAL(CondVarWaitFn, "_ZN4absl7debian37CondVar4WaitEPNS0_5MutexE", this, mutex);
  AroundWait(mutex, 0, [&] {
    real(this, mutex);
    return 0;
  });
}

bool CondVar::WaitWithDeadline(Mutex* mutex, Time deadline) {
  LABGATE_REAL(CondVarDeadlineFn,
               "_ZN4absl7debian37CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE", this, mutex,
               deadline);
  return AroundWait(mutex, 0, [&] { return real(this, mutex, deadline); });
}

bool CondVar::WaitWithTimeout(Mutex* mutex, Duration timeout) {
  LABGATE_REAL(CondVarTimeoutFn,
               "_ZN4absl7debian37CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE", this, mutex,
               timeout);
  return AroundWait(mutex, 0, [&] { return real(this, mutex, timeout); });
}

// Notify publishes everything before it to whoever sees the notification.
void Notification::Notify() {
  LABGATE_REAL(NotifyFn, "_ZN4absl7debian312Notification6NotifyEv", this);
  __tsan_release(this);
  real(this);
}

void Notification::WaitForNotification() const {
  LABGATE_REAL(WaitNotificationFn, "_ZNK4absl7debian312Notification19WaitForNotificationEv", this);
  real(this);
  __tsan_acquire(const_cast<Notification*>(this));
}

bool Notification::WaitForNotificationWithTimeout(Duration timeout) const {
  LABGATE_REAL(WaitNotificationTimeoutFn,
               "_ZNK4absl7debian312Notification30WaitForNotificationWithTimeoutENS0_8DurationE",
               this, timeout);
  const bool notified = real(this, timeout);
  if (notified) __tsan_acquire(const_cast<Notification*>(this));
  return notified;
}

ABSL_NAMESPACE_END
}  // namespace absl
