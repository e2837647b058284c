/*
 * iowrap.c - libcollector-io.so: the interposers of collect -i on, under
 * every symbol version glibc 2.36 exports for them (objdump -T libc.so.6:
 * one each; collector/libcollector-io.map names it), and the
 * _FORTIFY_SOURCE variants (__open_2, __read_chk, ...), which count as
 * their function.  collect preloads it before libcollector.so only with -i
 * on, so no other target ever runs through these functions.
 *
 * Each entry point calls the real function of its version (dlvsym(RTLD_NEXT),
 * resolved on its first call).  While the process traces I/O the clock is
 * read around the real call and the call reported through libcollector.so's
 * trace API (trace_api.h): function, descriptor(s), bytes transferred, errno,
 * start and duration; libcollector.so keeps the descriptor table and takes
 * the stack.  Return values and errno are the real function's.  Nothing here
 * allocates or locks, and nothing calls what it interposes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "collector/trace_api.h"
#include "collector/wrapreal.h"
#include "experiment/format.h"

#define EXPORT __attribute__((visibility("default")))

/* glibc declares these only under _FORTIFY_SOURCE. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *from,
		       socklen_t *fromlen);

/* ------------------------------------------------------------ the trace API */

/* The API when this process traces I/O now, else NULL. */
static const struct pa_trace_api *tracing(void)
{
	const struct pa_trace_api *a = trace_api();
	return a && a->io_active() ? a : NULL;
}

/*
 * The call that began at t0 returned r (-1: failed, errno says why): report
 * it.  xfer: r is a byte count.  Keeps errno.
 */
static void done(const struct pa_trace_api *a, unsigned func, long r, int fd, int fd2, int xfer,
		 const char *path, uint64_t t0, void *fn)
{
	int e = errno;
	uint64_t t1 = now_ns();
	struct pa_io_call c = {.func = func,
			       .fd = fd,
			       .fd2 = fd2,
			       .failed = r < 0,
			       .err = r < 0 ? e : 0,
			       .bytes = xfer && r > 0 ? (uint64_t)r : 0,
			       .start_ns = t0,
			       .dur_ns = t1 - t0,
			       .leaf_pc = (uint64_t)(uintptr_t)fn,
			       .path = path};
	a->io_record(&c);
	errno = e;
}

/*
 * WRAP(type, name, version, func, params, args, fd, fd2, xfer, path): the
 * entry point `name` (exported under `version` by the .map), calling the real
 * one.  fd, fd2 and path are expressions evaluated after the call, which may
 * use its result r.
 */
