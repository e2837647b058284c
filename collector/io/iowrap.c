/*
 * iowrap.c - libcollector-io.so: the interposers of collect -i on, under
 * every symbol version glibc 2.36 exports for them (objdump -T libc.so.6:
 * one each; collector/io/libcollector-io.map names it), and the
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
 *
 * The stdio family (fopen .. getline, printf, ...) and the mkstemp family are
 * traced at their own level: while one of their real calls runs on a thread,
 * a depth count of that thread silences the descriptor calls it makes (the
 * write of a flushed buffer, the open of fopen), so each byte is counted
 * once, whether or not the libc makes those calls through its PLT (glibc
 * does not).  A stream's descriptor is taken before the call (fclose).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* glibc's other names of stdio functions, and llseek (a compatibility symbol) */
FILE *_IO_fopen(const char *path, const char *mode);
FILE *_IO_fdopen(int fd, const char *mode);
int _IO_fclose(FILE *fp);
size_t _IO_fread(void *p, size_t size, size_t n, FILE *fp);
size_t _IO_fwrite(const void *p, size_t size, size_t n, FILE *fp);
char *_IO_fgets(char *s, int n, FILE *fp);
int _IO_fputs(const char *s, FILE *fp);
int _IO_puts(const char *s);
int _IO_fflush(FILE *fp);
int _IO_fprintf(FILE *fp, const char *fmt, ...);
int _IO_printf(const char *fmt, ...);
int _IO_vfprintf(FILE *fp, const char *fmt, va_list ap);
ssize_t __getdelim(char **line, size_t *n, int delim, FILE *fp);
char *__fgets_chk(char *s, size_t size, int n, FILE *fp);
char *__fgets_unlocked_chk(char *s, size_t size, int n, FILE *fp);
size_t __fread_chk(void *p, size_t room, size_t size, size_t n, FILE *fp);
size_t __fread_unlocked_chk(void *p, size_t room, size_t size, size_t n, FILE *fp);
int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...);
int __printf_chk(int flag, const char *fmt, ...);
int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
off64_t llseek(int fd, off64_t off, int whence);

/* glibc may define these as macros (optimizing, bits/stdio.h) */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef fputs_unlocked

/*
 * >0 while this thread runs a real stdio or mkstemp call that is traced: the
 * descriptor calls it makes are its own and not recorded again.
 */
static __thread unsigned tls_inner;

/* ------------------------------------------------------------ the trace API */

/* The API when this process traces I/O now, else NULL. */
static const struct pa_trace_api *tracing(void)
{
	const struct pa_trace_api *a = trace_api();
	return a && a->io_active() ? a : NULL;
}

/*
 * The call to fn that began at t0 ended: report it.  failed: errno says why;
 * else bytes were transferred.  vfd: the descriptor's id before the call (a
 * close), else 0.  Keeps errno.
 */
static void report(const struct pa_trace_api *a, unsigned func, int failed, uint64_t bytes, int fd, int fd2,
		   const char *path, uint32_t vfd, uint64_t t0, void *fn)
{
	int e = errno;
	uint64_t t1 = now_ns();
	struct pa_io_call c = {.func = func,
			       .fd = fd,
			       .fd2 = fd2,
			       .failed = failed,
			       .err = failed ? e : 0,
			       .bytes = failed ? 0 : bytes,
			       .start_ns = t0,
			       .dur_ns = t1 - t0,
			       .leaf_pc = (uint64_t)(uintptr_t)fn,
			       .path = path,
			       .vfd = vfd};
	a->io_record(&c);
	errno = e;
}

/*
 * The call that began at t0 returned r (-1: failed, errno says why): report
 * it.  xfer: r is a byte count.  Keeps errno.
 */
static void done(const struct pa_trace_api *a, unsigned func, long r, int fd, int fd2, int xfer,
		 const char *path, uint64_t t0, void *fn)
{
	report(a, func, r < 0, xfer && r > 0 ? (uint64_t)r : 0, fd, fd2, path, 0, t0, fn);
}

