/*
 * interpose.c - the interposers whose work belongs to a module below
 * collector.c: each initialises the collector (col_init), then hands over to
 * its module (threads, signals, loadmap), which includes nothing above it.
 * Also the one door of the tracing libraries (trace_api.h) and the collector
 * API's entry points (pa_collector_sample, ...; collectorAPI/collectorAPI.c).  The exported
 * names are listed in libcollector.map.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "collector/collector.h"
#include "collector/context.h"
#include "collector/heaptrace.h"
#include "collector/loadmap.h"
#include "collector/samples.h"
#include "collector/signals.h"
#include "collector/threads.h"
#include "collector/iotrace.h"
#include "collector/synctrace.h"
#include "collector/trace_api.h"
#include "experiment/format.h"

#define EXPORT __attribute__((visibility("default")))

extern char **environ;

EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	col_init();
	return threads_pthread_create(th, attr, fn, arg);
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	col_init();
	return signals_sigaction(sig, act, old);
}

EXPORT __sighandler_t signal(int sig, __sighandler_t h)
{
	col_init();
	return signals_signal(sig, h);
}

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	col_init();
	return signals_sigprocmask(how, set, old);
}

EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	col_init();
	return signals_pthread_sigmask(how, set, old);
}

EXPORT int sigwait(const sigset_t *set, int *sig)
{
	col_init();
	return signals_sigwait(set, sig);
}

EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	col_init();
	return signals_sigwaitinfo(set, info);
}

EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	col_init();
	return signals_sigtimedwait(set, info, timeout);
}

EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	col_init();
	return signals_signalfd(fd, mask, flags);
}

EXPORT void *dlopen(const char *file, int mode)
{
	col_init();
	return loadmap_dlopen(file, mode, __builtin_return_address(0));
}

EXPORT int dlclose(void *handle)
{
	col_init();
	return loadmap_dlclose(handle);
}

/*
 * The heap library asks on every call.  A library's constructor may allocate
 * before ours runs: start then, once libc is initialised (it sets environ
 * before any constructor of another object runs; the loader's own earlier
 * allocations are not the target's).
 */
static int trace_heap_active(void)
{
	if (!col_init_done() && environ)
		col_init();
	return heaptrace_active();
}

static int trace_sync_active(void)
{
	if (!col_init_done() && environ)
		col_init();
	return synctrace_active();
}

static int trace_io_active(void)
{
	if (!col_init_done() && environ)
		col_init();
	return iotrace_active();
}

static const struct pa_trace_api trace_api = {
	.version = PA_TRACE_API_VERSION,
	.heap_active = trace_heap_active,
	.heap_record = heaptrace_record,
	.heap_stamp = heaptrace_stamp,
	.sync_active = trace_sync_active,
	.sync_record = synctrace_record,
	.io_active = trace_io_active,
	.io_record = iotrace_record,
	.io_vfd = iotrace_vfd,
	.sync_acquired = synctrace_acquired,
	.context_set = col_context_set,
};

EXPORT const struct pa_trace_api *pa_collector_trace_api(void)
{
	return &trace_api;
}

/*
 * The collector API (libcollectorAPI's stubs find these with dlsym): each
 * does nothing unless this process is collecting.
 */
EXPORT void pa_collector_sample(const char *name);
EXPORT void pa_collector_pause(void);
EXPORT void pa_collector_resume(void);
EXPORT void pa_collector_terminate_expt(void);

EXPORT void pa_collector_sample(const char *name)
{
	if (!name)
		name = "";
	samples_point(EXP_SAMPLE_API, name, strlen(name), 0);
}

EXPORT void pa_collector_pause(void)
{
	samples_pause(1, "API", 0);
}

EXPORT void pa_collector_resume(void)
{
	samples_pause(0, "API", 0);
}

EXPORT void pa_collector_terminate_expt(void)
{
	col_finish();
}