#define WRAP(type, name, ver, func, params, args, fd_, fd2_, xfer, path_)          \
	EXPORT type name params                                                    \
	{                                                                          \
		static struct real real_ = {#name, ver, NULL};                     \
		type(*fn_) params = (type(*) params)real_get(&real_);              \
		if (!fn_) {                                                        \
			errno = ENOSYS;                                            \
			return -1;                                                 \
		}                                                                  \
		const struct pa_trace_api *a_ = tracing();                         \
		if (!a_)                                                           \
			return fn_ args;                                           \
		uint64_t t0_ = now_ns();                                           \
		type r = fn_ args;                                                 \
		done(a_, func, (long)r, fd_, fd2_, xfer, path_, t0_, (void *)fn_); \
		return r;                                                          \
	}

/* open and its kin take a mode only with O_CREAT or O_TMPFILE */
#define MODE_ARG(flags, mode)                       \
	do {                                        \
		if (__OPEN_NEEDS_MODE(flags)) {     \
			va_list ap_;                \
			va_start(ap_, flags);       \
			mode = va_arg(ap_, mode_t); \
			va_end(ap_);                \
		}                                   \
	} while (0)

static int open_common(struct real *rl, unsigned func, int dirfd, const char *path, int flags, mode_t mode)
{
	void *p = real_get(rl);
	if (!p) {
		errno = ENOSYS;
		return -1;
	}
	const struct pa_trace_api *a = tracing();
	int r;
	uint64_t t0 = a ? now_ns() : 0;
	if (dirfd == AT_FDCWD - 1) /* open, open64 */
		r = ((int (*)(const char *, int, ...))p)(path, flags, mode);
	else
		r = ((int (*)(int, const char *, int, ...))p)(dirfd, path, flags, mode);
	if (a)
		done(a, func, r, r, -1, 0, path, t0, p);
	return r;
}

#define NOT_AT (AT_FDCWD - 1)

static struct real real_open = {"open", "GLIBC_2.2.5", NULL};
static struct real real_open64 = {"open64", "GLIBC_2.2.5", NULL};
static struct real real_openat = {"openat", "GLIBC_2.4", NULL};
static struct real real_openat64 = {"openat64", "GLIBC_2.4", NULL};

EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return open_common(&real_open, EXP_IO_OPEN, NOT_AT, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return open_common(&real_open64, EXP_IO_OPEN64, NOT_AT, path, flags, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return open_common(&real_openat, EXP_IO_OPENAT, dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return open_common(&real_openat64, EXP_IO_OPENAT64, dirfd, path, flags, mode);
}

/* the _FORTIFY_SOURCE opens (no mode: they fail on O_CREAT without one) */
static struct real real_open_2 = {"__open_2", "GLIBC_2.7", NULL};
static struct real real_open64_2 = {"__open64_2", "GLIBC_2.7", NULL};
static struct real real_openat_2 = {"__openat_2", "GLIBC_2.7", NULL};
static struct real real_openat64_2 = {"__openat64_2", "GLIBC_2.7", NULL};

EXPORT int __open_2(const char *path, int flags)
{
	return open_common(&real_open_2, EXP_IO_OPEN, NOT_AT, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return open_common(&real_open64_2, EXP_IO_OPEN64, NOT_AT, path, flags, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return open_common(&real_openat_2, EXP_IO_OPENAT, dirfd, path, flags, 0);
}

EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return open_common(&real_openat64_2, EXP_IO_OPENAT64, dirfd, path, flags, 0);
}

#define V225 "GLIBC_2.2.5"
#define V24 "GLIBC_2.4"
#define V29 "GLIBC_2.9"

WRAP(int, creat, V225, EXP_IO_CREAT, (const char *path, mode_t mode), (path, mode), r, -1, 0, path)
WRAP(int, creat64, V225, EXP_IO_CREAT64, (const char *path, mode_t mode), (path, mode), r, -1, 0, path)
WRAP(int, close, V225, EXP_IO_CLOSE, (int fd), (fd), fd, -1, 0, NULL)
WRAP(ssize_t, read, V225, EXP_IO_READ, (int fd, void *buf, size_t n), (fd, buf, n), fd, -1, 1, NULL)
WRAP(ssize_t, write, V225, EXP_IO_WRITE, (int fd, const void *buf, size_t n), (fd, buf, n), fd, -1, 1, NULL)
WRAP(ssize_t, pread, V225, EXP_IO_PREAD, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off), fd, -1,
     1, NULL)
WRAP(ssize_t, pread64, V225, EXP_IO_PREAD64, (int fd, void *buf, size_t n, off64_t off), (fd, buf, n, off),
     fd, -1, 1, NULL)
WRAP(ssize_t, pwrite, V225, EXP_IO_PWRITE, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off),
     fd, -1, 1, NULL)
WRAP(ssize_t, pwrite64, V225, EXP_IO_PWRITE64, (int fd, const void *buf, size_t n, off64_t off),
     (fd, buf, n, off), fd, -1, 1, NULL)
WRAP(ssize_t, readv, V225, EXP_IO_READV, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), fd, -1,
     1, NULL)
WRAP(ssize_t, writev, V225, EXP_IO_WRITEV, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), fd, -1,
     1, NULL)
