/*
 * expdump - print every record of experiment data files, one line each, then
 * a damage summary per file.  A test tool: output is stable and greppable.
 *
 *   expdump FILE...        profile / stacks / overview / heaptrace files
 *   expdump DIR.er         the data files of an experiment
 *
 * Lines:
 *   # file=PATH kind=profile pid=N start_ns=N blocks=N
 *   clock tid=N ts=N cpu=N stack=0xID weight=N [user=N (format 1.10)]
 *   stack id=0xID flags=N n=N pcs=0xPC,0xPC,...
 *   thread_start tid=N creator=N start=N pc=0xPC
 *   thread_end tid=N end=N cpu=N
 *   sample number=N ts=N utime=N stime=N minflt=N majflt=N nvcsw=N nivcsw=N maxrss_kb=N
 *   stack_slot slot=N id=0xID
 *   heap tid=N seq=N ts=N op=OP size=N addr=0xA [old=0xA] [slot=N | stack=0xID]
 *   heap_block tid=N bytes=N              after a heaptrace block's events
 *   bad_record kind=N
 *   bad_heap_event offset=N                the rest of that heaptrace block is skipped
 *   damage file=PATH bad_blocks=N torn_bytes=N bad_records=N
 * Exit status: 0, 1 if a file cannot be opened or has a bad header (message
 * on stderr names the file), 2 on usage errors.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/zdata.h"
#include "experiment/datafile.h"
#include "experiment/format.h"
#include "experiment/heapstream.h"
#include "experiment/record.h"

struct dump {
	uint64_t running_ns;
	uint64_t *pcs;
	struct datafile *df;
};

static int on_record(void *ctx, uint32_t tid, uint64_t base_ns, int block_start, const struct exp_record *rec)
{
	struct dump *d = ctx;
	if (block_start)
		d->running_ns = base_ns;
	int r = -EBADMSG;
	switch (rec->kind) {
	case EXP_REC_CLOCK:
	case EXP_REC_CLOCK_CTX: {
		struct exp_clock c;
		if ((r = record_decode_clock(rec, d->running_ns, tid, &c)) == 0) {
			d->running_ns = c.ts_ns;
			printf("clock tid=%" PRIu32 " ts=%" PRIu64 " cpu=%" PRIu32 " stack=0x%" PRIx64
			       " weight=%" PRIu64,
			       c.tid, c.ts_ns, c.cpu, c.stack_id, c.weight_ns);
			if (c.has_user)
				printf(" user=%" PRIu64, c.user_ns);
			if (c.ctx.runtime)
				printf(" runtime=%" PRIu32 " state=%" PRIu32 " flags=0x%" PRIx32
				       " region=0x%" PRIx64 " aux=0x%" PRIx64,
				       c.ctx.runtime, c.ctx.state, c.ctx.flags, c.ctx.region, c.ctx.aux);
			printf("\n");
		}
		break;
	}
	case EXP_REC_THREAD_START: {
		struct exp_thread_start t;
		if ((r = record_decode_thread_start(rec, &t)) == 0)
			printf("thread_start tid=%" PRIu32 " creator=%" PRIu32 " start=%" PRIu64
			       " pc=0x%" PRIx64 "\n",
			       t.tid, t.creator_tid, t.start_ns, t.start_pc);
		break;
	}
	case EXP_REC_THREAD_END: {
		struct exp_thread_end t;
		if ((r = record_decode_thread_end(rec, &t)) == 0)
			printf("thread_end tid=%" PRIu32 " end=%" PRIu64 " cpu=%" PRIu64 "\n", t.tid,
			       t.end_ns, t.cpu_ns);
		break;
	}
	case EXP_REC_STACK: {
		struct exp_stack s;
		if ((r = record_decode_stack(rec, d->pcs, EXP_MAX_FRAMES, &s)) == 0) {
			printf("stack id=0x%" PRIx64 " flags=%" PRIu32 " n=%" PRIu32 " pcs=", s.id, s.flags,
			       s.nframes);
			for (uint32_t i = 0; i < s.nframes; i++)
				printf("%s0x%" PRIx64, i ? "," : "", s.pcs[i]);
			putchar('\n');
		}
		break;
	}
	case EXP_REC_SAMPLE:
	case EXP_REC_SAMPLE_POINT: {
		struct exp_sample s;
		if ((r = record_decode_sample(rec, &s)) == 0)
			printf("sample number=%" PRIu64 " ts=%" PRIu64 " utime=%" PRIu64 " stime=%" PRIu64
			       " minflt=%" PRIu64 " majflt=%" PRIu64 " nvcsw=%" PRIu64 " nivcsw=%" PRIu64
			       " maxrss_kb=%" PRIu64 " reason=%" PRIu32 " label=%.*s\n",
			       s.number, s.ts_ns, s.utime_ns, s.stime_ns, s.minflt, s.majflt, s.nvcsw,
			       s.nivcsw, s.maxrss_kb, s.reason, (int)s.label_bytes, s.label ? s.label : "");
		break;
	}
	case EXP_REC_SYNC: {
		struct exp_sync y;
		if ((r = record_decode_sync(rec, d->running_ns, tid, &y)) == 0) {
			d->running_ns = y.ts_ns;
			printf("sync tid=%" PRIu32 " ts=%" PRIu64 " wait=%" PRIu64
			       " func=%s object=0x%" PRIx64 " stack=0x%" PRIx64 "\n",
			       y.tid, y.ts_ns, y.wait_ns, record_sync_func_name(y.func), y.object,
			       y.stack_id);
		}
		break;
	}
	case EXP_REC_IO: {
		struct exp_io e;
		if ((r = record_decode_io(rec, d->running_ns, tid, &e)) == 0) {
			d->running_ns = e.ts_ns;
			printf("io tid=%" PRIu32 " ts=%" PRIu64 " dur=%" PRIu64 " func=%s fd=%" PRId32
			       " vfd=%" PRIu32 " bytes=%" PRIu64 " errno=%" PRIu32 " stack=0x%" PRIx64 "\n",
			       e.tid, e.ts_ns, e.dur_ns, record_io_func_name(e.func), e.fd, e.vfd, e.bytes,
			       e.err, e.stack_id);
		}
		break;
	}
	case EXP_REC_IO_FILE: {
		struct exp_io_file f;
		if ((r = record_decode_io_file(rec, &f)) == 0)
			printf("io_file vfd=%" PRIu32 " fd=%" PRId32 " origin=%" PRIu32 " how=%" PRIu32
			       " name=%.*s\n",
			       f.vfd, f.fd, f.origin, f.how, (int)f.name_bytes, f.name);
		break;
	}
	case EXP_REC_HWC: {
		struct exp_hwc h;
		if ((r = record_decode_hwc(rec, d->running_ns, tid, &h)) == 0) {
			d->running_ns = h.ts_ns;
			printf("hwc tid=%" PRIu32 " ts=%" PRIu64 " counter=%" PRIu32 " overflows=%" PRIu64
			       " stack=0x%" PRIx64 "\n",
			       h.tid, h.ts_ns, h.counter, h.overflows, h.stack_id);
		}
		break;
	}
	case EXP_REC_SYNC_ACQ: {
		struct exp_sync_acq a;
		if ((r = record_decode_sync_acq(rec, d->running_ns, tid, &a)) == 0) {
			d->running_ns = a.ts_ns;
			printf("sync_acq tid=%" PRIu32 " ts=%" PRIu64 " func=%s object=0x%" PRIx64
			       " stack=0x%" PRIx64 "\n",
			       a.tid, a.ts_ns, record_sync_func_name(a.func), a.object, a.stack_id);
		}
		break;
	}
	case EXP_REC_SYNC_COUNT: {
		struct exp_sync_count c;
		if ((r = record_decode_sync_count(rec, &c)) == 0)
			printf("sync_count object=0x%" PRIx64 " acquisitions=%" PRIu64
			       " sample_every=%" PRIu64 "\n",
			       c.object, c.acquisitions, c.sample_every);
		break;
	}
	case EXP_REC_STACK_SLOT: {
		struct exp_stack_slot sl;
		if ((r = record_decode_stack_slot(rec, &sl)) == 0)
			printf("stack_slot slot=%" PRIu32 " id=0x%" PRIx64 "\n", sl.slot, sl.stack_id);
		break;
	}
	default: break;
	}
	if (r < 0) {
		printf("bad_record kind=%d\n", (int)rec->kind);
		datafile_damage(d->df)->bad_records++;
	}
	return 0;
}

/* heaptrace: a block's event stream */
static int on_heap_block(void *ctx, uint32_t tid, uint64_t base_ns, const uint8_t *events, size_t bytes)
{
	static const char *const ops[] = {"malloc",   "calloc", "realloc", "free",
					  "memalign", "mmap",   "munmap"};
	struct dump *d = ctx;
	struct heapstream_state st;
	heapstream_begin(&st, base_ns, datafile_info(d->df)->version_minor);
	const uint8_t *pos = events, *end = events + bytes;
	struct exp_heap h;
	int r;
	while ((r = heapstream_next(&pos, end, &st, tid, &h)) > 0) {
		printf("heap tid=%" PRIu32 " seq=%" PRIu64 " ts=%" PRIu64 " op=%s size=%" PRIu64
		       " addr=0x%" PRIx64,
		       h.tid, h.seq, h.ts_ns, ops[h.op], h.size, h.addr);
		if (h.op == EXP_HEAP_REALLOC)
			printf(" old=0x%" PRIx64, h.old_addr);
		if (h.stack_kind == EXP_STACKREF_SLOT0)
			printf(" slot=%" PRIu32, h.stack_slot);
		else if (h.stack_kind == EXP_STACKREF_ID)
			printf(" stack=0x%" PRIx64, h.stack_id);
		printf("\n");
	}
	printf("heap_block tid=%" PRIu32 " bytes=%zu\n", tid, bytes);
	if (r < 0) {
		printf("bad_heap_event offset=%td\n", pos - events);
		datafile_damage(d->df)->bad_records++;
	}
	return 0;
}

