/*
 * test_io.c - common/io.h: io_write_all through a pipe (bytes arrive in
 * order), a short-write situation (a non-blocking pipe that fills up part way:
 * the bytes that fit are written, then -EAGAIN), n == 0 (no write(2) at all,
 * even on a bad descriptor), EBADF, EPIPE, and a pipe larger than one write
 * that a reader drains concurrently (several short writes complete it).
 */
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/check.h"

static void test_pipe(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	const char msg[] = "hello, pipe";
	CHECK(io_write_all(p[1], msg, sizeof msg) == 0);
	char got[sizeof msg] = {0};
	CHECK(read(p[0], got, sizeof got) == (ssize_t)sizeof msg);
	CHECK(memcmp(got, msg, sizeof msg) == 0);
	close(p[0]);
	close(p[1]);
}

static void test_zero_bytes(void)
{
	CHECK(io_write_all(-1, NULL, 0) == 0); /* no write(2): not even EBADF */
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(io_write_all(p[1], "x", 0) == 0);
	CHECK(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	char c;
	CHECK(read(p[0], &c, 1) == -1 && errno == EAGAIN); /* nothing was written */
	close(p[0]);
	close(p[1]);
}

static void test_bad_fd(void)
{
	CHECK(io_write_all(-1, "x", 1) == -EBADF);
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(io_write_all(p[0], "x", 1) == -EBADF); /* the read end */
	close(p[0]);
	close(p[1]);
}

static void test_epipe(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	close(p[0]);
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	CHECK(io_write_all(p[1], "x", 1) == -EPIPE);
	signal(SIGPIPE, old);
	close(p[1]);
}

/* A full non-blocking pipe: write(2) takes a prefix, then refuses. */
static void test_short_write(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(fcntl(p[1], F_SETFL, O_NONBLOCK) == 0);
	int cap = fcntl(p[1], F_GETPIPE_SZ);
	CHECK(cap > 0);
	size_t n = (size_t)cap + 4096;
	char *buf = malloc(n);
	CHECK(buf != NULL);
	if (!buf)
		return;
	memset(buf, 'a', n);
	CHECK(io_write_all(p[1], buf, n) == -EAGAIN);
	size_t got = 0;
	CHECK(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	for (ssize_t r; (r = read(p[0], buf, n)) > 0;)
		got += (size_t)r;
	CHECK(got > 0 && got < n); /* a prefix went through */
	free(buf);
	close(p[0]);
	close(p[1]);
}

struct drain {
	int fd;
	size_t bytes;
	uint64_t sum;
};

static void *drain_main(void *arg)
{
	struct drain *d = arg;
	unsigned char b[1000];
	for (ssize_t r; (r = read(d->fd, b, sizeof b)) > 0;) {
		for (ssize_t i = 0; i < r; i++)
			d->sum = d->sum * 31 + b[i];
		d->bytes += (size_t)r;
	}
	return NULL;
}

/* More than the pipe holds, blocking, with a slow reader: short writes resume. */
static void test_large_blocking(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	size_t n = 1u << 20;
	unsigned char *buf = malloc(n);
	CHECK(buf != NULL);
	if (!buf)
		return;
	uint64_t want = 0;
	for (size_t i = 0; i < n; i++) {
		buf[i] = (unsigned char)(i * 7 + i / 251);
		want = want * 31 + buf[i];
	}
	struct drain d = {.fd = p[0]};
	pthread_t t;
	CHECK(pthread_create(&t, NULL, drain_main, &d) == 0);
	CHECK(io_write_all(p[1], buf, n) == 0);
	close(p[1]);
	pthread_join(t, NULL);
	CHECK_EQ_U64(d.bytes, n);
	CHECK_EQ_U64(d.sum, want);
	close(p[0]);
	free(buf);
}

int main(void)
{
	test_pipe();
	test_zero_bytes();
	test_bad_fd();
	test_epipe();
	test_short_write();
	test_large_blocking();
	return check_done();
}
