/*
 * collectorAPI.c - libcollectorAPI (.so and .a): the collector API's stubs.
 * At load (and, if a constructor did not run, at the first call) each stub
 * looks up libcollector.so's entry point with dlsym(RTLD_DEFAULT) once;
 * without a collector in the process it finds none and does nothing.  After
 * the lookup a call is one atomic load and an indirect call: no allocation,
 * no lock, so the sample, pause and resume stubs are SIGNAL_SAFE once the
 * library is loaded.
 */
#include "collector/api/collectorAPI.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

struct api_entries {
	void (*sample)(const char *);
	void (*pause)(void);
	void (*resume)(void);
	void (*terminate)(void);
};

static struct api_entries entries;
static _Atomic int looked_up;

static void api_lookup(void)
{
	if (atomic_load_explicit(&looked_up, memory_order_acquire))
		return;
	entries.sample = (void (*)(const char *))dlsym(RTLD_DEFAULT, "pa_collector_sample");
	entries.pause = (void (*)(void))dlsym(RTLD_DEFAULT, "pa_collector_pause");
	entries.resume = (void (*)(void))dlsym(RTLD_DEFAULT, "pa_collector_resume");
	entries.terminate = (void (*)(void))dlsym(RTLD_DEFAULT, "pa_collector_terminate_expt");
	atomic_store_explicit(&looked_up, 1, memory_order_release);
}

__attribute__((constructor)) static void api_init(void)
{
	api_lookup();
}

void collector_sample(const char *name)
{
	api_lookup();
	if (entries.sample)
		entries.sample(name);
}

void collector_pause(void)
{
	api_lookup();
	if (entries.pause)
		entries.pause();
}

void collector_resume(void)
{
	api_lookup();
	if (entries.resume)
		entries.resume();
}

void collector_terminate_expt(void)
{
	api_lookup();
	if (entries.terminate)
		entries.terminate();
}

void collector_func_load(const char *name, const char *alias, const char *sourcename, void *vaddr, int size,
			 int lntsize, Lineno *lntable)
{
	(void)name, (void)alias, (void)sourcename, (void)vaddr, (void)size, (void)lntsize, (void)lntable;
}

void collector_func_unload(void *vaddr)
{
	(void)vaddr;
}