static const char *kind_name(enum exp_file_kind k)
{
	switch (k) {
	case EXP_FILE_PROFILE: return "profile";
	case EXP_FILE_STACKS: return "stacks";
	case EXP_FILE_OVERVIEW: return "overview";
	case EXP_FILE_HEAP: return "heaptrace";
	case EXP_FILE_SYNC: return "synctrace";
	case EXP_FILE_IO: return "iotrace";
	case EXP_FILE_HWC: return "hwctrace";
	}
	return "unknown";
}

static int dump_file(const char *path, uint64_t *pcs)
{
	struct datafile *df;
	void *zbuf;
	char why[PATH_MAX + 256];
	int r = zdata_open(NULL, path, 0, &df, &zbuf, why, sizeof why);
	if (r < 0) {
		if (r == -ENOENT || r == -ENOMEM)
			fprintf(stderr, "expdump: %s: %s\n", path, strerror(-r));
		else
			fprintf(stderr, "expdump: %s\n", why);
		return 1;
	}
	const struct datafile_info *in = datafile_info(df);
	printf("# file=%s kind=%s pid=%" PRIu32 " start_ns=%" PRIu64 " blocks=%" PRIu64 "\n", path,
	       kind_name(in->kind), in->pid, in->start_ns, in->block_count);
	struct dump d = {.pcs = pcs, .df = df};
	if (in->kind == EXP_FILE_HEAP)
		datafile_walk_stream(df, on_heap_block, &d);
	else
		datafile_walk(df, on_record, &d);
	const struct datafile_damage *dm = datafile_damage(df);
	printf("damage file=%s bad_blocks=%" PRIu64 " torn_bytes=%" PRIu64 " bad_records=%" PRIu64 "\n", path,
	       dm->bad_blocks, dm->torn_bytes, dm->bad_records);
	datafile_close(df);
	free(zbuf);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
			"usage: expdump FILE... | expdump DIR.er (NAME.zst is read when NAME is gone)\n");
		return 2;
	}
	uint64_t *pcs = malloc(sizeof(uint64_t) * EXP_MAX_FRAMES);
	if (!pcs) {
		fprintf(stderr, "expdump: out of memory\n");
		return 1;
	}
	int status = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			static const char *const names[] = {EXP_FILE_NAME_PROFILE, EXP_FILE_NAME_STACKS,
							    EXP_FILE_NAME_OVERVIEW, EXP_FILE_NAME_HEAP,
							    EXP_FILE_NAME_SYNC};
			for (int k = 0; k < 5; k++) {
				char path[4096], zpath[4200];
				snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
				snprintf(zpath, sizeof zpath, "%s.zst", path);
				if (k >= 3 && stat(path, &st) != 0 && stat(zpath, &st) != 0)
					continue; /* no heap or sync trace in this experiment */
				status |= dump_file(path, pcs);
			}
		} else {
			status |= dump_file(argv[i], pcs);
		}
	}
	free(pcs);
	return status;
}