/*
 * In an entry point `name` (exported under `version` by the .map): fn_, the
 * real one; without it the entry point fails with ENOSYS, returning bad.
 */
#define REAL_FN(type, name, ver, params, bad)                 \
	static struct real real_ = {#name, ver, NULL};        \
	type(*fn_) params = (type(*) params)real_get(&real_); \
	if (!fn_) {                                           \
		errno = ENOSYS;                               \
		return bad;                                   \
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
		REAL_FN(type, name, ver, params, -1)                               \
		const struct pa_trace_api *a_ = tracing();                         \
		if (!a_ || tls_inner)                                              \
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
	const struct pa_trace_api *a = tls_inner ? NULL : tracing();
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

/*
 * close: the descriptor's id is asked before the real call, so that the
 * record ends it and not the id of another thread's open that got the
 * number in between (trace_api.h, io_vfd).
 */
EXPORT int close(int fd)
{
	REAL_FN(int, close, V225, (int), -1)
	const struct pa_trace_api *a = tracing();
	if (!a || tls_inner)
		return fn_(fd);
	uint32_t vfd = a->io_vfd(fd);
	uint64_t t0 = now_ns();
	int r = fn_(fd);
	report(a, EXP_IO_CLOSE, r < 0, 0, fd, -1, NULL, vfd, t0, (void *)fn_);
	return r;
}

WRAP(int, creat, V225, EXP_IO_CREAT, (const char *path, mode_t mode), (path, mode), r, -1, 0, path)
WRAP(int, creat64, V225, EXP_IO_CREAT64, (const char *path, mode_t mode), (path, mode), r, -1, 0, path)
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

/* llseek: glibc 2.36 keeps it only as a compatibility symbol, for old binaries */
WRAP(off64_t, llseek, V225, EXP_IO_LLSEEK, (int fd, off64_t off, int whence), (fd, off, whence), fd, -1, 0,
     NULL)

/* ------------------------------------------------- stdio and mkstemp: one level */

#define V234 "GLIBC_2.3.4"
#define V27 "GLIBC_2.7"
#define V211 "GLIBC_2.11"

/*
 * Begin a traced call made of descriptor calls (stdio, mkstemp): the API,
 * or NULL when this call is not traced (not tracing, or inside another such
 * call).  Non-NULL: the inner calls are silenced until inner_end.
 */
static const struct pa_trace_api *inner_begin(void)
{
	if (tls_inner)
		return NULL;
	const struct pa_trace_api *a = tracing();
	if (a)
		tls_inner++;
	return a;
}

static void inner_end(void)
{
	tls_inner--;
}

/* A traced call on a stream, from stdio_begin to stdio_end. */
struct scall {
	const struct pa_trace_api *a;
	uint64_t t0;
	int fd;       /* the stream's descriptor at the call */
	int err0;     /* the stream's error flag before the call */
	uint32_t vfd; /* fclose: the descriptor's id before the call */
};

/*
 * Begin a call on stream fp (NULL: every stream, fflush(NULL)): 0 when it
 * is not traced (see inner_begin; nor is a stream without a descriptor, a
 * memory stream: no I/O), 1 when it is (stdio_end must follow).  fclose
 * learns the descriptor's id first.  Keeps errno.
 */
static int stdio_begin(struct scall *s, FILE *fp, unsigned func)
{
	if (tls_inner || !(s->a = tracing()))
		return 0;
	int e = errno;
	s->fd = fp ? fileno_unlocked(fp) : -1;
	s->err0 = fp && ferror_unlocked(fp);
	errno = e;
	if (fp && s->fd < 0)
		return 0;
	s->vfd = func == EXP_IO_FCLOSE ? s->a->io_vfd(s->fd) : 0;
	tls_inner++;
	s->t0 = now_ns();
	return 1;
}

static void stdio_end(struct scall *s, unsigned func, int failed, uint64_t bytes, void *fn)
{
	tls_inner--;
	report(s->a, func, failed, bytes, s->fd, -1, NULL, s->vfd, s->t0, fn);
}

/* The call set fp's error flag (it was clear before). */
static int new_error(const struct scall *s, FILE *fp)
{
	return !s->err0 && ferror_unlocked(fp);
}

/* A read that returned nothing met the end of the file, not an error. */
static int at_eof(const struct scall *s, FILE *fp)
{
	return feof_unlocked(fp) && !new_error(s, fp);
}

/*
 * STDIO(type, name, version, func, params, args, fp, bad, failed, bytes): the
 * entry point `name` on stream fp, calling the real one (bad: its result
 * when there is none).  failed and bytes are expressions evaluated after the
 * call, which may use its result r, the call s_ and fp.
 */
#define STDIO(type, name, ver, func, params, args, fp_, bad, failed_, bytes_) \
	EXPORT type name params                                               \
	{                                                                     \
		REAL_FN(type, name, ver, params, bad)                         \
		struct scall s_;                                              \
		if (!stdio_begin(&s_, fp_, func))                             \
			return fn_ args;                                      \
		type r = fn_ args;                                            \
		stdio_end(&s_, func, failed_, bytes_, (void *)fn_);           \
		return r;                                                     \
	}

/* fread and fwrite: items times their size; failed when nothing moved and the stream failed */
#define FREAD_FAILED (r == 0 && size && n && new_error(&s_, fp))
#define FWRITE_FAILED (r == 0 && size && n)
#define ITEM_BYTES ((uint64_t)r * size)
/* fgets: the line read; at the end of the file a read of 0 bytes */
#define FGETS_FAILED (!r && !at_eof(&s_, fp))
#define FGETS_BYTES (r ? strlen(r) : 0)
/* getline, getdelim: their result; -1 at the end of the file a read of 0 bytes */
#define GETDELIM_FAILED (r < 0 && !at_eof(&s_, fp))
#define COUNT_BYTES (r > 0 ? (uint64_t)r : 0)

#define FREAD_PARAMS (void *p, size_t size, size_t n, FILE *fp)
#define FREAD_CHK_PARAMS (void *p, size_t room, size_t size, size_t n, FILE *fp)
#define FWRITE_PARAMS (const void *p, size_t size, size_t n, FILE *fp)
#define FGETS_PARAMS (char *buf, int n, FILE *fp)
#define FGETS_CHK_PARAMS (char *buf, size_t size, int n, FILE *fp)

STDIO(size_t, fread, V225, EXP_IO_FREAD, FREAD_PARAMS, (p, size, n, fp), fp, 0, FREAD_FAILED, ITEM_BYTES)
STDIO(size_t, _IO_fread, V225, EXP_IO_FREAD, FREAD_PARAMS, (p, size, n, fp), fp, 0, FREAD_FAILED, ITEM_BYTES)
STDIO(size_t, fread_unlocked, V225, EXP_IO_FREAD_UNLOCKED, FREAD_PARAMS, (p, size, n, fp), fp, 0,
      FREAD_FAILED, ITEM_BYTES)
STDIO(size_t, __fread_chk, V27, EXP_IO_FREAD, FREAD_CHK_PARAMS, (p, room, size, n, fp), fp, 0, FREAD_FAILED,
      ITEM_BYTES)
STDIO(size_t, __fread_unlocked_chk, V27, EXP_IO_FREAD_UNLOCKED, FREAD_CHK_PARAMS, (p, room, size, n, fp), fp,
      0, FREAD_FAILED, ITEM_BYTES)
STDIO(size_t, fwrite, V225, EXP_IO_FWRITE, FWRITE_PARAMS, (p, size, n, fp), fp, 0, FWRITE_FAILED, ITEM_BYTES)
STDIO(size_t, _IO_fwrite, V225, EXP_IO_FWRITE, FWRITE_PARAMS, (p, size, n, fp), fp, 0, FWRITE_FAILED,
      ITEM_BYTES)
STDIO(size_t, fwrite_unlocked, V225, EXP_IO_FWRITE_UNLOCKED, FWRITE_PARAMS, (p, size, n, fp), fp, 0,
      FWRITE_FAILED, ITEM_BYTES)
STDIO(char *, fgets, V225, EXP_IO_FGETS, FGETS_PARAMS, (buf, n, fp), fp, NULL, FGETS_FAILED, FGETS_BYTES)
STDIO(char *, _IO_fgets, V225, EXP_IO_FGETS, FGETS_PARAMS, (buf, n, fp), fp, NULL, FGETS_FAILED, FGETS_BYTES)
STDIO(char *, fgets_unlocked, V225, EXP_IO_FGETS_UNLOCKED, FGETS_PARAMS, (buf, n, fp), fp, NULL, FGETS_FAILED,
      FGETS_BYTES)
STDIO(char *, __fgets_chk, V24, EXP_IO_FGETS, FGETS_CHK_PARAMS, (buf, size, n, fp), fp, NULL, FGETS_FAILED,
      FGETS_BYTES)
STDIO(char *, __fgets_unlocked_chk, V24, EXP_IO_FGETS_UNLOCKED, FGETS_CHK_PARAMS, (buf, size, n, fp), fp,
      NULL, FGETS_FAILED, FGETS_BYTES)
STDIO(ssize_t, getline, V225, EXP_IO_GETLINE, (char **line, size_t *n, FILE *fp), (line, n, fp), fp, -1,
      GETDELIM_FAILED, COUNT_BYTES)
STDIO(ssize_t, getdelim, V225, EXP_IO_GETDELIM, (char **line, size_t *n, int delim, FILE *fp),
      (line, n, delim, fp), fp, -1, GETDELIM_FAILED, COUNT_BYTES)
STDIO(ssize_t, __getdelim, V225, EXP_IO_GETDELIM, (char **line, size_t *n, int delim, FILE *fp),
      (line, n, delim, fp), fp, -1, GETDELIM_FAILED, COUNT_BYTES)

/* fputs: the string when it succeeds; puts: and the newline */
STDIO(int, fputs, V225, EXP_IO_FPUTS, (const char *str, FILE *fp), (str, fp), fp, EOF, r < 0, strlen(str))
STDIO(int, _IO_fputs, V225, EXP_IO_FPUTS, (const char *str, FILE *fp), (str, fp), fp, EOF, r < 0, strlen(str))
STDIO(int, fputs_unlocked, V225, EXP_IO_FPUTS_UNLOCKED, (const char *str, FILE *fp), (str, fp), fp, EOF,
      r < 0, strlen(str))
STDIO(int, puts, V225, EXP_IO_PUTS, (const char *str), (str), stdout, EOF, r < 0, strlen(str) + 1)
STDIO(int, _IO_puts, V225, EXP_IO_PUTS, (const char *str), (str), stdout, EOF, r < 0, strlen(str) + 1)

/* the printf family: its result */
STDIO(int, vfprintf, V225, EXP_IO_VFPRINTF, (FILE * fp, const char *fmt, va_list ap), (fp, fmt, ap), fp, -1,
      r < 0, COUNT_BYTES)
STDIO(int, _IO_vfprintf, V225, EXP_IO_VFPRINTF, (FILE * fp, const char *fmt, va_list ap), (fp, fmt, ap), fp,
      -1, r < 0, COUNT_BYTES)
STDIO(int, __vfprintf_chk, V234, EXP_IO_VFPRINTF, (FILE * fp, int flag, const char *fmt, va_list ap),
      (fp, flag, fmt, ap), fp, -1, r < 0, COUNT_BYTES)
STDIO(int, vprintf, V225, EXP_IO_VPRINTF, (const char *fmt, va_list ap), (fmt, ap), stdout, -1, r < 0,
      COUNT_BYTES)
STDIO(int, __vprintf_chk, V234, EXP_IO_VPRINTF, (int flag, const char *fmt, va_list ap), (flag, fmt, ap),
      stdout, -1, r < 0, COUNT_BYTES)

/* fflush: an "other" call (the bytes it writes were counted when buffered) */
STDIO(int, fflush, V225, EXP_IO_FFLUSH, (FILE * fp), (fp), fp, EOF, r != 0, 0)
STDIO(int, _IO_fflush, V225, EXP_IO_FFLUSH, (FILE * fp), (fp), fp, EOF, r != 0, 0)
STDIO(int, fflush_unlocked, V225, EXP_IO_FFLUSH, (FILE * fp), (fp), fp, EOF, r != 0, 0)

/*
 * CHARIO(cname, sym, version, func, params, args, fp, put): a per-character
 * function (exported as sym): a byte written (put) or read, or EOF: a
 * failure, but for a read at the end of the file a read of 0 bytes.  The C
 * name is not sym, for bits/stdio.h defines inlines of some of these names
 * (getchar, putc_unlocked, ...) when optimizing.  The unlocked macros
 * (getc_unlocked expanded in the caller) never reach us.
 */
#define CHARIO(cname, sym, ver, func, params, args, fp_, put)                                         \
	EXPORT int cname params __asm__(sym);                                                         \
	EXPORT int cname params                                                                       \
	{                                                                                             \
		static struct real real_ = {sym, ver, NULL};                                          \
		int(*fn_) params = (int(*) params)real_get(&real_);                                   \
		if (!fn_) {                                                                           \
			errno = ENOSYS;                                                               \
			return EOF;                                                                   \
		}                                                                                     \
		struct scall s_;                                                                      \
		FILE *f_ = fp_;                                                                       \
		if (!stdio_begin(&s_, f_, func))                                                      \
			return fn_ args;                                                              \
		int r = fn_ args;                                                                     \
		stdio_end(&s_, func, r == EOF && ((put) || !at_eof(&s_, f_)), r != EOF, (void *)fn_); \
		return r;                                                                             \
	}

int _IO_putc(int c, FILE *fp);
int _IO_getc(FILE *fp);

CHARIO(pa_fputc, "fputc", V225, EXP_IO_FPUTC, (int c, FILE *fp), (c, fp), fp, 1)
CHARIO(pa_fputc_unlocked, "fputc_unlocked", V225, EXP_IO_FPUTC, (int c, FILE *fp), (c, fp), fp, 1)
CHARIO(pa_putc, "putc", V225, EXP_IO_PUTC, (int c, FILE *fp), (c, fp), fp, 1)
CHARIO(pa_io_putc, "_IO_putc", V225, EXP_IO_PUTC, (int c, FILE *fp), (c, fp), fp, 1)
CHARIO(pa_putc_unlocked, "putc_unlocked", V225, EXP_IO_PUTC, (int c, FILE *fp), (c, fp), fp, 1)
CHARIO(pa_putchar, "putchar", V225, EXP_IO_PUTCHAR, (int c), (c), stdout, 1)
CHARIO(pa_putchar_unlocked, "putchar_unlocked", V225, EXP_IO_PUTCHAR, (int c), (c), stdout, 1)
CHARIO(pa_fgetc, "fgetc", V225, EXP_IO_FGETC, (FILE * fp), (fp), fp, 0)
CHARIO(pa_fgetc_unlocked, "fgetc_unlocked", V225, EXP_IO_FGETC, (FILE * fp), (fp), fp, 0)
CHARIO(pa_getc, "getc", V225, EXP_IO_GETC, (FILE * fp), (fp), fp, 0)
CHARIO(pa_io_getc, "_IO_getc", V225, EXP_IO_GETC, (FILE * fp), (fp), fp, 0)
CHARIO(pa_getc_unlocked, "getc_unlocked", V225, EXP_IO_GETC, (FILE * fp), (fp), fp, 0)
CHARIO(pa_getchar, "getchar", V225, EXP_IO_GETCHAR, (void), (), stdin, 0)
CHARIO(pa_getchar_unlocked, "getchar_unlocked", V225, EXP_IO_GETCHAR, (void), (), stdin, 0)

/*
 * The variadic printfs call the real vfprintf (chk: __vfprintf_chk with
 * flag), never ours; the record's leaf is the real `leaf` (fprintf, ...).
 */
static struct real real_vfprintf = {"vfprintf", V225, NULL};
static struct real real_vfprintf_chk = {"__vfprintf_chk", V234, NULL};

static int printf_common(struct real *leaf, unsigned func, FILE *fp, int chk, int flag, const char *fmt,
			 va_list ap)
{
	void *vf = real_get(chk ? &real_vfprintf_chk : &real_vfprintf);
	if (!vf) {
		errno = ENOSYS;
		return -1;
	}
	struct scall s;
	int traced = stdio_begin(&s, fp, func);
	int r = chk ? ((int (*)(FILE *, int, const char *, va_list))vf)(fp, flag, fmt, ap)
		    : ((int (*)(FILE *, const char *, va_list))vf)(fp, fmt, ap);
	if (traced)
		stdio_end(&s, func, r<0, r> 0 ? (uint64_t)r : 0, real_get(leaf));
	return r;
}

/* PRINTF(name, version, func, params, fp, chk, flag, last): a variadic printf whose last named parameter is last */
#define PRINTF(name, ver, func, params, fp_, chk, flag, last)                 \
	EXPORT int name params                                                \
	{                                                                     \
		static struct real leaf_ = {#name, ver, NULL};                \
		va_list ap;                                                   \
		va_start(ap, last);                                           \
		int r = printf_common(&leaf_, func, fp_, chk, flag, fmt, ap); \
		va_end(ap);                                                   \
		return r;                                                     \
	}

PRINTF(fprintf, V225, EXP_IO_FPRINTF, (FILE * fp, const char *fmt, ...), fp, 0, 0, fmt)
PRINTF(_IO_fprintf, V225, EXP_IO_FPRINTF, (FILE * fp, const char *fmt, ...), fp, 0, 0, fmt)
PRINTF(__fprintf_chk, V234, EXP_IO_FPRINTF, (FILE * fp, int flag, const char *fmt, ...), fp, 1, flag, fmt)
PRINTF(printf, V225, EXP_IO_PRINTF, (const char *fmt, ...), stdout, 0, 0, fmt)
PRINTF(_IO_printf, V225, EXP_IO_PRINTF, (const char *fmt, ...), stdout, 0, 0, fmt)
PRINTF(__printf_chk, V234, EXP_IO_PRINTF, (int flag, const char *fmt, ...), stdout, 1, flag, fmt)

/* ------------------------------------------- streams opened and closed, mkstemp */

/* A stream came (or not: r NULL) from an open of path: report it on the stream's descriptor. */
static void opened(const struct pa_trace_api *a, unsigned func, FILE *r, const char *path, uint64_t t0,
		   void *fn)
{
	int e = errno;
	int fd = r ? fileno_unlocked(r) : -1;
	errno = e;
	report(a, func, !r, 0, fd, -1, path, 0, t0, fn);
}

/*
 * INNER(type, args, report): the body of an entry point that makes
 * descriptor calls of its own (silenced), calling fn_ (REAL_FN) and then
 * `report`, a statement that may use the result r, the API a_ and the start
 * t0_.
 */
#define INNER(type, args, report_)                     \
	const struct pa_trace_api *a_ = inner_begin(); \
	if (!a_)                                       \
		return fn_ args;                       \
	uint64_t t0_ = now_ns();                       \
	type r = fn_ args;                             \
	inner_end();                                   \
	report_;                                       \
	return r;

/* OPENF(name, version, func, params, args, path): a function returning a stream it opened by path */
#define OPENF(name, ver, func, params, args, path_)                               \
	EXPORT FILE *name params                                                  \
	{                                                                         \
		REAL_FN(FILE *, name, ver, params, NULL)                          \
		INNER(FILE *, args, opened(a_, func, r, path_, t0_, (void *)fn_)) \
	}

#define FOPEN_PARAMS (const char *path, const char *mode)
#define FREOPEN_PARAMS (const char *path, const char *mode, FILE *fp)

OPENF(fopen, V225, EXP_IO_FOPEN, FOPEN_PARAMS, (path, mode), path)
OPENF(_IO_fopen, V225, EXP_IO_FOPEN, FOPEN_PARAMS, (path, mode), path)
OPENF(fopen64, V225, EXP_IO_FOPEN64, FOPEN_PARAMS, (path, mode), path)
OPENF(freopen, V225, EXP_IO_FREOPEN, FREOPEN_PARAMS, (path, mode, fp), path)
OPENF(freopen64, V225, EXP_IO_FREOPEN64, FREOPEN_PARAMS, (path, mode, fp), path)
OPENF(tmpfile, V225, EXP_IO_TMPFILE, (void), (), "<tmpfile>")
OPENF(tmpfile64, V225, EXP_IO_TMPFILE64, (void), (), "<tmpfile>")

/* fdopen: an "other" call on the descriptor it wraps */
#define FDOPEN(name)                                                                       \
	EXPORT FILE *name(int fd, const char *mode)                                        \
	{                                                                                  \
		REAL_FN(FILE *, name, V225, (int, const char *), NULL)                     \
		INNER(FILE *, (fd, mode),                                                  \
		      report(a_, EXP_IO_FDOPEN, !r, 0, fd, -1, NULL, 0, t0_, (void *)fn_)) \
	}

FDOPEN(fdopen)
FDOPEN(_IO_fdopen)

/* fclose: ends the descriptor as close does (its id taken before the call: stdio_begin) */
STDIO(int, fclose, V225, EXP_IO_FCLOSE, (FILE * fp), (fp), fp, EOF, r != 0, 0)
STDIO(int, _IO_fclose, V225, EXP_IO_FCLOSE, (FILE * fp), (fp), fp, EOF, r != 0, 0)

/* the mkstemp family: an open of the name generated into the template */
#define MKTEMP(name, ver, func, params, args)                                                  \
	EXPORT int name params                                                                 \
	{                                                                                      \
		REAL_FN(int, name, ver, params, -1)                                            \
		INNER(int, args, report(a_, func, r < 0, 0, r, -1, tmpl, 0, t0_, (void *)fn_)) \
	}

MKTEMP(mkstemp, V225, EXP_IO_MKSTEMP, (char *tmpl), (tmpl))
MKTEMP(mkstemp64, V225, EXP_IO_MKSTEMP64, (char *tmpl), (tmpl))
MKTEMP(mkostemp, V27, EXP_IO_MKOSTEMP, (char *tmpl, int flags), (tmpl, flags))
MKTEMP(mkostemp64, V27, EXP_IO_MKOSTEMP64, (char *tmpl, int flags), (tmpl, flags))
MKTEMP(mkstemps, V211, EXP_IO_MKSTEMPS, (char *tmpl, int suffix), (tmpl, suffix))
MKTEMP(mkstemps64, V211, EXP_IO_MKSTEMPS64, (char *tmpl, int suffix), (tmpl, suffix))
MKTEMP(mkostemps, V211, EXP_IO_MKOSTEMPS, (char *tmpl, int suffix, int flags), (tmpl, suffix, flags))
MKTEMP(mkostemps64, V211, EXP_IO_MKOSTEMPS64, (char *tmpl, int suffix, int flags), (tmpl, suffix, flags))
