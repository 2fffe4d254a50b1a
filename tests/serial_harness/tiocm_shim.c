// LD_PRELOAD shim: pseudo-terminals have no modem control lines, so TIOCMGET,
// TIOCMSET, TIOCMBIS and TIOCMBIC fail there with ENOTTY, and libserialport's
// sp_open() gives up. When (and only when) the kernel answers ENOTTY to one of
// those four requests, this shim keeps the modem bits per file descriptor in
// memory instead. Every other ioctl goes to the kernel untouched. A descriptor starts with
// DTR and RTS asserted, as the kernel leaves a real serial port after open(); close()
// forgets its bits.
//
// A simulated instrument can follow the lines the host drives: when LABGATE_TIOCM_NOTIFY
// names an abstract unix datagram socket, every change of a descriptor's bits is sent there
// as "<st_rdev of the tty> <bits>" (see tests/serial_harness/modem_line_listener.h).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

// Lets a test check that the shim is loaded: dlsym(RTLD_DEFAULT, this name).
int labgate_tiocm_shim_loaded = 1;

enum { kMaxFds = 4096 };
static int modem_bits[kMaxFds];
static char modem_bits_known[kMaxFds];
static pthread_mutex_t modem_lock = PTHREAD_MUTEX_INITIALIZER;

typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*close_fn)(int);

static close_fn real_close(void) {
  static close_fn fn = 0;
  if (fn == 0) fn = (close_fn)dlsym(RTLD_NEXT, "close");
  return fn;
}

int close(int fd) {
  if (fd >= 0 && fd < kMaxFds) {
    pthread_mutex_lock(&modem_lock);
    modem_bits_known[fd] = 0;
    pthread_mutex_unlock(&modem_lock);
  }
  return real_close()(fd);
}

static ioctl_fn real_ioctl(void) {
  static ioctl_fn fn = 0;
  if (fn == 0) fn = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
  return fn;
}

static int is_modem_request(unsigned long request) {
  return request == TIOCMGET || request == TIOCMSET || request == TIOCMBIS || request == TIOCMBIC;
}

// Tells the simulator of `fd`'s new bits; best effort, never blocks.
static void notify_listener(int fd, int bits) {
  const char* name = getenv("LABGATE_TIOCM_NOTIFY");
  struct stat device;
  if (name == 0 || *name == 0 || strlen(name) > 100 || fstat(fd, &device) != 0) return;
  struct sockaddr_un address;
  memset(&address, 0, sizeof(address));
  address.sun_family = AF_UNIX;
  memcpy(address.sun_path + 1, name, strlen(name));  // sun_path[0] == 0: abstract
  char message[64];
  const int length =
      snprintf(message, sizeof(message), "%lu %d", (unsigned long)device.st_rdev, bits);
  const int sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (sock < 0) return;
  sendto(sock, message, (size_t)length, 0, (struct sockaddr*)&address,
         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name)));
  real_close()(sock);  // not close(): the caller holds modem_lock
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
  if (!modem_bits_known[fd]) {
    modem_bits[fd] = TIOCM_DTR | TIOCM_RTS;
    modem_bits_known[fd] = 1;
  }
  const int before = modem_bits[fd];
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
  const int after = modem_bits[fd];
  // Sent under the lock, so that the listener hears one descriptor's changes in order.
  if (after != before) notify_listener(fd, after);
  pthread_mutex_unlock(&modem_lock);
  errno = 0;
  return 0;
}
