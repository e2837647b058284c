/*
 * collector.c - libcollector.so's life cycle: lazy idempotent init (from the
 * constructor and from every interposer), the PA_* environment contract, the
 * data files, and the end of collection (atexit, destructor, _exit/_Exit).
 *
 * Invariant: a process writes only into the experiment lineage.c gave it
 * (the founder's, or its own subexperiment), and only while it is followed;
 * a fork child starts over in its own subexperiment before fork returns in
 * it (the atfork child handler), and never touches its parent's blocks.
 * Nothing here may take the target down: a failing part is disabled,
 * counted and noted in log.xml.
 *
 * Tracers (tracer.h) are listed in tracers[]: their PA_PARAMS key, data
 * file, start, fork child, thread end and log.xml attributes are run from
 * here, so adding one is a new module and a line in that table.
 */
#include "collector/collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/buildid.h"
#include "collector/encode.h"
#include "collector/fdkeep.h"
#include "collector/fsize.h"
#include "collector/heaptrace.h"
#include "collector/hwc.h"
#include "collector/synctrace.h"
#include "collector/iotrace.h"
#include "collector/lineage.h"
#include "collector/loadmap.h"
#include "collector/logxml.h"
#include "collector/sampler.h"
#include "collector/samples.h"
#include "collector/signals.h"
#include "collector/stacktab.h"
#include "collector/state.h"
#include "collector/threads.h"
#include "collector/tracer.h"
#include "experiment/loghead.h"
#include "experiment/params.h"
#include "experiment/record.h"
#include "experiment/xmlw.h"

#define EXPORT __attribute__((visibility("default")))

/* CPU-time timers fire at most once per kernel tick (HZ=250 here). */
#define KERNEL_TICK_US 4000u
#define STACKTAB_LOG2 16

static _Atomic int col_init_state; /* 0 none, 1 running, 2 done */
static _Atomic uint32_t col_init_tid;

/* The tracers; each one's data file, and whether PA_PARAMS turned it on. */
static const struct col_tracer *const tracers[] = {&heaptrace_tracer, &synctrace_tracer, &iotrace_tracer,
						   &hwc_tracer};
#define NTRACERS (sizeof tracers / sizeof tracers[0])
static int tracer_wanted[NTRACERS];
static int tracer_started[NTRACERS];
static struct blockw_file tracer_file[NTRACERS];

static void tracers_thread_end(void)
{
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracers[i]->thread_end)
			tracers[i]->thread_end();
}

int col_init_done(void)
{
	return atomic_load_explicit(&col_init_state, memory_order_acquire) == 2;
}

/*
 * PA_PARAMS, decoded once at start (experiment/params.h): the collector's
 * parameters into cfg, each tracer's key into tracer_wanted; the tracers
 * read their own parts (the sync threshold, the counters) when they start.
 */
static struct exp_params params;

static void apply_params(const struct exp_params *p, struct col_config *cfg)
{
	cfg->interval_us = p->interval_us;
	cfg->depth_limit = p->depth_limit;
	for (size_t i = 0; i < NTRACERS; i++)
		tracer_wanted[i] = p->tracer[tracers[i]->param];
	cfg->follow = p->follow == EXP_PARAMS_FOLLOW_OFF     ? LINEAGE_FOLLOW_OFF
		      : p->follow == EXP_PARAMS_FOLLOW_REGEX ? LINEAGE_FOLLOW_REGEX
							     : LINEAGE_FOLLOW_ON;
	cfg->sample_period_s = p->sample_period_s;
	cfg->sample_signal = p->sample_signal;
	cfg->pause_signal = p->pause_signal;
	cfg->start_paused = p->start_paused;
	if (p->window_set) {
		cfg->window_start_ns = p->window_start_s * 1000000000u;
		cfg->window_end_ns = p->window_end_s * 1000000000u;
	}
}