WRAP(off_t, lseek, V225, EXP_IO_LSEEK, (int fd, off_t off, int whence), (fd, off, whence), fd, -1, 0, NULL)
WRAP(off64_t, lseek64, V225, EXP_IO_LSEEK64, (int fd, off64_t off, int whence), (fd, off, whence), fd, -1, 0,
     NULL)
WRAP(int, fsync, V225, EXP_IO_FSYNC, (int fd), (fd), fd, -1, 0, NULL)
WRAP(int, fdatasync, V225, EXP_IO_FDATASYNC, (int fd), (fd), fd, -1, 0, NULL)
WRAP(int, dup, V225, EXP_IO_DUP, (int old), (old), r, old, 0, NULL)
WRAP(int, dup2, V225, EXP_IO_DUP2, (int old, int new_fd), (old, new_fd), r, old, 0, NULL)
WRAP(int, dup3, V29, EXP_IO_DUP3, (int old, int new_fd, int flags), (old, new_fd, flags), r, old, 0, NULL)
WRAP(int, pipe, V225, EXP_IO_PIPE, (int fds[2]), (fds), r == 0 ? fds[0] : -1, r == 0 ? fds[1] : -1, 0, NULL)
WRAP(int, pipe2, V29, EXP_IO_PIPE2, (int fds[2], int flags), (fds, flags), r == 0 ? fds[0] : -1,
     r == 0 ? fds[1] : -1, 0, NULL)
WRAP(int, socket, V225, EXP_IO_SOCKET, (int domain, int type, int proto), (domain, type, proto), r, -1, 0,
     NULL)
WRAP(int, socketpair, V225, EXP_IO_SOCKETPAIR, (int domain, int type, int proto, int sv[2]),
     (domain, type, proto, sv), r == 0 ? sv[0] : -1, r == 0 ? sv[1] : -1, 0, NULL)
WRAP(int, accept, V225, EXP_IO_ACCEPT, (int fd, struct sockaddr *addr, socklen_t *len), (fd, addr, len), r,
     -1, 0, NULL)
WRAP(int, connect, V225, EXP_IO_CONNECT, (int fd, const struct sockaddr *addr, socklen_t len),
     (fd, addr, len), fd, -1, 0, NULL)
WRAP(ssize_t, send, V225, EXP_IO_SEND, (int fd, const void *buf, size_t n, int flags), (fd, buf, n, flags),
     fd, -1, 1, NULL)
WRAP(ssize_t, recv, V225, EXP_IO_RECV, (int fd, void *buf, size_t n, int flags), (fd, buf, n, flags), fd, -1,
     1, NULL)
WRAP(ssize_t, sendto, V225, EXP_IO_SENDTO,
     (int fd, const void *buf, size_t n, int flags, const struct sockaddr *to, socklen_t tolen),
     (fd, buf, n, flags, to, tolen), fd, -1, 1, NULL)
WRAP(ssize_t, recvfrom, V225, EXP_IO_RECVFROM,
     (int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *fromlen),
     (fd, buf, n, flags, from, fromlen), fd, -1, 1, NULL)

/* the _FORTIFY_SOURCE reads */
WRAP(ssize_t, __read_chk, V24, EXP_IO_READ, (int fd, void *buf, size_t n, size_t buflen),
     (fd, buf, n, buflen), fd, -1, 1, NULL)
WRAP(ssize_t, __pread_chk, V24, EXP_IO_PREAD, (int fd, void *buf, size_t n, off_t off, size_t buflen),
     (fd, buf, n, off, buflen), fd, -1, 1, NULL)
WRAP(ssize_t, __pread64_chk, V24, EXP_IO_PREAD64, (int fd, void *buf, size_t n, off64_t off, size_t buflen),
     (fd, buf, n, off, buflen), fd, -1, 1, NULL)
WRAP(ssize_t, __recv_chk, V24, EXP_IO_RECV, (int fd, void *buf, size_t n, size_t buflen, int flags),
     (fd, buf, n, buflen, flags), fd, -1, 1, NULL)
