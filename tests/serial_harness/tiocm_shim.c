// LD_PRELOAD shim: pseudo-terminals have no modem control lines, so TIOCMGET,
// TIOCMSET, TIOCMBIS and TIOCMBIC fail there with ENOTTY, and libserialport's
// sp_open() gives up. When (and only when) the kernel answers ENOTTY to one of
// those four requests, this shim keeps the modem bits per file descriptor in
// memory instead. Every other ioctl goes to the kernel untouched.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/ioctl.h>

// Lets a test check that the shim is loaded: dlsym(RTLD_DEFAULT, this name).
int labgate_tiocm_shim_loaded = 1;

enum { kMaxFds = 4096 };
static int modem_bits[kMaxFds];
static pthread_mutex_t modem_lock = PTHREAD_MUTEX_INITIALIZER;

typedef int (*ioctl_fn)(int, unsigned long, ...);

static ioctl_fn real_ioctl(void) {
  static ioctl_fn fn = 0;
  if (fn == 0) fn = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
  return fn;
}

static int is_modem_request(unsigned long request) {
  return request == TIOCMGET || request == TIOCMSET || request == TIOCMBIS || request == TIOCMBIC;
}

int ioctl(int fd, unsigned long request, ...) {
  va_list args;
  va_start(args, request);
  void* arg = va_arg(args, void*);
  va_end(args);

  int result = real_ioctl()(fd, request, arg);
  if (result == 0 || errno != ENOTTY || !is_modem_request(request) || fd < 0 || fd >= kMaxFds ||
      arg == 0) {
    return result;
  }
  int* bits = (int*)arg;
  pthread_mutex_lock(&modem_lock);
  switch (request) {
    case TIOCMGET:
      // Report the lines a connected peer would drive: CTS, DSR and carrier.
      *bits = modem_bits[fd] | TIOCM_CTS | TIOCM_DSR | TIOCM_CAR;
      break;
    case TIOCMSET:
      modem_bits[fd] = *bits;
      break;
    case TIOCMBIS:
      modem_bits[fd] |= *bits;
      break;
    case TIOCMBIC:
      modem_bits[fd] &= ~*bits;
      break;
  }
  pthread_mutex_unlock(&modem_lock);
  errno = 0;
  return 0;
}