/* The errno names a failing claim can have (strerror is not SIGNAL_SAFE). */
static const char *errno_name(int e)
{
	switch (e) {
	case ENOSPC: return "ENOSPC";
	case EDQUOT: return "EDQUOT";
	case EFBIG: return "EFBIG";
	case EIO: return "EIO";
	case ENOMEM: return "ENOMEM";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EROFS: return "EROFS";
	default: return "error";
	}
}

/* Why a data file could not be made or grow, in words. SIGNAL_SAFE. */
static const char *errno_text(int e)
{
	switch (e) {
	case ENOSPC: return "no space left on the experiment's filesystem";
	case EDQUOT: return "disk quota exceeded";
	case EFBIG: return "a data file reached the largest file its filesystem allows";
	case ENOMEM: return "no memory to map a data block";
	case EMFILE: return "no file descriptor free";
	case ENFILE: return "the system's file table is full";
	case EACCES: return "permission denied";
	case EROFS: return "read-only filesystem";
	default: return "a data block could not be written";
	}
}

/*
 * The first block of this process that could not be claimed: every data
 * file has stopped.  Free the tree's reserve, so that this line and the
 * logs' last lines have room, and say when and why.  A block that would have
 * passed the file size limit frees nothing: the limit is this process's
 * (the others of the tree have their own), and the disk has room.
 * SIGNAL_SAFE.
 */
static void data_stopped(int err, uint64_t now_ns)
{
	struct col_config *cfg = col_config();
	uint64_t limit = atomic_load(&cfg->health.fsize_limit_bytes);
	int at_limit = err == EFBIG && limit;
	if (cfg->health.stop_path[0] && !at_limit)
		syscall(SYS_unlinkat, AT_FDCWD, cfg->health.stop_path, 0);
	char buf[512];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <warning id=\"data_lost\"");
	xmlw_attr_u64(&w, "tstamp_ns", now_ns);
	xmlw_attr(&w, "errno", errno_name(err));
	if (at_limit)
		xmlw_attr_u64(&w, "fsize_limit_bytes", limit);
	xmlw_raw(&w, ">");
	xmlw_text(&w, at_limit ? "the next data block would pass the file size limit (RLIMIT_FSIZE)"
			       : errno_text(err));
	xmlw_text(&w, ": recording stopped; the data up to then is complete");
	xmlw_raw(&w, "</warning>\n");
	logxml_append(&w);
}

/* Where the tree's space reserve lives: the founder's directory. */
static void reserve_path(const struct lineage_self *me, char *dst, size_t room)
{
	dst[0] = 0;
	size_t n = strlen(me->dir);
	if (me->origin != LINEAGE_FOUNDER) { /* a subexperiment sits in the founder */
		const char *slash = strrchr(me->dir, '/');
		if (!slash)
			return;
		n = (size_t)(slash - me->dir);
	}
	if (n + sizeof "/" EXP_FILE_NAME_RESERVE > room)
		return;
	memcpy(dst, me->dir, n);
	memcpy(dst + n, "/" EXP_FILE_NAME_RESERVE, sizeof "/" EXP_FILE_NAME_RESERVE);
	if (access(dst, F_OK) != 0)
		dst[0] = 0; /* collect could not set space aside: nothing to watch */
}

/* dl_iterate_phdr's first object is the program: 1 if the Go runtime built it. */
static int main_is_go(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size, (void)ctx;
	return buildid_is_go(info) ? 1 : 2; /* either way: stop at the first */
}

