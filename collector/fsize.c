/*
 * fsize.c - the file size limit the collector's writes stay within (see
 * fsize.h).
 */
#include "collector/fsize.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t fsize_limit_bytes(void)
{
	struct rlimit rl;
	/* prlimit64: the raw getrlimit, whatever libc's wrapper does */
	if (syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, NULL, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT64_MAX;
	return (uint64_t)rl.rlim_cur;
}

int fsize_allows(uint64_t end_bytes)
{
	return end_bytes <= fsize_limit_bytes();
}

int fsize_allows_append(uint64_t size_bytes, uint64_t n)
{
	uint64_t limit = fsize_limit_bytes();
	return limit == UINT64_MAX || (size_bytes < limit && n < limit - size_bytes);
}
