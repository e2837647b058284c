/*
 * iobench.c - the cost of I/O tracing (bench/io/run.py).
 *
 *   iobench write N       N 1-byte write()s to /dev/null; prints
 *                         "ns_per_call X" (its own clock, so the profiler's
 *                         start-up is not counted), "cpu_ns_per_call Y" (the
 *                         thread's CPU time: on a shared machine, without
 *                         the time other processes took the core) and
 *                         "calls N"
 *   iobench read FILE N   reads FILE (at least 4 KiB, expected in the page cache) 4 KiB at
 *                         a time with read(), rewinding with lseek at its
 *                         end, until N reads of 4096 bytes were made; the
 *                         lseeks are traced calls too and are counted in
 *                         "calls"; prints the same figures
 *
 * Exit status 1 on a failed call or bad arguments.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t wall0, cpu0;

static void start(void)
{
	wall0 = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* The loop's wall and CPU time (the thread's: another process's time on this core is left out). */
static void report(long calls)
{
	uint64_t wall = clock_ns(CLOCK_MONOTONIC) - wall0, cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	printf("ns_per_call %.2f\ncpu_ns_per_call %.2f\ncalls %ld\n", (double)wall / (double)calls,
	       (double)cpu / (double)calls, calls);
}

static int bench_write(long n)
{
	int fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("iobench: /dev/null");
		return 1;
	}
	char c = 'x';
	start();
	for (long i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1) {
			perror("iobench: write /dev/null");
			return 1;
		}
	report(n);
	close(fd);
	return 0;
}

static int bench_read(const char *path, long n)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	static char buf[4096];
	long calls = 0, full = 0, pass_full = 0;
	start();
	while (full < n) {
		ssize_t r = read(fd, buf, sizeof buf);
		calls++;
		if (r == (ssize_t)sizeof buf) {
			full++;
			pass_full++;
		} else if (r >= 0) {
			if (pass_full == 0) {
				fprintf(stderr, "iobench: %s: smaller than 4 KiB\n", path);
				return 1;
			}
			pass_full = 0;
			calls++;
			if (lseek(fd, 0, SEEK_SET) != 0) {
				perror(path);
				return 1;
			}
		} else {
			perror(path);
			return 1;
		}
	}
	report(calls);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "write") == 0)
		return bench_write(atol(argv[2]));
	if (argc == 4 && strcmp(argv[1], "read") == 0)
		return bench_read(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: iobench write N | iobench read FILE N\n");
	return 1;
}