static void log_start(void)
{
	const struct col_config *cfg = col_config();
	char buf[512];
	struct xmlw w;
	int timer = sampler_kind() == SAMPLER_TIMER;
	uint32_t eff = timer && cfg->interval_us < KERNEL_TICK_US ? KERNEL_TICK_US : cfg->interval_us;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <collector_start");
	xmlw_attr_u64(&w, "pid", (uint64_t)getpid());
	xmlw_attr_u64(&w, "ppid", (uint64_t)getppid());
	xmlw_attr_u64(&w, "tstamp_ns", cfg->start_ns);
	xmlw_attr(&w, "mechanism", sampler_mechanism());
	xmlw_attr_u64(&w, "clock_interval_us", cfg->interval_us);
	xmlw_attr_u64(&w, "effective_interval_us", eff);
	xmlw_attr(&w, "cpu_split", sampler_split_mechanism()); /* format 1.10: CLOCK's user_ns */
	xmlw_attr_u64(&w, "depth_limit", cfg->depth_limit);
	for (size_t i = 0; i < NTRACERS; i++) {
		xmlw_attr(&w, tracers[i]->name, tracer_started[i] ? "on" : "off");
		if (tracer_started[i] && tracers[i]->log_start)
			tracers[i]->log_start(&w);
	}
	/* each thread's expiries are on a grid at a uniform phase, its first sample weighing I (sampler.h) */
	xmlw_attr(&w, "first_expiry", "grid");
	/* the Go runtime ends the process by the raw exit_group system call: no end is seen */
	if (dl_iterate_phdr(main_is_go, NULL) == 1)
		xmlw_attr(&w, "runtime", "go");
	xmlw_raw(&w, "/>\n");
	logxml_append(&w);
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracer_started[i] && tracers[i]->log_more)
			tracers[i]->log_more();
	if (timer && cfg->interval_us < KERNEL_TICK_US)
		logxml_note("warning", "timer_rate",
			    "CPU timers are limited by the kernel tick (4000 us at HZ=250): each "
			    "sample's weight is the thread's CPU time since its previous sample");
	if (timer)
		logxml_note("warning", "timer_tick",
			    "sampling by POSIX CPU timers (perf events need perf_event_paranoid <= 1 or "
			    "CAP_PERFMON): the kernel checks them only at its tick, so threads that run "
			    "less than a few ticks are under-sampled");
}

static void col_atexit(void)
{
	col_finish();
}

static int tables_ready, atexit_ready;

/* The exit status, when the collector sees it (exit, _exit, main's return). */
static int exit_known, exit_status;

static void note_exit(int status)
{
	exit_status = status;
	exit_known = 1;
}

void col_clone_child_exit(int status)
{
	note_exit(status);
	col_finish();
}

/*
 * Record into me->dir from now on: data files, tables, log start, map.xml
 * and the calling thread.  in_child: a fork (or clone) child, whose tables
 * and load map are copies of its parent's.
 */
/* Each wanted tracer's data file; a tracer without its file stays off. */
static void create_tracer_files(const char *dir)
{
	struct col_config *cfg = col_config();
	for (size_t i = 0; i < NTRACERS; i++) {
		const struct col_tracer *t = tracers[i];
		tracer_started[i] = 0;
		if (!tracer_wanted[i])
			continue;
		if (blockw_file_create(&tracer_file[i], &cfg->health, dir, t->file_name, t->file_kind,
				       cfg->owner_pid, cfg->start_ns) < 0) {
			char text[160];
			snprintf(text, sizeof text, "could not create the %s file; %s tracing is off",
				 t->file_name, t->name);
			logxml_note("error", "data_files", text);
			continue;
		}
		tracer_started[i] = 1;
	}
}

/*
 * The data files every recording has, or -errno with none left behind:
 * -EFBIG when the file size limit leaves no room for a data block after the
 * header block (nothing could ever be recorded).
 */
static int create_data_files(const char *dir)
{
	struct col_config *cfg = col_config();
	const struct {
		struct blockw_file *f;
		const char *name;
		enum exp_file_kind kind;
	} files[] = {{&cfg->profile, EXP_FILE_NAME_PROFILE, EXP_FILE_PROFILE},
		     {&cfg->stacks, EXP_FILE_NAME_STACKS, EXP_FILE_STACKS},
		     {&cfg->overview, EXP_FILE_NAME_OVERVIEW, EXP_FILE_OVERVIEW}};
	if (!fsize_allows(2 * (uint64_t)EXP_BLOCK_BYTES))
		return -EFBIG;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		int r = blockw_file_create(files[i].f, &cfg->health, dir, files[i].name, files[i].kind,
					   cfg->owner_pid, cfg->start_ns);
		if (r < 0) {
			while (i--)
				unlink(files[i].f->path);
			return r;
		}
	}
	return 0;
}

