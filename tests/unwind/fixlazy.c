/*
 * fixlazy.c - lazy binding under the sampler.  fixlazy_run calls eight
 * IFUNC functions of this library through its PLT; dlopen'ed with
 * RTLD_LAZY, each first call goes through ld.so's _dl_runtime_resolve
 * trampoline (whose CFA is %rbx-based: it realigns %rsp) into _dl_fixup,
 * which runs the IFUNC resolver.  The resolver sends its thread SIGPROF
 * with raw system calls (no PLT call inside the resolution), so a sample
 * is taken with the trampoline on the stack, every time, deterministically.
 */
#include <signal.h>
#include <sys/syscall.h>

int fixlazy_run(void);
int fixlazy_kicks;

static long impl(long x)
{
	return x + 1;
}

static long raw_syscall3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static long (*resolve(void))(long)
{
	long pid = raw_syscall3(SYS_getpid, 0, 0, 0), tid = raw_syscall3(SYS_gettid, 0, 0, 0);
	if (raw_syscall3(SYS_tgkill, pid, tid, SIGPROF) == 0)
		fixlazy_kicks++;
	return impl;
}

#define LAZY(k)                                \
	long fixlazy_f##k(long);               \
	static long (*resolve_##k(void))(long) \
	{                                      \
		return resolve();              \
	}                                      \
	long fixlazy_f##k(long) __attribute__((ifunc("resolve_" #k)))
LAZY(0);
LAZY(1);
LAZY(2);
LAZY(3);
LAZY(4);
LAZY(5);
LAZY(6);
LAZY(7);

/* Returns how many resolver signals were sent (8 on the first call, then 0). */
__attribute__((noinline)) int fixlazy_run(void)
{
	int before = fixlazy_kicks;
	long x = fixlazy_f0(0);
	x = fixlazy_f1(x);
	x = fixlazy_f2(x);
	x = fixlazy_f3(x);
	x = fixlazy_f4(x);
	x = fixlazy_f5(x);
	x = fixlazy_f6(x);
	x = fixlazy_f7(x);
	return x == 8 ? fixlazy_kicks - before : -1;
}
