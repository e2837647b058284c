/*
 * fsize.c - collect under a file size limit (see fsize.h).
 */
#include "collect/fsize.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static void on_xfsz(int sig)
{
	(void)sig; /* the write that raised it fails with EFBIG */
}

void fsize_guard(void)
{
	struct sigaction old, sa;
	if (sigaction(SIGXFSZ, NULL, &old) != 0 || old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_xfsz;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
}

uint64_t fsize_limit_bytes(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

int fsize_short_write_errno(uint64_t end_bytes)
{
	return end_bytes >= fsize_limit_bytes() ? EFBIG : ENOSPC;
}

void fsize_words(char *dst, size_t room, uint64_t bytes)
{
	if (bytes % 1024 == 0)
		snprintf(dst, room, "ulimit -f %llu KiB", (unsigned long long)(bytes / 1024));
	else
		snprintf(dst, room, "%llu bytes", (unsigned long long)bytes);
}