/* "ulimit -f 64 KiB", or "65000 bytes" for a limit `ulimit -f` cannot set. */
static void fsize_words(char *dst, size_t room, uint64_t n)
{
	if (n % 1024 == 0)
		snprintf(dst, room, "ulimit -f %llu KiB", (unsigned long long)(n / 1024));
	else
		snprintf(dst, room, "%llu bytes", (unsigned long long)n);
}

/* The data files could not be made (errno e): collection is off, and log.xml says why. */
static void data_files_failed(int e)
{
	char text[400], limit[64];
	uint64_t n = fsize_limit_bytes();
	struct xmlw w;
	char buf[640];
	int at_limit = e == EFBIG && n != UINT64_MAX;
	if (at_limit) {
		fsize_words(limit, sizeof limit, n);
		snprintf(
			text, sizeof text,
			"the file size limit (%s) is below the %u KiB each data file needs (a %u KiB "
			"header block and one %u KiB data block): nothing can be recorded; collection is off",
			limit, 2 * EXP_BLOCK_BYTES / 1024, EXP_BLOCK_BYTES / 1024, EXP_BLOCK_BYTES / 1024);
	} else {
		snprintf(text, sizeof text, "could not create the data files (%s); collection is off",
			 errno_text(e));
	}
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <error id=\"data_files\"");
	xmlw_attr_u64(&w, "tstamp_ns", col_now_ns());
	xmlw_attr(&w, "errno", errno_name(e));
	if (at_limit)
		xmlw_attr_u64(&w, "fsize_limit_bytes", n);
	xmlw_raw(&w, ">");
	xmlw_text(&w, text);
	xmlw_raw(&w, "</error>\n");
	logxml_append(&w);
}

static void start_recording(const struct lineage_self *me, int in_child)
{
	struct col_config *cfg = col_config();
	const char *dir = me->dir;
	fdkeep_reset(); /* each file below keeps a descriptor as it is set up */
	if (strlen(dir) >= sizeof cfg->dir || logxml_init(dir) < 0)
		return;
	strcpy(cfg->dir, dir);
	cfg->owner_pid = me->pid;
	cfg->start_ns = col_now_ns();
	char stop[PATH_MAX];
	reserve_path(me, stop, sizeof stop);
	struct blockw_health *h = &cfg->health;
	blockw_health_init(h, cfg->fault_blocks, stop, data_stopped);
	int r = create_data_files(dir);
	if (r < 0) {
		data_files_failed(-r);
		return;
	}
	create_tracer_files(dir);
	if (!tables_ready) {
		if (stacktab_init(STACKTAB_LOG2) < 0 || threads_init(tracers_thread_end) < 0) {
			logxml_note("error", "memory",
				    "could not map the collector's tables; collection is off");
			return;
		}
		tables_ready = 1;
	} else {
		stacktab_reset();
	}
	if (!signals_owned() && signals_init() < 0) {
		logxml_note(
			"error", "sigaction",
			"could not install the SIGURG handler (the sampling signal); clock profiling is off");
		cfg->interval_us = 0;
	}
	if (in_child)
		sampler_reseed();
	else
		sampler_init(cfg->interval_us);
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracer_started[i])
			tracers[i]->start(&tracer_file[i], &params);
	col_set_active(1);
	log_start();
	samples_start();
	if ((in_child ? loadmap_fork_child(dir) : loadmap_init(dir)) < 0)
		logxml_note("error", "map", "could not write map.xml");
	if (in_child)
		threads_fork_child(1, me->origin == LINEAGE_RAW);
	else
		threads_begin_initial(me->origin == LINEAGE_EXEC ? me->origin_cpu_ns : 0);
	if (!atexit_ready) {
		atexit(col_atexit);
		atexit_ready = 1;
	}
}

