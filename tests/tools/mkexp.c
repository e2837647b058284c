/*
 * mkexp - write a synthetic experiment from a small text script, for
 * component tests, fuzz seeds and benchmarks (no collector involved).
 *
 *   mkexp [--bulk N] [--damage KIND] OUT.er < script
 *
 * Script lines (# comments):
 *   object PATH                 a load object; its functions are looked up by name
 *   thread TID [CREATOR [FRAME]]  a thread start (first one = main thread); the others'
 *                               start routine is FRAME (default 0x401000)
 *   end TID CPU_NS [WAIT_NS]    a thread end with its measured CPU time [and run-queue wait]
 *   sample TID COUNT WEIGHT_NS FRAME...    COUNT samples, leaf first
 *   usample TID COUNT WEIGHT_NS USER_NS FRAME...  the same with the user part of each
 *                               sample's weight (format 1.10: the user/system split)
 *   tsample TID COUNT WEIGHT_NS FRAME...   the same, stack flagged truncated
 *   csample TID CPU COUNT WEIGHT_NS FRAME...  samples recorded on CPU (sample and tsample
 *                               alternate CPUs 0 and 1)
 *   xsample TID COUNT WEIGHT_NS RUNTIME STATE FLAGS REGION AUX FRAME...  samples taken in a
 *                               runtime's context (CLOCK_CTX records); REGION @N: the stack id
 *                               of the Nth sample line (0-based) of the script
 *   heap TID OP SIZE ADDR FRAME...        a heap call (writes the heaptrace file); OP is
 *                               malloc, calloc, memalign, mmap (allocations), free or munmap
 *                               (no frames), or realloc, whose ADDR is NEWADDR/OLDADDR
 *                               (e.g. 0x2000/0x1000); each heap call is 1 ms after the
 *                               previous one, the first at 1 ms after the start.  The
 *                               first, third, ... distinct heap stack is referenced by a
 *                               STACK_SLOT slot, the others by stack id; FRAME "-" = none.
 *   sync TID FUNC OBJECT WAIT_NS FRAME...  a synchronization wait (writes the synctrace
 *                               file): FUNC an API name (pthread_mutex_lock, ...), OBJECT
 *                               its address; each wait starts 1 ms after the previous one
 *                               ended, the first 1 ms after the start
 *   acq TID FUNC OBJECT FRAME...  a sampled acquisition of a watched object (a SYNC_ACQ
 *                               record), 1 ms after the previous sync line's end
 *   acqcount OBJECT N EVERY     a watched object's exact acquisitions N, 1 in EVERY
 *                               sampled (a SYNC_COUNT record, written by thread 1)
 *   io TID FUNC VFD FD BYTES ERRNO DUR_NS FRAME...  an I/O call (writes the iotrace file):
 *                               FUNC a traced function's name (read, write, open, ...);
 *                               each call starts 1 ms after the previous io line ended,
 *                               the first 1 ms after the start
 *   iofile VFD FD HOW ORIGIN NAME  a descriptor's life begins (an IO_FILE record, written
 *                               in line order by the next io line's thread): HOW open,
 *                               failed, dup, pipe, socket or inherited; NAME "-" = none
 *   hwcounter NAME INTERVAL UNIT  a counter of collect -h (log.xml <hwcounter>, ids 0, 1, ...
 *                               in line order; UNIT events or nanoseconds)
 *   hwc TID COUNTER OVERFLOWS FRAME...  overflows of counter COUNTER (an id) with their stack
 *                               (writes the hwctrace file), each 1 ms after the previous hwc line
 *   exit STATUS | signal N      how the target ended (default: exit 0)
 *   point NS                    a periodic sample point NS after the start (between the
 *                               start and end points mkexp always writes; in time order)
 *   start NS                    the experiment's start, CLOCK_MONOTONIC (default 1000000000);
 *                               every time is relative to it
 *   expiry grid|uniform         <collector_start first_expiry>: how the reader charges a
 *                               thread's CPU after its samples (default: neither)
 *   rusage UTIME_NS STIME_NS    the target's CPU time as collect's wait4 gave it (default:
 *                               the experiment's span as user time, no system time)
 *   comment TEXT
 * FRAME is FUNC, FUNC+OFFSET (in the most recent object defining FUNC),
 * @0xVADDR (an ELF address of the most recent object), or 0xADDR.  Object k (0-based) is placed at base 0x100000000 * (k + 1).
 * --bulk N cycles through the sample lines (each with its COUNT) until N
 * samples are written.
 * --heap-bulk N writes N heap allocations cycling through the heap lines' stacks
 * (sizes 16..1024, addresses 0x10000000 + 64 k), each freed three allocations later
 * except every tenth (leaked), 1 us apart, instead of the heap lines themselves.
 * --damage garbage-heap makes the first heaptrace event malformed.
 * --damage: truncate-profile (cut the profile mid-block), bad-magic (corrupt
 * a block magic), torn-log (drop the tail of log.xml), garbage-stacks (random
 * bytes in a stacks record), bad-header (damage the profile file header).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/symtab.h"
#include "common/varint.h"
#include "experiment/format.h"
#include "experiment/heapstream.h"
#include "experiment/record.h"

/* <rusage utime_ns stime_ns>, from a "rusage" line */
static unsigned long long ru_utime, ru_stime;
static int ru_given;
/* <collector_start first_expiry="...">, from an "expiry" line */
static char expiry_xml[48];
/* the experiment's start (CLOCK_MONOTONIC); a "start" line changes it */
static uint64_t start_ns = 1000000000ull;
/* the "point" lines: periodic sample points, ns after the start */
static uint64_t points[64];
static int npoints;

