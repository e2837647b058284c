/*
 * info_mkexp - write a small synthetic experiment for the er_print
 * information-report tests (tests/component/info_*.sh), without a collector.
 *
 *   info_mkexp DIR.er finished|unfinished|empty|signal|signals
 *
 * All variants: start tstamp_ns 1 s, realtime 1795313775 s (Sun Nov 22
 * 02:16:15 2026 UTC), target "/opt/t/prog" with argv "./prog -n 3",
 * pid 4242 ppid 4241, comment/notes "run 7: baseline", interval 10007 us.
 *
 * finished   threads 1 (tid 4242, main, +0.001..+2.000 s, cpu 0.040028 s,
 *            3 samples) and 2 (tid 4243, start_pc 0x401136, +0.010..+1.000 s,
 *            cpu 0.020014 s, 2 samples), samples of 10007000 ns; effective
 *            interval 10000 us; one collector warning; collector_end samples=5
 *            dropped=1; exit status 3; rusage utime 0.055 s stime 0.005 s
 *            minflt 123 majflt 4 inblock 8 oublock 16 nvcsw 7 nivcsw 3; end at
 *            +2.100 s; overview samples (nsignals 2, nswap 1, msgsnd 5, msgrcv 6).
 * unfinished the same data without any thread end, with one collector error,
 *            the log cut after the error (no collector_end, exit, rusage, end
 *            or </experiment>), and 100 stray bytes after the profile's last
 *            block (a torn block); the last overview sample has utime 0.030 s.
 * empty      a finished log with no data files: no threads, no samples, no
 *            rusage, no notes file (the comment is in log.xml only).
 * signal     finished, but the target was killed by SIGSEGV with a core dump.
 * signals    finished, and collector_end counts signals=351 (sampling signals
 *            handled, which the overview's nsignals 2 does not know).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "experiment/format.h"
#include "experiment/record.h"

#define T0 1000000000ull /* <start tstamp_ns> */
#define MS 1000000ull
#define W 10007000ull /* sample weight */

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A data file being built: whole blocks in memory. */
struct dfile {
	uint8_t *data;
	size_t nblocks;
	size_t pos; /* write position in the current block */
	uint64_t prev_ns;
};