/* A fork (letter 'f') or clone ('C') child, number n: start over as that descendant. */
static void become_child(char letter, unsigned n)
{
	col_set_active(0);
	exit_known = 0;
	fdkeep_reset(); /* the parent's files */
	for (size_t i = 0; i < NTRACERS; i++) {
		tracer_started[i] = 0;
		if (tracers[i]->fork_child)
			tracers[i]->fork_child();
	}
	struct col_counters zero = {0};
	*col_counters() = zero; /* before lineage's appends, which may count (fsize_dropped) */
	const struct lineage_self *me = lineage_fork_child(letter, n);
	if (!me->followed) {
		threads_fork_child(0, 0);
		return;
	}
	int g = threads_guard_enter(); /* the experiment's files are not the program's I/O */
	start_recording(me, 1);
	threads_guard_leave(g);
}

static __thread unsigned tls_fork_index;

static void col_atfork_prepare(void)
{
	tls_fork_index = lineage_next_index('f');
	loadmap_lock_fork();
	threads_lock();
}

static void col_atfork_parent(void)
{
	threads_unlock();
	loadmap_unlock_fork();
}

static void col_atfork_child(void)
{
	threads_unlock();
	loadmap_unlock_fork();
	become_child('f', tls_fork_index);
}

void col_clone_child(void)
{
	become_child('C', lineage_next_index('C'));
}

/*
 * A child of the raw clone or clone3 system call, found at its first call
 * into the collector: it has its parent's state but not its files (its
 * page of col_forked_unseen was wiped).  It starts over as _c<n>; the CPU it
 * ran before is charged as unknown (threads.c), since nothing sampled it.
 */
static void col_raw_child(void)
{
	static _Atomic int adopting;
	if (atomic_exchange(&adopting, 1))
		return;
	threads_unlock(); /* no other thread exists here to hold them */
	loadmap_unlock_fork();
	become_child('c', 0);
	atomic_store(&adopting, 0);
}

static void init_collection(void)
{
	struct col_config *cfg = col_config();
	params_decode(getenv("PA_PARAMS"), &params);
	apply_params(&params, cfg);
	cfg->fault_blocks = -1;
	const char *fault = getenv("PA_FAULT_BLOCKS"); /* testing: fail the block writer after N blocks */
	if (fault && *fault >= '0' && *fault <= '9')
		cfg->fault_blocks = strtoll(fault, NULL, 10);
	struct lineage_params lp = {
		.follow = cfg->follow,
		.interval_us = cfg->interval_us,
		.depth_limit = cfg->depth_limit,
		.window_start_s = cfg->window_start_ns / 1000000000u,
		.window_end_s = cfg->window_end_ns / 1000000000u,
		.heap_on = params.tracer[EXP_PARAMS_HEAP],
	};
	const struct lineage_self *me = lineage_init(&lp);
	if (!me->known)
		return;
	/* every process of the tree keeps its lineage, followed or not */
	pthread_atfork(col_atfork_prepare, col_atfork_parent, col_atfork_child);
	if (me->followed)
		start_recording(me, 0);
}

void col_init(void)
{
	if (atomic_load_explicit(&col_init_state, memory_order_acquire) == 2) {
		if (col_forked_unseen())
			col_raw_child();
		return;
	}
	int expect = 0;
	if (atomic_compare_exchange_strong(&col_init_state, &expect, 1)) {
		col_config()->init_cpu_ns = col_thread_cpu_ns(); /* before it: the process's loading */
		atomic_store(&col_init_tid, col_gettid());
		int g = threads_guard_enter(); /* our own mallocs and mmaps are not the target's */
		col_resolve_reals();
		init_collection();
		threads_guard_leave(g);
		atomic_store_explicit(&col_init_state, 2, memory_order_release);
		return;
	}
	if (atomic_load(&col_init_tid) == col_gettid())
		return; /* called back from our own init: the reals are resolved */
	while (atomic_load_explicit(&col_init_state, memory_order_acquire) != 2)
		sched_yield();
}

/* Records the tracers lost (their files stopped). */
static uint64_t tracers_lost(void)
{
	uint64_t n = 0;
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracer_started[i] && tracers[i]->lost)
			n += tracers[i]->lost();
	return n;
}