struct obj {
	char path[4096];
	struct symtab *st;
	uint64_t base;
};

struct sline {
	uint32_t tid;
	uint64_t count, weight, user;
	int has_user;
	uint32_t flags;
	int64_t cpu; /* -1: alternate 0 and 1 */
	uint64_t pcs[256];
	uint32_t n;
	struct exp_sample_ctx ctx; /* xsample */
	long region_line;          /* xsample REGION @N: N, else -1 */
};

static struct obj objs[16];
static int nobjs;
static struct sline *lines; /* grown as the script names them */
static int nlines, lcap;

struct hline {
	uint32_t tid;
	uint8_t op;
	uint64_t size, addr, old_addr;
	uint64_t pcs[256];
	uint32_t n;
	int stack; /* index into hstacks, -1 = no stack */
};
static struct hline *hlines;
static int nhlines, hcap;
/* distinct heap stacks: their id and how heap records name them */
struct hstack {
	uint64_t id;
	int use_slot;
	uint32_t slot;
};
static struct hstack hstacks[4096];
static int nhstacks;

enum { Y_WAIT, Y_ACQ, Y_COUNT };
struct yline {
	int kind; /* Y_WAIT: sync; Y_ACQ: acq (wait_ns 0); Y_COUNT: acqcount (wait_ns = N, func = EVERY) */
	uint32_t tid, func;
	uint64_t object, wait_ns;
	uint64_t pcs[256];
	uint32_t n;
};
static struct yline *ylines;
static int nylines, ycap;

struct ioline {
	int file; /* 1: an iofile line */
	uint32_t tid;
	struct exp_io io;
	struct exp_io_file f;
	char name[256];
	uint64_t pcs[256];
	uint32_t n;
};
static struct ioline *iolines;
static int niolines, iocap;

struct hwcline {
	uint32_t tid;
	struct exp_hwc h;
	uint64_t pcs[256];
	uint32_t n;
};
static struct hwcline *hwclines;
static int nhwclines, hwccap;
static char hwc_xml[8192]; /* the <hwcounter> lines */
static int nhwcounters;

static int io_func(const char *w)
{
	for (unsigned i = 0; i < EXP_IO_FUNC_LIMIT; i++)
		if (strcmp(w, record_io_func_name(i)) == 0)
			return (int)i;
	return -1;
}

static int io_how(const char *w)
{
	static const char *const names[EXP_IO_HOW_LIMIT] = {"open",   "failed",    "dup",    "pipe",
							    "socket", "inherited", "tmpfile"};
	for (int i = 0; i < EXP_IO_HOW_LIMIT; i++)
		if (strcmp(w, names[i]) == 0)
			return i;
	return -1;
}

static int sync_func(const char *w)
{
	for (unsigned i = 0; i < EXP_SYNC_FUNC_LIMIT; i++)
		if (strcmp(w, record_sync_func_name(i)) == 0)
			return (int)i;
	return -1;
}

static int heap_op(const char *w)
{
	static const char *const names[] = {"malloc",   "calloc", "realloc", "free",
					    "memalign", "mmap",   "munmap"};
	for (int i = 0; i < 7; i++)
		if (strcmp(w, names[i]) == 0)
			return i;
	return -1;
}

/* one open block per file and thread: simple, since mkexp writes sequentially */
struct wfile {
	FILE *f;
	uint8_t block[EXP_BLOCK_BYTES];
	size_t used;
	uint32_t tid;
	int open;
	uint64_t prev_ns;
	uint32_t seq;
};

static void die(const char *what, const char *a)
{
	fprintf(stderr, "mkexp: %s %s\n", what, a);
	exit(1);
}