static void die(const char *what)
{
	fprintf(stderr, "info_mkexp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void df_init(struct dfile *f, enum exp_file_kind kind)
{
	f->data = calloc(1, EXP_BLOCK_BYTES);
	if (!f->data)
		die("calloc");
	f->nblocks = 1;
	memcpy(f->data + EXP_FH_MAGIC, EXP_FILE_MAGIC, EXP_FILE_MAGIC_BYTES);
	put_u16(f->data + EXP_FH_VERSION_MAJOR, EXP_FORMAT_VERSION_MAJOR);
	put_u16(f->data + EXP_FH_VERSION_MINOR, EXP_FORMAT_VERSION_MINOR);
	put_u32(f->data + EXP_FH_FILE_KIND, kind);
	put_u32(f->data + EXP_FH_BLOCK_BYTES, EXP_BLOCK_BYTES);
	put_u32(f->data + EXP_FH_PID, 4242);
	put_u64(f->data + EXP_FH_START_NS, T0);
}

/* Start a block owned by tid, events timed from base_ns. */
static void df_block(struct dfile *f, uint32_t tid, uint32_t seq, uint64_t base_ns)
{
	uint8_t *d = realloc(f->data, (f->nblocks + 1) * EXP_BLOCK_BYTES);
	if (!d)
		die("realloc");
	f->data = d;
	uint8_t *b = d + f->nblocks * EXP_BLOCK_BYTES;
	memset(b, 0, EXP_BLOCK_BYTES);
	put_u32(b + EXP_BH_TID, tid);
	put_u32(b + EXP_BH_SEQ, seq);
	put_u64(b + EXP_BH_BASE_NS, base_ns);
	put_u32(b + EXP_BH_MAGIC, EXP_BLOCK_MAGIC);
	f->nblocks++;
	f->pos = EXP_BLOCK_HEADER_BYTES;
	f->prev_ns = base_ns;
}

static uint8_t *df_cur(struct dfile *f)
{
	return f->data + (f->nblocks - 1) * EXP_BLOCK_BYTES + f->pos;
}

static size_t df_room(const struct dfile *f)
{
	return EXP_BLOCK_BYTES - f->pos;
}

static void df_publish(struct dfile *f, size_t n, enum exp_record_kind kind)
{
	if (n == 0) {
		fprintf(stderr, "info_mkexp: record does not fit\n");
		exit(1);
	}
	record_publish(df_cur(f), kind);
	f->pos += n;
}

static void df_write(struct dfile *f, const char *dir, const char *name, size_t torn_bytes)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *o = fopen(path, "wb");
	if (!o)
		die(path);
	if (fwrite(f->data, EXP_BLOCK_BYTES, f->nblocks, o) != f->nblocks)
		die(path);
	for (size_t i = 0; i < torn_bytes; i++)
		fputc(0x5a, o);
	if (fclose(o) != 0)
		die(path);
	free(f->data);
}

static void clock_sample(struct dfile *f, uint32_t tid, uint64_t ts, uint64_t stack)
{
	struct exp_clock c = {.ts_ns = ts, .tid = tid, .cpu = 1, .stack_id = stack, .weight_ns = W};
	df_publish(f, record_encode_clock(df_cur(f), df_room(f), f->prev_ns, &c), EXP_REC_CLOCK);
	f->prev_ns = ts;
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *o = fopen(path, "w");
	if (!o || fputs(text, o) < 0 || fclose(o) != 0)
		die(path);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: info_mkexp DIR.er finished|unfinished|empty|signal|signals\n");
		return 2;
	}
	const char *dir = argv[1], *v = argv[2];
	int unfinished = strcmp(v, "unfinished") == 0, empty = strcmp(v, "empty") == 0;
	int killed = strcmp(v, "signal") == 0, signals = strcmp(v, "signals") == 0;
	if (!unfinished && !empty && !killed && !signals && strcmp(v, "finished") != 0) {
		fprintf(stderr, "info_mkexp: unknown variant %s\n", v);
		return 2;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);

	/* log.xml */
	char log[8192];
	int n = snprintf(
		log, sizeof log,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<experiment version=\"1.0\">\n"
		"  <collector version=\"0.1.0\"/>\n"
		"  <target path=\"/opt/t/prog\"><arg>./prog</arg><arg>-n</arg><arg>3</arg></target>\n"
		"  <host name=\"vm\" os=\"Linux\" release=\"6.1.0-18-amd64\" arch=\"x86_64\" cpus=\"2\"\n"
		"        pagesize=\"4096\" pages=\"6170914\" clock_mhz=\"2445\"/>\n"
		"  <process cwd=\"/home/u\" wordsize=\"64\"/>\n"
		"  <params clock=\"on\" clock_interval_us=\"10007\" duration=\"\" depth_limit=\"4096\"\n"
		"          descriptor=\"p=10007;d=4096\"/>\n"
		"  <comment>run 7: baseline</comment>\n"
		"  <start tstamp_ns=\"%llu\" realtime_ns=\"1795313775000000000\"/>\n",
		T0);
	if (!empty)
		n += snprintf(log + n, sizeof log - (size_t)n,
			      "  <collector_start pid=\"4242\" ppid=\"4241\" tstamp_ns=\"%llu\" "
			      "mechanism=\"timer_create\" clock_interval_us=\"10007\" "
			      "effective_interval_us=\"%s\"/>\n",
			      T0 + MS, unfinished ? "10007" : "10000");
	if (unfinished) {
		n += snprintf(
			log + n, sizeof log - (size_t)n,
			"  <error id=\"buffer\" tstamp_ns=\"%llu\">out of buffer space in thread 4243</error>\n",
			T0 + 500 * MS);
	} else {
		if (!empty)
			n += snprintf(
				log + n, sizeof log - (size_t)n,
				"  <warning id=\"timer_rate\" tstamp_ns=\"%llu\">Collection interval timer "
				"period was changed (10007 -&gt; 10000)</warning>\n"
				"  <collector_end tstamp_ns=\"%llu\" samples=\"5\" dropped=\"1\"%s/>\n",
				T0 + 2 * MS, T0 + 2000 * MS, signals ? " signals=\"351\"" : "");
		if (killed)
			n += snprintf(
				log + n, sizeof log - (size_t)n,
				"  <exit tstamp_ns=\"%llu\" signal=\"11\" signame=\"SIGSEGV\" core=\"1\"/>\n",
				T0 + 2099 * MS);
		else
			n += snprintf(log + n, sizeof log - (size_t)n,
				      "  <exit tstamp_ns=\"%llu\" status=\"%d\"/>\n", T0 + 2099 * MS,
				      empty ? 0 : 3);
		if (!empty)
			n += snprintf(
				log + n, sizeof log - (size_t)n,
				"  <rusage utime_ns=\"55000000\" stime_ns=\"5000000\" maxrss_kb=\"2048\" "
				"minflt=\"123\" majflt=\"4\" inblock=\"8\" oublock=\"16\" nvcsw=\"7\" "
				"nivcsw=\"3\"/>\n");
		n += snprintf(log + n, sizeof log - (size_t)n, "  <end tstamp_ns=\"%llu\"/>\n</experiment>\n",
			      T0 + 2100 * MS);
	}
	write_text(dir, EXP_FILE_NAME_LOG, log);
	write_text(
		dir, EXP_FILE_NAME_MAP,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.0\">\n"
		"  <load id=\"1\" tstamp_ns=\"1000000000\" kind=\"exe\" path=\"/opt/t/prog\" base=\"0x400000\">\n"
		"    <segment vaddr=\"0x401000\" memsz=\"4096\" foffset=\"0x1000\" prot=\"r-x\"/>\n"
		"  </load>\n</map>\n");
	if (empty)
		return 0;
	write_text(dir, EXP_FILE_NAME_NOTES, "run 7: baseline\n");

	/* stacks: main -> work, and a thread routine */
	uint64_t s1[] = {0x401200, 0x401180}, s2[] = {0x401140};
	uint64_t id1 = record_stack_hash(s1, 2, 0), id2 = record_stack_hash(s2, 1, 0);
	struct dfile st;
	df_init(&st, EXP_FILE_STACKS);
	df_block(&st, 4242, 0, T0);
	struct exp_stack k1 = {.id = id1, .nframes = 2, .pcs = s1}, k2 = {.id = id2, .nframes = 1, .pcs = s2};
	df_publish(&st, record_encode_stack(df_cur(&st), df_room(&st), &k1), EXP_REC_STACK);
	df_publish(&st, record_encode_stack(df_cur(&st), df_room(&st), &k2), EXP_REC_STACK);
	df_write(&st, dir, EXP_FILE_NAME_STACKS, 0);

	/* profile: one block per thread */
	struct dfile pf;
	df_init(&pf, EXP_FILE_PROFILE);
	df_block(&pf, 4242, 0, T0);
	struct exp_thread_start ts1 = {.tid = 4242, .start_ns = T0 + 1 * MS};
	df_publish(&pf, record_encode_thread_start(df_cur(&pf), df_room(&pf), &ts1), EXP_REC_THREAD_START);
	for (int i = 1; i <= 3; i++)
		clock_sample(&pf, 4242, T0 + (uint64_t)i * 100 * MS, id1);
	if (!unfinished) {
		struct exp_thread_end te = {.tid = 4242, .end_ns = T0 + 2000 * MS, .cpu_ns = 4 * W};
		df_publish(&pf, record_encode_thread_end(df_cur(&pf), df_room(&pf), &te), EXP_REC_THREAD_END);
	}
	df_block(&pf, 4243, 0, T0 + 10 * MS);
	struct exp_thread_start ts2 = {
		.tid = 4243, .creator_tid = 4242, .start_ns = T0 + 10 * MS, .start_pc = 0x401136};
	df_publish(&pf, record_encode_thread_start(df_cur(&pf), df_room(&pf), &ts2), EXP_REC_THREAD_START);
	clock_sample(&pf, 4243, T0 + 150 * MS, id2);
	clock_sample(&pf, 4243, T0 + 250 * MS, id2);
	if (!unfinished) {
		struct exp_thread_end te = {.tid = 4243, .end_ns = T0 + 1000 * MS, .cpu_ns = 2 * W};
		df_publish(&pf, record_encode_thread_end(df_cur(&pf), df_room(&pf), &te), EXP_REC_THREAD_END);
	}
	df_write(&pf, dir, EXP_FILE_NAME_PROFILE, unfinished ? 100 : 0);

	/* overview */
	struct dfile ov;
	df_init(&ov, EXP_FILE_OVERVIEW);
	df_block(&ov, 4242, 0, T0);
	struct exp_sample s0 = {.ts_ns = T0 + 1 * MS, .number = 0};
	struct exp_sample sN = {.ts_ns = T0 + 1000 * MS,
				.number = 1,
				.utime_ns = 30 * MS,
				.stime_ns = 2 * MS,
				.minflt = 100,
				.majflt = 3,
				.nswap = 1,
				.inblock = 5,
				.oublock = 9,
				.msgsnd = 5,
				.msgrcv = 6,
				.nsignals = 2,
				.nvcsw = 4,
				.nivcsw = 1,
				.maxrss_kb = 2000};
	df_publish(&ov, record_encode_sample(df_cur(&ov), df_room(&ov), &s0), EXP_REC_SAMPLE);
	df_publish(&ov, record_encode_sample(df_cur(&ov), df_room(&ov), &sN), EXP_REC_SAMPLE);
	df_write(&ov, dir, EXP_FILE_NAME_OVERVIEW, 0);
	return 0;
}