/* <collector_end>'s losses: when the data files stopped, or records were lost for a descriptor. */
static void log_end_losses(struct xmlw *w)
{
	const struct col_config *cfg = col_config();
	struct col_counters *n = col_counters();
	int err = atomic_load(&cfg->health.err);
	uint64_t since = atomic_load(&cfg->health.since_ns);
	if (!err && atomic_load(&cfg->health.transient_err) &&
	    (atomic_load(&n->lost_samples) || atomic_load(&n->lost_records) || tracers_lost())) {
		/* nothing stopped, but records were lost for want of a descriptor */
		err = atomic_load(&cfg->health.transient_err);
		since = atomic_load(&cfg->health.transient_since_ns);
	}
	if (!err)
		return;
	xmlw_attr_u64(w, "lost_since_ns", since);
	xmlw_attr(w, "lost_errno", errno_name(err));
	xmlw_attr_u64(w, "lost_samples", atomic_load(&n->lost_samples));
	xmlw_attr_u64(w, "lost_sample_ns", atomic_load(&n->lost_sample_ns));
	xmlw_attr_u64(w, "lost_records", atomic_load(&n->lost_records));
	uint64_t limit = atomic_load(&cfg->health.fsize_limit_bytes);
	if (err == EFBIG && limit)
		xmlw_attr_u64(w, "lost_fsize_limit_bytes", limit);
	for (size_t i = 0; i < NTRACERS; i++) {
		if (!tracer_started[i] || !tracers[i]->lost)
			continue;
		char key[48] = "lost_";
		size_t k = 5;
		for (const char *q = tracers[i]->name; *q && k + 1 < sizeof key; q++)
			key[k++] = *q;
		key[k] = 0;
		xmlw_attr_u64(w, key, tracers[i]->lost());
	}
}

/* <collector_end>'s counters, from the samples to each tracer's own. */
static void log_end_counters(struct xmlw *w)
{
	const struct col_config *cfg = col_config();
	struct col_counters *n = col_counters();
	xmlw_attr_u64(w, "tstamp_ns", col_now_ns());
	xmlw_attr_u64(w, "samples", atomic_load(&n->samples));
	xmlw_attr_u64(w, "samples_at_start", atomic_load(&n->startup_samples));
	xmlw_attr_u64(w, "samples_at_end", atomic_load(&n->end_samples));
	xmlw_attr_u64(w, "resyncs", atomic_load(&n->resyncs));
	xmlw_attr_u64(w, "signals", atomic_load(&n->signals));
	xmlw_attr_u64(w, "deferred", atomic_load(&n->deferred));
	xmlw_attr_u64(w, "wait_samples", atomic_load(&n->wait_samples));
	xmlw_attr_u64(w, "coalesced", atomic_load(&n->coalesced));
	uint64_t busy = atomic_load(&n->dropped_busy), other = atomic_load(&n->dropped_other);
	xmlw_attr_u64(w, "dropped", busy + other);
	xmlw_attr_u64(w, "dropped_busy", busy);
	xmlw_attr_u64(w, "dropped_other", other);
	log_end_losses(w);
	xmlw_attr_u64(w, "timer_failures", atomic_load(&n->timer_failures));
	xmlw_attr_u64(w, "timer_fallbacks", atomic_load(&n->timer_fallbacks));
	xmlw_attr_u64(w, "thread_slot_failures", atomic_load(&n->slot_failures));
	if (atomic_load(&n->fsize_dropped))
		xmlw_attr_u64(w, "fsize_dropped", atomic_load(&n->fsize_dropped));
	uint64_t failures = atomic_load(&cfg->profile.failure_count) +
			    atomic_load(&cfg->stacks.failure_count) +
			    atomic_load(&cfg->overview.failure_count);
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracer_started[i])
			failures += atomic_load(&tracer_file[i].failure_count);
	xmlw_attr_u64(w, "block_failures", failures);
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracer_started[i] && tracers[i]->log_end)
			tracers[i]->log_end(w);
}

/*
 * End collection.  exec_path: the process is about to exec that program
 * (its new image records on its own), else NULL: the process is exiting.
 */