static void wfile_open(struct wfile *w, const char *dir, const char *name, enum exp_file_kind kind)
{
	char p[4200];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	w->f = fopen(p, "wb");
	if (!w->f)
		die("cannot create", p);
	uint8_t hdr[EXP_BLOCK_BYTES] = {0};
	memcpy(hdr, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
	le16_put(hdr + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
	le16_put(hdr + EXP_FH_VERSION_MINOR, EXP_FORMAT_VERSION_MINOR);
	le32_put(hdr + EXP_FH_FILE_KIND, kind);
	le32_put(hdr + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
	le32_put(hdr + EXP_FH_PID, 4242);
	le64_put(hdr + EXP_FH_START_NS, start_ns);
	fwrite(hdr, 1, sizeof hdr, w->f);
}

static void wfile_flush(struct wfile *w)
{
	if (!w->open)
		return;
	fwrite(w->block, 1, EXP_BLOCK_BYTES, w->f);
	w->open = 0;
}

static void wfile_begin(struct wfile *w, uint32_t tid, uint64_t base_ns)
{
	wfile_flush(w);
	memset(w->block, 0, sizeof w->block);
	le32_put(w->block + EXP_BH_MAGIC, EXP_BLOCK_MAGIC);
	le32_put(w->block + EXP_BH_TID, tid);
	le32_put(w->block + EXP_BH_SEQ, w->seq++);
	le64_put(w->block + EXP_BH_BASE_NS, base_ns);
	w->used = EXP_BLOCK_HEADER_BYTES;
	w->tid = tid;
	w->prev_ns = base_ns;
	w->open = 1;
}

/* Ensure an open block of `tid` with room; returns the write position. */
static uint8_t *wfile_room(struct wfile *w, uint32_t tid, uint64_t now)
{
	if (!w->open || w->tid != tid || EXP_BLOCK_BYTES - w->used < 4500)
		wfile_begin(w, tid, now);
	return w->block + w->used;
}

static void wfile_commit(struct wfile *w, size_t n, enum exp_record_kind kind, uint8_t *at)
{
	record_publish(at, kind);
	w->used += n;
}

/* A heap event at time t, as the collector writes it (a time mark when due). */
static void heap_put(struct wfile *w, struct heapstream_state *hs, const struct exp_heap *eh, uint64_t t)
{
	if (!w->open || w->tid != eh->tid || EXP_BLOCK_BYTES - w->used < 2 * EXP_HEAP_EVENT_MAX_BYTES) {
		wfile_begin(w, eh->tid, t);
		heapstream_begin(hs, t, EXP_FORMAT_VERSION_MINOR);
	}
	if (heapstream_time_due(hs, t, EXP_HEAP_TIME_STEP_NS))
		w->used += heapstream_encode_time(w->block + w->used, hs, t);
	w->used += heapstream_encode(w->block + w->used, hs, eh);
	le32_put(w->block + EXP_BH_USED, (uint32_t)(w->used - EXP_BLOCK_HEADER_BYTES));
}

static uint64_t lookup(const char *frame)
{
	if (strncmp(frame, "0x", 2) == 0)
		return strtoull(frame, NULL, 16);
	if (strncmp(frame, "@0x", 3) == 0 && nobjs > 0)
		return objs[nobjs - 1].base + strtoull(frame + 3, NULL, 16);
	char name[512];
	snprintf(name, sizeof name, "%s", frame);
	uint64_t off = 0;
	char *plus = strrchr(name, '+');
	if (plus) {
		off = strtoull(plus + 1, NULL, 0);
		*plus = '\0';
	}
	for (int k = nobjs - 1; k >= 0; k--) {
		for (size_t i = 0; i < symtab_count(objs[k].st); i++) {
			const struct symtab_func *f = symtab_at(objs[k].st, i);
			if (strcmp(f->name, name) == 0 || strcmp(f->mangled, name) == 0)
				return objs[k].base + f->addr + off;
		}
	}
	die("no such function in the objects given:", name);
	return 0;
}

/* An io or iofile line (tok[0] says which) into iolines. */
static void parse_io(char **tok, int nt)
{
	if (niolines == iocap) {
		iocap = iocap ? iocap * 2 : 64;
		iolines = realloc(iolines, (size_t)iocap * sizeof *iolines);
		if (!iolines)
			die("out of memory", "");
	}
	struct ioline *l = &iolines[niolines++];
	memset(l, 0, sizeof *l);
	if (strcmp(tok[0], "iofile") == 0) {
		int how = io_how(tok[3]);
		if (how < 0)
			die("unknown iofile how", tok[3]);
		l->file = 1;
		l->tid = 1;
		l->f.vfd = (uint32_t)strtoul(tok[1], NULL, 0);
		l->f.fd = (int32_t)strtol(tok[2], NULL, 0);
		l->f.how = (uint32_t)how;
		l->f.origin = (uint32_t)strtoul(tok[4], NULL, 0);
		snprintf(l->name, sizeof l->name, "%s", strcmp(tok[5], "-") ? tok[5] : "");
		return;
	}
	int f = io_func(tok[2]);
	if (f < 0)
		die("unknown io function", tok[2]);
	l->tid = (uint32_t)strtoul(tok[1], NULL, 10);
	l->io.func = (uint32_t)f;
	l->io.vfd = (uint32_t)strtoul(tok[3], NULL, 0);
	l->io.fd = (int32_t)strtol(tok[4], NULL, 0);
	l->io.bytes = strtoull(tok[5], NULL, 0);
	l->io.err = (uint32_t)strtoul(tok[6], NULL, 0);
	l->io.dur_ns = strtoull(tok[7], NULL, 0);
	for (int k = 8; k < nt && l->n < 256; k++)
		l->pcs[l->n++] = lookup(tok[k]);
}

int main(int argc, char **argv)
{
	uint64_t bulk = 0, heap_bulk = 0;
	const char *damage = NULL, *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--bulk") == 0 && i + 1 < argc)
			bulk = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--heap-bulk") == 0 && i + 1 < argc)
			heap_bulk = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--damage") == 0 && i + 1 < argc)
			damage = argv[++i];
		else
			out = argv[i];
	}
	if (!out)
		die("usage: mkexp [--bulk N] [--heap-bulk N] [--damage KIND] OUT.er < script", "");
	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		die("cannot create", out);

	char line[65536];
	char threads_xml[1 << 16] = "", tail_xml[4096] = "", comments[4096] = "";
	uint32_t thread_tids[256];
	uint64_t thread_end_cpu[256], thread_end_wait[256], thread_start_pc[256];
	int nthreads = 0;
	int exit_status = 0, exit_signal = 0;
	(void)threads_xml;
	while (fgets(line, sizeof line, stdin)) {
		char *tok[300];
		int nt = 0;
		for (char *s = strtok(line, " \t\n"); s && nt < 300; s = strtok(NULL, " \t\n"))
			tok[nt++] = s;
		if (nt == 0 || tok[0][0] == '#')
			continue;
		if (strcmp(tok[0], "object") == 0 && nt == 2 && nobjs < 16) {
			struct obj *o = &objs[nobjs];
			if (!realpath(tok[1], o->path))
				die("no such object", tok[1]);
			if (symtab_open(o->path, NULL, NULL, &o->st) < 0)
				die("cannot read symbols of", tok[1]);
			o->base = 0x100000000ull * (uint64_t)(nobjs + 1);
			nobjs++;
		} else if (strcmp(tok[0], "thread") == 0 && nt >= 2 && nthreads < 256) {
			thread_tids[nthreads] = (uint32_t)strtoul(tok[1], NULL, 10);
			thread_start_pc[nthreads] = nt >= 4 ? lookup(tok[3]) : 0x401000;
			thread_end_cpu[nthreads] = thread_end_wait[nthreads] = UINT64_MAX;
			nthreads++;
		} else if (strcmp(tok[0], "end") == 0 && (nt == 3 || nt == 4)) {
			for (int t = 0; t < nthreads; t++)
				if (thread_tids[t] == strtoul(tok[1], NULL, 10)) {
					thread_end_cpu[t] = strtoull(tok[2], NULL, 10);
					thread_end_wait[t] =
						nt == 4 ? strtoull(tok[3], NULL, 10) : UINT64_MAX;
				}
		} else if ((strcmp(tok[0], "sample") == 0 || strcmp(tok[0], "tsample") == 0 ||
			    (strcmp(tok[0], "usample") == 0 && nt >= 5) ||
			    (strcmp(tok[0], "csample") == 0 && nt >= 5) ||
			    (strcmp(tok[0], "xsample") == 0 && nt >= 9)) &&
			   nt >= 4) {
			if (nlines == lcap) {
				lcap = lcap ? lcap * 2 : 256;
				lines = realloc(lines, (size_t)lcap * sizeof *lines);
				if (!lines)
					die("out of memory", "");
			}
			struct sline *s = &lines[nlines++];
			int c = tok[0][0] == 'c'; /* csample: a CPU before the count */
			s->tid = (uint32_t)strtoul(tok[1], NULL, 10);
			s->cpu = c ? (int64_t)strtoul(tok[2], NULL, 10) : -1;
			s->count = strtoull(tok[2 + c], NULL, 10);
			s->weight = strtoull(tok[3 + c], NULL, 10);
			s->has_user = tok[0][0] == 'u';
			s->user = s->has_user ? strtoull(tok[4], NULL, 10) : 0;
			s->flags = tok[0][0] == 't' ? EXP_STACK_TRUNCATED : 0;
			s->n = 0;
			int x = tok[0][0] == 'x' ? 5 : 0; /* xsample: the context's five fields */
			s->ctx = (struct exp_sample_ctx){0};
			s->region_line = -1;
			if (x) {
				s->ctx.runtime = (uint32_t)strtoul(tok[4], NULL, 0);
				s->ctx.state = (uint32_t)strtoul(tok[5], NULL, 0);
				s->ctx.flags = (uint32_t)strtoul(tok[6], NULL, 0);
				if (tok[7][0] == '@')
					s->region_line = strtol(tok[7] + 1, NULL, 10);
				else
					s->ctx.region = strtoull(tok[7], NULL, 0);
				s->ctx.aux = strtoull(tok[8], NULL, 0);
			}
			for (int k = 4 + c + s->has_user + x; k < nt && s->n < 256; k++)
				s->pcs[s->n++] = lookup(tok[k]);
		} else if ((strcmp(tok[0], "sync") == 0 && nt >= 5) ||
			   (strcmp(tok[0], "acq") == 0 && nt >= 4) ||
			   (strcmp(tok[0], "acqcount") == 0 && nt == 4)) {
			if (nylines == ycap) {
				ycap = ycap ? ycap * 2 : 64;
				ylines = realloc(ylines, (size_t)ycap * sizeof *ylines);
				if (!ylines)
					die("out of memory", "");
			}
			struct yline *y = &ylines[nylines++];
			memset(y, 0, sizeof *y);
			y->kind = tok[0][0] == 's' ? Y_WAIT : tok[0][3] ? Y_COUNT : Y_ACQ;
			if (y->kind == Y_COUNT) {
				y->tid = 1;
				y->object = strtoull(tok[1], NULL, 0);
				y->wait_ns = strtoull(tok[2], NULL, 0);
				y->func = (uint32_t)strtoul(tok[3], NULL, 0);
				continue;
			}
			int f = sync_func(tok[2]);
			if (f < 0)
				die("unknown sync function", tok[2]);
			y->tid = (uint32_t)strtoul(tok[1], NULL, 10);
			y->func = (uint32_t)f;
			y->object = strtoull(tok[3], NULL, 0);
			int first = 4;
			if (y->kind == Y_WAIT)
				y->wait_ns = strtoull(tok[first++], NULL, 0);
			for (int k = first; k < nt && y->n < 256; k++)
				y->pcs[y->n++] = lookup(tok[k]);
		} else if (strcmp(tok[0], "hwcounter") == 0 && nt == 4) {
			size_t used = strlen(hwc_xml);
			snprintf(
				hwc_xml + used, sizeof hwc_xml - used,
				"  <hwcounter id=\"%d\" name=\"%s\" type=\"1\" config=\"0\" config1=\"0\" "
				"config2=\"0\" interval=\"%s\" precise=\"0\" exclude_kernel=\"0\" unit=\"%s\"/>\n",
				nhwcounters++, tok[1], tok[2], tok[3]);
		} else if (strcmp(tok[0], "hwc") == 0 && nt >= 4) {
			if (nhwclines == hwccap) {
				hwccap = hwccap ? hwccap * 2 : 64;
				hwclines = realloc(hwclines, (size_t)hwccap * sizeof *hwclines);
				if (!hwclines)
					die("out of memory", "");
			}
			struct hwcline *h = &hwclines[nhwclines++];
			memset(h, 0, sizeof *h);
			h->tid = (uint32_t)strtoul(tok[1], NULL, 10);
			h->h.counter = (uint32_t)strtoul(tok[2], NULL, 10);
			h->h.overflows = strtoull(tok[3], NULL, 10);
			for (int k = 4; k < nt && h->n < 256; k++)
				h->pcs[h->n++] = lookup(tok[k]);
		} else if ((strcmp(tok[0], "io") == 0 && nt >= 8) ||
			   (strcmp(tok[0], "iofile") == 0 && nt == 6)) {
			parse_io(tok, nt);
		} else if (strcmp(tok[0], "heap") == 0 && nt >= 5) {
			if (nhlines == hcap) {
				hcap = hcap ? hcap * 2 : 64;
				hlines = realloc(hlines, (size_t)hcap * sizeof *hlines);
				if (!hlines)
					die("out of memory", "");
			}
			struct hline *h = &hlines[nhlines++];
			memset(h, 0, sizeof *h);
			int op = heap_op(tok[2]);
			if (op < 0)
				die("unknown heap op", tok[2]);
			h->tid = (uint32_t)strtoul(tok[1], NULL, 10);
			h->op = (uint8_t)op;
			h->size = strtoull(tok[3], NULL, 0);
			char *slash;
			h->addr = strtoull(tok[4], &slash, 0);
			if (op == EXP_HEAP_REALLOC && *slash == '/')
				h->old_addr = strtoull(slash + 1, NULL, 0);
			for (int k = 5; k < nt && h->n < 256; k++)
				if (strcmp(tok[k], "-") != 0)
					h->pcs[h->n++] = lookup(tok[k]);
			h->stack = -1;
			if (h->n) {
				uint64_t id = record_stack_hash(h->pcs, h->n, 0);
				for (int k = 0; k < nhstacks; k++)
					if (hstacks[k].id == id)
						h->stack = k;
				if (h->stack < 0 && nhstacks < 4096) {
					h->stack = nhstacks;
					hstacks[nhstacks] =
						(struct hstack){.id = id,
								.use_slot = nhstacks % 2 == 0,
								.slot = (uint32_t)(nhstacks * 7 + 3)};
					nhstacks++;
				}
			}
		} else if (strcmp(tok[0], "point") == 0 && nt == 2 && npoints < 64) {
			points[npoints++] = strtoull(tok[1], NULL, 10);
		} else if (strcmp(tok[0], "start") == 0 && nt == 2) {
			start_ns = strtoull(tok[1], NULL, 10);
		} else if (strcmp(tok[0], "rusage") == 0 && nt == 3) {
			ru_utime = strtoull(tok[1], NULL, 10);
			ru_stime = strtoull(tok[2], NULL, 10);
			ru_given = 1;
		} else if (strcmp(tok[0], "expiry") == 0 && nt == 2) {
			snprintf(expiry_xml, sizeof expiry_xml, " first_expiry=\"%.16s\"", tok[1]);
		} else if (strcmp(tok[0], "exit") == 0 && nt == 2) {
			exit_status = atoi(tok[1]);
		} else if (strcmp(tok[0], "signal") == 0 && nt == 2) {
			exit_signal = atoi(tok[1]);
		} else if (strcmp(tok[0], "comment") == 0) {
			size_t l = strlen(comments);
			snprintf(comments + l, sizeof comments - l, "  <comment>");
			for (int k = 1; k < nt; k++) {
				l = strlen(comments);
				snprintf(comments + l, sizeof comments - l, "%s%s", k > 1 ? " " : "", tok[k]);
			}
			l = strlen(comments);
			snprintf(comments + l, sizeof comments - l, "</comment>\n");
		} else {
			die("bad script line starting with", tok[0]);
		}
	}

	/* data files */
	static struct wfile prof, stk, ovw;
	wfile_open(&prof, out, EXP_FILE_NAME_PROFILE, EXP_FILE_PROFILE);
	wfile_open(&stk, out, EXP_FILE_NAME_STACKS, EXP_FILE_STACKS);
	wfile_open(&ovw, out, EXP_FILE_NAME_OVERVIEW, EXP_FILE_OVERVIEW);
	uint64_t now = start_ns + 1000;
	for (int t = 0; t < nthreads; t++) {
		struct exp_thread_start ts = {.tid = thread_tids[t],
					      .creator_tid = t ? thread_tids[0] : 0,
					      .start_ns = now,
					      .start_pc = t ? thread_start_pc[t] : 0};
		uint8_t *at = wfile_room(&prof, thread_tids[t], now);
		wfile_commit(&prof, record_encode_thread_start(at, 64, &ts), EXP_REC_THREAD_START, at);
	}
	for (int i = 0; i < nlines; i++) {
		struct sline *s = &lines[i];
		struct exp_stack es = {.flags = s->flags, .nframes = s->n, .pcs = s->pcs};
		es.id = record_stack_hash(s->pcs, s->n, s->flags);
		uint8_t *at = wfile_room(&stk, 1, now);
		size_t n = record_encode_stack(at, EXP_BLOCK_BYTES - stk.used, &es);
		if (!n) {
			wfile_begin(&stk, 1, now);
			at = stk.block + stk.used;
			n = record_encode_stack(at, EXP_BLOCK_BYTES - stk.used, &es);
		}
		wfile_commit(&stk, n, EXP_REC_STACK, at);
	}
	uint64_t written = 0, target = bulk;
	if (!target)
		for (int i = 0; i < nlines; i++)
			target += lines[i].count;
	for (int i = 0; written < target && nlines; i = (i + 1) % nlines) {
		struct sline *s = &lines[i];
		uint64_t reps = s->count ? s->count : 1; /* whole lines: one thread's block at a time */
		for (uint64_t r = 0; r < reps && written < target; r++, written++) {
			now += s->weight ? s->weight : 1000;
			struct exp_clock c = {.ts_ns = now,
					      .cpu = s->cpu < 0 ? (uint32_t)(written & 1) : (uint32_t)s->cpu,
					      .stack_id = record_stack_hash(s->pcs, s->n, s->flags),
					      .weight_ns = s->weight,
					      .user_ns = s->user,
					      .has_user = s->has_user,
					      .ctx = s->ctx};
			if (s->region_line >= 0 && s->region_line < nlines) {
				const struct sline *o = &lines[s->region_line];
				c.ctx.region = record_stack_hash(o->pcs, o->n, o->flags);
			}
			uint8_t *at = wfile_room(&prof, s->tid, now);
			size_t n = record_encode_clock(at, EXP_BLOCK_BYTES - prof.used, prof.prev_ns, &c);
			if (!n) {
				wfile_begin(&prof, s->tid, now);
				at = prof.block + prof.used;
				n = record_encode_clock(at, EXP_BLOCK_BYTES - prof.used, prof.prev_ns, &c);
			}
			prof.prev_ns = now;
			wfile_commit(&prof, n, record_clock_kind(&c), at);
		}
	}
	for (int t = 0; t < nthreads; t++) {
		if (thread_end_cpu[t] == UINT64_MAX)
			continue;
		struct exp_thread_end te = {.tid = thread_tids[t],
					    .end_ns = now + 1000,
					    .cpu_ns = thread_end_cpu[t],
					    .wait_ns = thread_end_wait[t],
					    .has_wait = thread_end_wait[t] != UINT64_MAX};
		uint8_t *at = wfile_room(&prof, thread_tids[t], now);
		wfile_commit(&prof, record_encode_thread_end(at, 64, &te), EXP_REC_THREAD_END, at);
	}
	if (nhlines) {
		/* the heap stacks (and slot names for some), then the heap calls */
		for (int i = 0; i < nhlines; i++) {
			struct hline *h = &hlines[i];
			if (h->stack < 0)
				continue;
			struct hstack *hs = &hstacks[h->stack];
			if (hs->use_slot == 2 || hs->use_slot == 3)
				continue; /* written */
			struct exp_stack es = {.id = hs->id, .nframes = h->n, .pcs = h->pcs};
			uint8_t *sat = wfile_room(&stk, 1, now);
			size_t n = record_encode_stack(sat, EXP_BLOCK_BYTES - stk.used, &es);
			wfile_commit(&stk, n, EXP_REC_STACK, sat);
			if (hs->use_slot) {
				struct exp_stack_slot sl = {.slot = hs->slot, .stack_id = hs->id};
				sat = wfile_room(&stk, 1, now);
				wfile_commit(&stk, record_encode_stack_slot(sat, 64, &sl), EXP_REC_STACK_SLOT,
					     sat);
			}
			hs->use_slot += 2;
		}
		static struct wfile hp;
		struct heapstream_state hst;
		wfile_open(&hp, out, EXP_FILE_NAME_HEAP, EXP_FILE_HEAP);
		uint64_t t = start_ns;
		uint64_t count = heap_bulk ? heap_bulk : (uint64_t)nhlines;
		for (uint64_t k = 0, j = 0; k < count; k++) {
			struct hline *h = &hlines[k % (uint64_t)nhlines];
			struct exp_heap eh = {.tid = h->tid,
					      .op = h->op,
					      .size = h->size,
					      .addr = h->addr,
					      .old_addr = h->old_addr};
			if (heap_bulk) {
				eh.tid = hlines[0].tid; /* one thread: full blocks */
				eh.op = EXP_HEAP_MALLOC;
				eh.size = 16 + (k % 64) * 16;
				eh.addr = 0x10000000ull + 64 * k;
				eh.old_addr = 0;
			}
			int hs = h->stack;
			if (heap_bulk && hs < 0)
				hs = 0;
			if (hs >= 0 && nhstacks && (eh.op != EXP_HEAP_FREE && eh.op != EXP_HEAP_MUNMAP)) {
				if (hstacks[hs].use_slot & 1) {
					eh.stack_kind = EXP_STACKREF_SLOT0;
					eh.stack_slot = hstacks[hs].slot;
				} else {
					eh.stack_kind = EXP_STACKREF_ID;
					eh.stack_id = hstacks[hs].id;
				}
			}
			for (int pass = 0; pass < 2; pass++) {
				if (pass == 1) {
					/* bulk: free the block of three allocations ago, unless it leaks */
					if (!heap_bulk || k < 3 || (k - 3) % 10 == 9)
						break;
					eh = (struct exp_heap){.tid = hlines[0].tid,
							       .op = EXP_HEAP_FREE,
							       .addr = 0x10000000ull + 64 * (k - 3)};
				}
				t += heap_bulk ? 1000 : 1000000;
				eh.seq = ++j;
				heap_put(&hp, &hst, &eh, t);
			}
		}
		wfile_flush(&hp);
		fclose(hp.f);
		if (t > now)
			now = t;
		if (damage && strcmp(damage, "garbage-heap") == 0) {
			char hpth[4200];
			snprintf(hpth, sizeof hpth, "%s/%s", out, EXP_FILE_NAME_HEAP);
			int fd = open(hpth, O_WRONLY);
			/* the first event of the first block: a time mark with a seq field, then
			 * a varint that never ends */
			uint8_t junk[8] = {
				EXP_HEAP_TIME | 1u << EXP_HEAP_OP_BITS, 0xff, 0xff, 0xff, 0, 0, 0, 0};
			if (fd < 0 || pwrite(fd, junk, 4, EXP_BLOCK_BYTES + EXP_BLOCK_HEADER_BYTES + 0) != 4)
				die("cannot damage", hpth);
			close(fd);
		}
	}
	if (nylines) {
		static struct wfile sy;
		wfile_open(&sy, out, EXP_FILE_NAME_SYNC, EXP_FILE_SYNC);
		uint64_t t = start_ns;
		for (int i = 0; i < nylines; i++) {
			struct yline *y = &ylines[i];
			uint8_t *at;
			if (y->kind == Y_COUNT) {
				struct exp_sync_count c = {y->object, y->wait_ns, y->func};
				at = wfile_room(&sy, y->tid, t);
				wfile_commit(&sy, record_encode_sync_count(at, EXP_BLOCK_BYTES - sy.used, &c),
					     EXP_REC_SYNC_COUNT, at);
				continue;
			}
			struct exp_stack es = {.nframes = y->n, .pcs = y->pcs};
			es.id = record_stack_hash(y->pcs, y->n, 0);
			at = wfile_room(&stk, 1, now);
			wfile_commit(&stk, record_encode_stack(at, EXP_BLOCK_BYTES - stk.used, &es),
				     EXP_REC_STACK, at);
			t += 1000000;
			at = wfile_room(&sy, y->tid, t);
			if (y->kind == Y_ACQ) {
				struct exp_sync_acq a = {
					.ts_ns = t, .func = y->func, .object = y->object, .stack_id = es.id};
				wfile_commit(
					&sy,
					record_encode_sync_acq(at, EXP_BLOCK_BYTES - sy.used, sy.prev_ns, &a),
					EXP_REC_SYNC_ACQ, at);
				sy.prev_ns = t;
				continue;
			}
			struct exp_sync r = {.ts_ns = t,
					     .func = y->func,
					     .wait_ns = y->wait_ns,
					     .object = y->object,
					     .stack_id = es.id};
			wfile_commit(&sy, record_encode_sync(at, EXP_BLOCK_BYTES - sy.used, sy.prev_ns, &r),
				     EXP_REC_SYNC, at);
			sy.prev_ns = t;
			t += y->wait_ns;
		}
		wfile_flush(&sy);
		fclose(sy.f);
		if (t > now)
			now = t;
	}
	if (niolines) {
		static struct wfile io;
		wfile_open(&io, out, EXP_FILE_NAME_IO, EXP_FILE_IO);
		uint64_t t = start_ns;
		for (int i = 0; i < niolines; i++) {
			struct ioline *l = &iolines[i];
			uint8_t *at;
			if (l->file) {
				l->f.name = l->name;
				l->f.name_bytes = (uint32_t)strlen(l->name);
				/* by the thread of the next call (one block per thread switch) */
				for (int k = i + 1; k < niolines; k++)
					if (!iolines[k].file) {
						l->tid = iolines[k].tid;
						break;
					}
				at = wfile_room(&io, l->tid, t);
				wfile_commit(&io, record_encode_io_file(at, EXP_BLOCK_BYTES - io.used, &l->f),
					     EXP_REC_IO_FILE, at);
				continue;
			}
			struct exp_stack es = {.nframes = l->n, .pcs = l->pcs};
			es.id = record_stack_hash(l->pcs, l->n, 0);
			at = wfile_room(&stk, 1, now);
			wfile_commit(&stk, record_encode_stack(at, EXP_BLOCK_BYTES - stk.used, &es),
				     EXP_REC_STACK, at);
			t += 1000000;
			l->io.ts_ns = t;
			l->io.stack_id = es.id;
			at = wfile_room(&io, l->tid, t);
			wfile_commit(&io, record_encode_io(at, EXP_BLOCK_BYTES - io.used, io.prev_ns, &l->io),
				     EXP_REC_IO, at);
			io.prev_ns = t;
			t += l->io.dur_ns;
		}
		wfile_flush(&io);
		fclose(io.f);
		if (t > now)
			now = t;
	}
	if (nhwclines) {
		static struct wfile hw;
		wfile_open(&hw, out, EXP_FILE_NAME_HWC, EXP_FILE_HWC);
		uint64_t t = start_ns;
		for (int i = 0; i < nhwclines; i++) {
			struct hwcline *l = &hwclines[i];
			struct exp_stack es = {.nframes = l->n, .pcs = l->pcs};
			es.id = record_stack_hash(l->pcs, l->n, 0);
			uint8_t *at = wfile_room(&stk, 1, now);
			wfile_commit(&stk, record_encode_stack(at, EXP_BLOCK_BYTES - stk.used, &es),
				     EXP_REC_STACK, at);
			t += 1000000;
			l->h.ts_ns = t;
			l->h.stack_id = es.id;
			at = wfile_room(&hw, l->tid, t);
			wfile_commit(&hw, record_encode_hwc(at, EXP_BLOCK_BYTES - hw.used, hw.prev_ns, &l->h),
				     EXP_REC_HWC, at);
			hw.prev_ns = t;
		}
		wfile_flush(&hw);
		fclose(hw.f);
		if (t > now)
			now = t;
	}
	struct exp_sample sm0 = {.ts_ns = start_ns + 500, .number = 0};
	struct exp_sample sm1 = {.ts_ns = now + 2000,
				 .number = 1,
				 .utime_ns = now - start_ns,
				 .minflt = 100,
				 .nvcsw = 3,
				 .nivcsw = 4,
				 .maxrss_kb = 2048};
	uint8_t *at = wfile_room(&ovw, 1, start_ns);
	wfile_commit(&ovw, record_encode_sample(at, 200, &sm0), EXP_REC_SAMPLE, at);
	for (int i = 0; i < npoints; i++) {
		struct exp_sample pt = {.ts_ns = start_ns + points[i],
					.number = (uint64_t)i + 1,
					.reason = EXP_SAMPLE_PERIODIC};
		at = wfile_room(&ovw, 1, start_ns);
		wfile_commit(&ovw, record_encode_sample_point(at, 200, &pt), EXP_REC_SAMPLE_POINT, at);
	}
	sm1.number = (uint64_t)npoints + 1;
	at = wfile_room(&ovw, 1, start_ns);
	wfile_commit(&ovw, record_encode_sample(at, 200, &sm1), EXP_REC_SAMPLE, at);
	wfile_flush(&prof);
	wfile_flush(&stk);
	wfile_flush(&ovw);
	fclose(prof.f);
	fclose(stk.f);
	fclose(ovw.f);

	/* log.xml and map.xml */
	char p[4200];
	snprintf(p, sizeof p, "%s/%s", out, EXP_FILE_NAME_LOG);
	FILE *f = fopen(p, "w");
	if (!f)
		die("cannot create", p);
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<experiment version=\"1.0\">\n"
		"  <collector version=\"%s\"/>\n"
		"  <target path=\"/synthetic/prog\"><arg>prog</arg><arg>1</arg></target>\n"
		"  <host name=\"synth\" os=\"Linux\" release=\"6.1.0\" arch=\"x86_64\" cpus=\"2\" pagesize=\"4096\" "
		"pages=\"1000\" clock_mhz=\"2000\"/>\n"
		"  <process cwd=\"/synthetic\" wordsize=\"64\"/>\n"
		"  <params clock=\"on\" clock_interval_us=\"10007\" duration=\"\" depth_limit=\"4096\" "
		"descriptor=\"p=10007;d=4096\"/>\n%s%s"
		"  <start tstamp_ns=\"%llu\" realtime_ns=\"1795313775000000000\"/>\n"
		"  <collector_start pid=\"4242\" ppid=\"4241\" tstamp_ns=\"%llu\" mechanism=\"timer_create\" "
		"clock_interval_us=\"10007\" effective_interval_us=\"10007\"%s/>\n"
		"  <collector_end tstamp_ns=\"%llu\" samples=\"%llu\" dropped=\"0\"/>\n",
		PA_VERSION, comments, hwc_xml, (unsigned long long)start_ns,
		(unsigned long long)start_ns + 100, expiry_xml, (unsigned long long)now + 1500,
		(unsigned long long)written);
	if (exit_signal)
		snprintf(tail_xml, sizeof tail_xml,
			 "  <exit tstamp_ns=\"%llu\" signal=\"%d\" signame=\"SIG%d\" core=\"0\"/>\n",
			 (unsigned long long)now + 3000, exit_signal, exit_signal);
	else
		snprintf(tail_xml, sizeof tail_xml, "  <exit tstamp_ns=\"%llu\" status=\"%d\"/>\n",
			 (unsigned long long)now + 3000, exit_status);
	if (!damage || strcmp(damage, "torn-log") != 0)
		fprintf(f,
			"%s  <rusage utime_ns=\"%llu\" stime_ns=\"%llu\" maxrss_kb=\"2048\" minflt=\"100\" majflt=\"1\" "
			"inblock=\"0\" oublock=\"8\" nvcsw=\"3\" nivcsw=\"4\"/>\n"
			"  <end tstamp_ns=\"%llu\"/>\n</experiment>\n",
			tail_xml, ru_given ? ru_utime : (unsigned long long)(now - start_ns),
			ru_given ? ru_stime : 0ull, (unsigned long long)now + 4000);
	else
		fprintf(f, "  <exit tstamp_ns=\"1\" sta");
	fclose(f);
	snprintf(p, sizeof p, "%s/%s", out, EXP_FILE_NAME_MAP);
	f = fopen(p, "w");
	if (!f)
		die("cannot create", p);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.0\">\n");
	for (int k = 0; k < nobjs; k++)
		fprintf(f,
			"  <load id=\"%d\" tstamp_ns=\"%llu\" kind=\"%s\" path=\"%s\" base=\"0x%llx\">\n"
			"    <segment vaddr=\"0x%llx\" memsz=\"268435456\" foffset=\"0x0\" prot=\"r-x\"/>\n  </load>\n",
			k + 1, (unsigned long long)start_ns, k ? "lib" : "exe", objs[k].path,
			(unsigned long long)objs[k].base, (unsigned long long)objs[k].base);
	fprintf(f, "</map>\n");
	fclose(f);

	if (damage) {
		snprintf(p, sizeof p, "%s/%s", out, EXP_FILE_NAME_PROFILE);
		struct stat st;
		if (stat(p, &st) < 0)
			die("no profile in", out);
		if (strcmp(damage, "truncate-profile") == 0) {
			if (truncate(p, st.st_size - EXP_BLOCK_BYTES / 2) < 0)
				die("truncate failed:", p);
		} else if (strcmp(damage, "bad-magic") == 0 || strcmp(damage, "bad-header") == 0) {
			int fd = open(p, O_WRONLY);
			off_t off = damage[4] == 'm' ? EXP_BLOCK_BYTES : 0;
			if (fd < 0 || pwrite(fd, "XXXX", 4, off) != 4)
				die("cannot damage", p);
			close(fd);
		} else if (strcmp(damage, "garbage-stacks") == 0) {
			snprintf(p, sizeof p, "%s/%s", out, EXP_FILE_NAME_STACKS);
			int fd = open(p, O_WRONLY);
			uint8_t junk[64];
			for (int i = 0; i < 64; i++)
				junk[i] = (uint8_t)(i * 37 + 11);
			junk[0] = EXP_REC_STACK;
			if (fd < 0 ||
			    pwrite(fd, junk, sizeof junk, EXP_BLOCK_BYTES + EXP_BLOCK_HEADER_BYTES) != 64)
				die("cannot damage", p);
			close(fd);
		} else if (strcmp(damage, "torn-log") != 0 && strcmp(damage, "garbage-heap") != 0) {
			die("unknown damage kind", damage);
		}
	}
	for (int k = 0; k < nobjs; k++)
		symtab_free(objs[k].st);
	return 0;
}