WRAP(ssize_t, __recvfrom_chk, V24, EXP_IO_RECVFROM,
     (int fd, void *buf, size_t n, size_t buflen, int flags, struct sockaddr *from, socklen_t *fromlen),
     (fd, buf, n, buflen, flags, from, fromlen), fd, -1, 1, NULL)

/* the vectored reads and writes at an offset, and their flags variants */
#define V210 "GLIBC_2.10"
#define V226 "GLIBC_2.26"
#define IOV_OFF_PARAMS(off_t_) (int fd, const struct iovec *iov, int cnt, off_t_ off)
#define IOV_FLAGS_PARAMS(off_t_) (int fd, const struct iovec *iov, int cnt, off_t_ off, int flags)

WRAP(ssize_t, preadv, V210, EXP_IO_PREADV, IOV_OFF_PARAMS(off_t), (fd, iov, cnt, off), fd, -1, 1, NULL)
WRAP(ssize_t, preadv64, V210, EXP_IO_PREADV64, IOV_OFF_PARAMS(off64_t), (fd, iov, cnt, off), fd, -1, 1, NULL)
WRAP(ssize_t, pwritev, V210, EXP_IO_PWRITEV, IOV_OFF_PARAMS(off_t), (fd, iov, cnt, off), fd, -1, 1, NULL)
WRAP(ssize_t, pwritev64, V210, EXP_IO_PWRITEV64, IOV_OFF_PARAMS(off64_t), (fd, iov, cnt, off), fd, -1, 1,
     NULL)
WRAP(ssize_t, preadv2, V226, EXP_IO_PREADV2, IOV_FLAGS_PARAMS(off_t), (fd, iov, cnt, off, flags), fd, -1, 1,
     NULL)
WRAP(ssize_t, preadv64v2, V226, EXP_IO_PREADV64V2, IOV_FLAGS_PARAMS(off64_t), (fd, iov, cnt, off, flags), fd,
     -1, 1, NULL)
WRAP(ssize_t, pwritev2, V226, EXP_IO_PWRITEV2, IOV_FLAGS_PARAMS(off_t), (fd, iov, cnt, off, flags), fd, -1, 1,
     NULL)
WRAP(ssize_t, pwritev64v2, V226, EXP_IO_PWRITEV64V2, IOV_FLAGS_PARAMS(off64_t), (fd, iov, cnt, off, flags),
     fd, -1, 1, NULL)

/* messages on a socket */
WRAP(ssize_t, sendmsg, V225, EXP_IO_SENDMSG, (int fd, const struct msghdr *msg, int flags), (fd, msg, flags),
     fd, -1, 1, NULL)
WRAP(ssize_t, recvmsg, V225, EXP_IO_RECVMSG, (int fd, struct msghdr *msg, int flags), (fd, msg, flags), fd,
     -1, 1, NULL)

/*
 * The copies in the kernel: the record names the descriptor written to (the
 * bytes count as read and as written: record_io_class).
 */
#define V23 "GLIBC_2.3"
#define V227 "GLIBC_2.27"

WRAP(ssize_t, sendfile, V225, EXP_IO_SENDFILE, (int out_fd, int in_fd, off_t *off, size_t n),
     (out_fd, in_fd, off, n), out_fd, -1, 1, NULL)
WRAP(ssize_t, sendfile64, V23, EXP_IO_SENDFILE64, (int out_fd, int in_fd, off64_t *off, size_t n),
     (out_fd, in_fd, off, n), out_fd, -1, 1, NULL)
WRAP(ssize_t, copy_file_range, V227, EXP_IO_COPY_FILE_RANGE,
     (int in_fd, off64_t *in_off, int out_fd, off64_t *out_off, size_t n, unsigned flags),
     (in_fd, in_off, out_fd, out_off, n, flags), out_fd, -1, 1, NULL)