static void finish(const char *exec_path)
{
	if (!col_active() || (uint32_t)getpid() != col_config()->owner_pid)
		return;
	if (col_mark_finished())
		return;
	int saved = errno;
	int g = threads_guard_enter();
	for (size_t i = 0; i < NTRACERS; i++)
		if (tracer_started[i] && tracers[i]->stop)
			tracers[i]->stop();
	threads_finish();
	char buf[PATH_MAX * 6 + 1024];
	struct xmlw w;
	xmlw_init(&w, buf, sizeof buf);
	xmlw_raw(&w, "  <collector_end");
	log_end_counters(&w);
	xmlw_raw(&w, "/>\n");
	if (exec_path) {
		xmlw_raw(&w, "  <exec");
		xmlw_attr_u64(&w, "tstamp_ns", col_now_ns());
		xmlw_attr_utf8(&w, "path", exec_path);
		xmlw_raw(&w, "/>\n");
	}
	if (lineage_self()->origin != LINEAGE_FOUNDER) {
		/* a descendant closes its own experiment; collect closes the founder's */
		if (exit_known && !exec_path)
			loghead_exit(&w, col_now_ns(), (exit_status & 0xff) << 8);
		loghead_end(&w, col_now_ns());
	}
	samples_finish();
	logxml_append(&w);
	if (lineage_self()->origin != LINEAGE_FOUNDER)
		loadmap_finish();
	threads_guard_leave(g);
	errno = saved;
}

void col_finish(void)
{
	finish(NULL);
}

/*
 * A real-time sampling signal still pending for this thread (held by a
 * mask) would kill the new image, which gives it the default action:
 * take it off before the exec.  SIGURG's default is to ignore it.
 */
static void drain_sampling_signal(void)
{
	int sig = sampler_signal();
	sigset_t pending, one;
	if (sig == SAMPLER_SIGNAL || syscall(SYS_rt_sigpending, &pending, 8) != 0 ||
	    sigismember(&pending, sig) != 1)
		return;
	sigemptyset(&one);
	sigaddset(&one, sig);
	struct timespec zero = {0, 0};
	syscall(SYS_rt_sigtimedwait, &one, NULL, &zero, 8);
}

void col_before_exec(const char *path)
{
	/* only an exec that can succeed ends the recording (a shell tries each PATH entry) */
	if (path && col_collecting() && access(path, X_OK) == 0) {
		finish(path);
		drain_sampling_signal();
	}
}

__attribute__((constructor(101))) static void col_constructor(void)
{
	col_init();
}

__attribute__((destructor(101))) static void col_destructor(void)
{
	col_finish();
}

EXPORT void _exit(int status)
{
	col_init();
	note_exit(status);
	col_finish();
	if (col_real()->exit_)
		col_real()->exit_(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void _Exit(int status)
{
	col_init();
	note_exit(status);
	col_finish();
	if (col_real()->Exit_)
		col_real()->Exit_(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

EXPORT void exit(int status)
{
	col_init();
	note_exit(status);
	if (col_real()->exit)
		col_real()->exit(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

/*
 * main's return value is the process's exit status: glibc passes it to
 * exit inside libc, where our exit is not called, so main is wrapped.  The
 * one __libc_start_main implementation serves both symbol versions (a legacy
 * program's init pointer is honoured by it).
 */
typedef int (*col_main_fn)(int, char **, char **);
static col_main_fn col_real_main;

static int col_main(int argc, char **argv, char **envp)
{
	int r = col_real_main(argc, argv, envp);
	note_exit(r);
	return r;
}

EXPORT int __libc_start_main(col_main_fn main_fn, int argc, char **argv, void (*init)(void),
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end);
EXPORT int __libc_start_main(col_main_fn main_fn, int argc, char **argv, void (*init)(void),
			     void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	typedef int (*start_fn)(col_main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
				void *);
	start_fn real = (start_fn)col_next_sym("__libc_start_main", "GLIBC_2.34");
	col_real_main = main_fn;
	return real(col_main, argc, argv, init, fini, rtld_fini, stack_end);
}
