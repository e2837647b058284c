/*
 * fixlib.c - a small library the unwind fixtures dlopen (built -O2 -fPIC,
 * no frame pointers, several times under different names for the dlopen
 * stress).  Recursion inside the library, then a callback into the program,
 * so stacks cross exe -> library -> exe.
 */
#include <stdint.h>

uint64_t fixlib_work(int depth, uint64_t (*cb)(uint64_t), uint64_t n);

volatile uint64_t fixlib_sink;

uint64_t fixlib_spin(uint64_t n);

__attribute__((noinline, noclone)) uint64_t fixlib_spin(uint64_t n)
{
	uint64_t x = n;
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005u + i;
	return x;
}

__attribute__((noinline)) uint64_t fixlib_work(int depth, uint64_t (*cb)(uint64_t), uint64_t n)
{
	if (depth <= 0)
		return cb ? cb(n) + fixlib_spin(n) : fixlib_spin(n);
	uint64_t r = fixlib_work(depth - 1, cb, n);
	fixlib_sink += r; /* not a tail call */
	return r ^ (uint64_t)depth;
}
