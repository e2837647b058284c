/* Round trip of every record kind, and rejection of malformed payloads. */
#include "experiment/record.h"

#include <errno.h>
#include <string.h>

#include "tests/unit/check.h"

static void test_clock(void)
{
	uint8_t buf[64];
	struct exp_clock c = {
		.ts_ns = 1000123, .cpu = 1, .stack_id = 0x1122334455667788ull, .weight_ns = 10007000};
	size_t n = record_encode_clock(buf, sizeof buf, 1000000, &c);
	CHECK(n > 0 && n <= 32);
	CHECK(buf[0] == 0); /* kind not yet published */
	record_publish(buf, EXP_REC_CLOCK);
	const uint8_t *pos = buf;
	struct exp_record r;
	CHECK(record_next(&pos, buf + n, &r) == 1);
	CHECK(pos == buf + n);
	struct exp_clock d;
	CHECK(record_decode_clock(&r, 1000000, 42, &d) == 0);
	CHECK_EQ_U64(d.ts_ns, c.ts_ns);
	CHECK_EQ_U64(d.cpu, 1);
	CHECK_EQ_U64(d.tid, 42);
	CHECK_EQ_U64(d.stack_id, c.stack_id);
	CHECK_EQ_U64(d.weight_ns, c.weight_ns);
	CHECK(!d.has_user); /* before format 1.10: no user/system split */
	/* truncated payload */
	r.payload_bytes -= 1;
	CHECK(record_decode_clock(&r, 0, 1, &d) == -EBADMSG);
	/* no room */
	CHECK(record_encode_clock(buf, 5, 0, &c) == 0);
}

/* Format 1.10: the user part round trips; more than the weight, or a sixth figure, is malformed. */
static void test_clock_split(void)
{
	uint8_t buf[64];
	struct exp_clock c = {.ts_ns = 50,
			      .cpu = 3,
			      .stack_id = 7,
			      .weight_ns = 10000000,
			      .user_ns = 2500000,
			      .has_user = 1};
	size_t n = record_encode_clock(buf, sizeof buf, 0, &c);
	record_publish(buf, EXP_REC_CLOCK);
	const uint8_t *pos = buf;
	struct exp_record r;
	struct exp_clock d;
	CHECK(n > 0 && record_next(&pos, buf + n, &r) == 1 && record_decode_clock(&r, 0, 1, &d) == 0);
	CHECK(d.has_user);
	CHECK_EQ_U64(d.user_ns, 2500000);
	CHECK_EQ_U64(d.weight_ns, 10000000);
	/* the encoder never writes a user part above the weight */
	c.user_ns = c.weight_ns + 1;
	n = record_encode_clock(buf, sizeof buf, 0, &c);
	record_publish(buf, EXP_REC_CLOCK);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_clock(&r, 0, 1, &d) == 0);
	CHECK_EQ_U64(d.user_ns, d.weight_ns);
	/* a user part above the weight, hand-made: dt 0, cpu 0, id 7, weight 5, user 6 */
	uint8_t over[] = {0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 5, 6};
	struct exp_record ro = {.kind = EXP_REC_CLOCK, .payload = over, .payload_bytes = sizeof over};
	CHECK(record_decode_clock(&ro, 0, 1, &d) == -EBADMSG);
	over[11] = 5; /* all of it user: fine */
	CHECK(record_decode_clock(&ro, 0, 1, &d) == 0 && d.user_ns == 5);
	uint8_t extra[] = {0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 5, 1, 1};
	struct exp_record rx = {.kind = EXP_REC_CLOCK, .payload = extra, .payload_bytes = sizeof extra};
	CHECK(record_decode_clock(&rx, 0, 1, &d) == -EBADMSG);
}

/* A sample with a context is a CLOCK_CTX: the context round trips; one without is a CLOCK, unchanged. */
static void test_clock_ctx(void)
{
	uint8_t buf[96], plain[96];
	struct exp_clock c = {.ts_ns = 70,
			      .cpu = 2,
			      .stack_id = 9,
			      .weight_ns = 4000000,
			      .user_ns = 1000000,
			      .has_user = 1,
			      .ctx = {.runtime = EXP_RUNTIME_OPENMP,
				      .state = 5,
				      .flags = EXP_CTX_IN_MPI,
				      .region = 0x1234567890ull,
				      .aux = 77}};
	CHECK(record_clock_kind(&c) == EXP_REC_CLOCK_CTX);
	size_t n = record_encode_clock(buf, sizeof buf, 0, &c);
	record_publish(buf, record_clock_kind(&c));
	const uint8_t *pos = buf;
	struct exp_record r;
	struct exp_clock d;
	CHECK(n > 0 && record_next(&pos, buf + n, &r) == 1 && r.kind == EXP_REC_CLOCK_CTX);
	CHECK(record_decode_clock(&r, 0, 3, &d) == 0);
	CHECK_EQ_U64(d.ctx.runtime, EXP_RUNTIME_OPENMP);
	CHECK_EQ_U64(d.ctx.state, 5);
	CHECK_EQ_U64(d.ctx.flags, EXP_CTX_IN_MPI);
	CHECK_EQ_U64(d.ctx.region, 0x1234567890ull);
	CHECK_EQ_U64(d.ctx.aux, 77);
	CHECK(d.has_user && d.user_ns == 1000000 && d.weight_ns == 4000000 && d.stack_id == 9 &&
	      d.ts_ns == 70);
	/* cut anywhere: malformed, but just before the user part (3 bytes), which is optional */
	for (size_t k = 0; k < r.payload_bytes; k++) {
		struct exp_record cut = r;
		cut.payload_bytes = k;
		CHECK(record_decode_clock(&cut, 0, 3, &d) == (k + 3 == r.payload_bytes ? 0 : -EBADMSG));
	}
	/* runtime 0 is no context: a CLOCK_CTX saying so is malformed */
	uint8_t zero[] = {0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 5};
	struct exp_record rz = {.kind = EXP_REC_CLOCK_CTX, .payload = zero, .payload_bytes = sizeof zero};
	CHECK(record_decode_clock(&rz, 0, 1, &d) == -EBADMSG);
	/* without a context: a CLOCK of the same bytes as before contexts existed (and ctx decodes as none) */
	c.ctx = (struct exp_sample_ctx){0};
	CHECK(record_clock_kind(&c) == EXP_REC_CLOCK);
	size_t m = record_encode_clock(plain, sizeof plain, 0, &c);
	/* kind (not yet published), length 17, dt 70, cpu 2, u64 id 9, weight 4000000, user 1000000 */
	static const uint8_t want[] = {0, 17, 0x46, 2,    9,    0,    0,    0,    0,   0,
				       0, 0,  0x80, 0x92, 0xf4, 0x01, 0xc0, 0x84, 0x3d};
	CHECK(m == sizeof want && memcmp(plain, want, sizeof want) == 0);
	record_publish(plain, EXP_REC_CLOCK);
	pos = plain;
	CHECK(record_next(&pos, plain + m, &r) == 1 && record_decode_clock(&r, 0, 3, &d) == 0);
	CHECK(d.ctx.runtime == EXP_RUNTIME_NONE);
}

static void test_stack(void)
{
	uint64_t pcs[] = {0x7f0000001234, 0x555500001000, 0x555500000800, 0x7f0000fff000};
	struct exp_stack s = {.id = 99, .flags = EXP_STACK_TRUNCATED, .nframes = 4, .pcs = pcs};
	uint8_t buf[128];
	size_t n = record_encode_stack(buf, sizeof buf, &s);
	CHECK(n > 0);
	record_publish(buf, EXP_REC_STACK);
	const uint8_t *pos = buf;
	struct exp_record r;
	CHECK(record_next(&pos, buf + n, &r) == 1);
	uint64_t out[8];
	struct exp_stack d;
	CHECK(record_decode_stack(&r, out, 8, &d) == 0);
	CHECK_EQ_U64(d.id, 99);
	CHECK_EQ_U64(d.flags, EXP_STACK_TRUNCATED);
	CHECK_EQ_U64(d.nframes, 4);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64(out[i], pcs[i]);
	CHECK(record_decode_stack(&r, out, 2, &d) == -E2BIG);
	/* nothing is written past the record: a reader may be looking there */
	uint8_t big[256];
	memset(big, 0, sizeof big);
	size_t m = record_encode_stack(big, sizeof big, &s);
	CHECK(m == n);
	for (size_t i = m; i < sizeof big; i++)
		CHECK(big[i] == 0);
	CHECK(record_encode_stack(big, n - 1, &s) == 0); /* one byte short */
	CHECK(record_stack_hash(pcs, 4, 0) != record_stack_hash(pcs, 4, 1));
	CHECK(record_stack_hash(pcs, 4, 0) != record_stack_hash(pcs, 3, 0));
}

static void test_threads_samples(void)
{
	uint8_t buf[256];
	struct exp_thread_start ts = {.tid = 7, .creator_tid = 3, .start_ns = 555, .start_pc = 0x401000};
	size_t n = record_encode_thread_start(buf, sizeof buf, &ts);
	record_publish(buf, EXP_REC_THREAD_START);
	struct exp_thread_end te = {.tid = 7, .end_ns = 999, .cpu_ns = 444};
	size_t m = record_encode_thread_end(buf + n, sizeof buf - n, &te);
	record_publish(buf + n, EXP_REC_THREAD_END);
	struct exp_sample sm = {.ts_ns = 5, .number = 1, .utime_ns = 77, .nivcsw = 3, .maxrss_kb = 1024};
	size_t k = record_encode_sample(buf + n + m, sizeof buf - n - m, &sm);
	record_publish(buf + n + m, EXP_REC_SAMPLE);
	const uint8_t *pos = buf, *end = buf + sizeof buf;
	struct exp_record r;
	struct exp_thread_start dts;
	struct exp_thread_end dte;
	struct exp_sample dsm;
	CHECK(k > 0);
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_thread_start(&r, &dts) == 0);
	CHECK_EQ_U64(dts.tid, 7);
	CHECK_EQ_U64(dts.creator_tid, 3);
	CHECK_EQ_U64(dts.start_pc, 0x401000);
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_thread_end(&r, &dte) == 0);
	CHECK_EQ_U64(dte.cpu_ns, 444);
	CHECK(!dte.has_wait); /* before format 1.9: no run-queue wait */
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_sample(&r, &dsm) == 0);
	CHECK_EQ_U64(dsm.utime_ns, 77);
	CHECK_EQ_U64(dsm.nivcsw, 3);
	CHECK_EQ_U64(dsm.maxrss_kb, 1024);
	CHECK(record_next(&pos, end, &r) == 0); /* zero bytes follow: end of records */
	/* wrong kind for the decoder */
	pos = buf;
	record_next(&pos, end, &r);
	CHECK(record_decode_thread_end(&r, &dte) == -EBADMSG);
	/* format 1.9: the run-queue wait, decoded; a fifth figure is malformed */
	uint8_t w[64] = {0};
	struct exp_thread_end tw = {
		.tid = 9, .end_ns = 1000, .cpu_ns = 500, .wait_ns = 123456, .has_wait = 1};
	size_t wn = record_encode_thread_end(w, sizeof w, &tw);
	record_publish(w, EXP_REC_THREAD_END);
	pos = w;
	CHECK(wn > 0 && record_next(&pos, w + sizeof w, &r) == 1 && record_decode_thread_end(&r, &dte) == 0);
	CHECK(dte.has_wait);
	CHECK_EQ_U64(dte.wait_ns, 123456);
	CHECK_EQ_U64(dte.cpu_ns, 500);
	/* unknown kind */
	uint8_t bad[4] = {200, 1, 0, 0};
	pos = bad;
	CHECK(record_next(&pos, bad + 4, &r) == -EBADMSG);
	/* length past the end */
	uint8_t bad2[4] = {EXP_REC_CLOCK, 9, 0, 0};
	pos = bad2;
	CHECK(record_next(&pos, bad2 + 4, &r) == -EBADMSG);
}

/* SAMPLE_POINT (format 1.8): reason and label round trip; a label is cut, a bad reason refused. */
static void test_sample_point(void)
{
	uint8_t buf[512];
	char long_label[100];
	memset(long_label, 'x', sizeof long_label);
	struct exp_sample sm = {.ts_ns = 9,
				.number = 3,
				.stime_ns = 11,
				.reason = EXP_SAMPLE_API,
				.label = "after_b",
				.label_bytes = 7};
	size_t n = record_encode_sample_point(buf, sizeof buf, &sm);
	record_publish(buf, EXP_REC_SAMPLE_POINT);
	struct exp_sample lg = {.number = 4,
				.reason = EXP_SAMPLE_PAUSE,
				.label = long_label,
				.label_bytes = sizeof long_label};
	size_t m = record_encode_sample_point(buf + n, sizeof buf - n, &lg);
	record_publish(buf + n, EXP_REC_SAMPLE_POINT);
	CHECK(n > 0 && m > 0);
	const uint8_t *pos = buf, *end = buf + sizeof buf;
	struct exp_record r;
	struct exp_sample d;
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_sample(&r, &d) == 0);
	CHECK_EQ_U64(d.number, 3);
	CHECK_EQ_U64(d.stime_ns, 11);
	CHECK_EQ_U64(d.reason, EXP_SAMPLE_API);
	CHECK(d.label_bytes == 7 && memcmp(d.label, "after_b", 7) == 0);
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_sample(&r, &d) == 0);
	CHECK_EQ_U64(d.reason, EXP_SAMPLE_PAUSE);
	CHECK_EQ_U64(d.label_bytes, EXP_SAMPLE_LABEL_MAX);
	/* an old SAMPLE record decodes as the start (number 0) or the end */
	struct exp_sample old = {.number = 1};
	record_encode_sample(buf, sizeof buf, &old);
	record_publish(buf, EXP_REC_SAMPLE);
	pos = buf;
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_sample(&r, &d) == 0);
	CHECK(d.reason == EXP_SAMPLE_END && d.label_bytes == 0);
	/* a reason past the last is malformed */
	struct exp_sample bad = {.reason = EXP_SAMPLE_REASON_LIMIT};
	record_encode_sample_point(buf, sizeof buf, &bad);
	record_publish(buf, EXP_REC_SAMPLE_POINT);
	pos = buf;
	CHECK(record_next(&pos, end, &r) == 1 && record_decode_sample(&r, &d) == -EBADMSG);
}

static void test_stack_slot(void)
{
	uint8_t buf[256];
	const uint8_t *pos;
	struct exp_record rec;
	struct exp_stack_slot sl = {.slot = 65535, .stack_id = 0x1234567890abcdefull}, ds;
	size_t k = record_encode_stack_slot(buf, sizeof buf, &sl);
	record_publish(buf, EXP_REC_STACK_SLOT);
	pos = buf;
	CHECK(record_next(&pos, buf + k, &rec) == 1 && record_decode_stack_slot(&rec, &ds) == 0);
	CHECK_EQ_U64(ds.slot, 65535);
	CHECK_EQ_U64(ds.stack_id, 0x1234567890abcdefull);
	/* kind 6 framed heap calls in format 1.0: no longer a record */
	uint8_t old[3] = {6, 1, 0};
	pos = old;
	CHECK(record_next(&pos, old + 3, &rec) == -EBADMSG);
}

static void test_sync(void)
{
	uint8_t buf[64];
	struct exp_sync s = {.ts_ns = 5000000123ull,
			     .func = EXP_SYNC_COND_TIMEDWAIT,
			     .wait_ns = 300000000,
			     .object = 0x7ffc12345678ull,
			     .stack_id = 0x8877665544332211ull};
	size_t n = record_encode_sync(buf, sizeof buf, 5000000000ull, &s);
	CHECK(n > 0 && n <= 40);
	CHECK(buf[0] == 0);
	record_publish(buf, EXP_REC_SYNC);
	const uint8_t *pos = buf;
	struct exp_record r;
	CHECK(record_next(&pos, buf + n, &r) == 1 && pos == buf + n);
	struct exp_sync d;
	CHECK(record_decode_sync(&r, 5000000000ull, 9, &d) == 0);
	CHECK_EQ_U64(d.ts_ns, s.ts_ns);
	CHECK_EQ_U64(d.tid, 9);
	CHECK_EQ_U64(d.func, EXP_SYNC_COND_TIMEDWAIT);
	CHECK_EQ_U64(d.wait_ns, s.wait_ns);
	CHECK_EQ_U64(d.object, s.object);
	CHECK_EQ_U64(d.stack_id, s.stack_id);
	CHECK(strcmp(record_sync_func_name(d.func), "pthread_cond_timedwait") == 0);
	CHECK(strcmp(record_sync_func_name(EXP_SYNC_THRD_JOIN), "thrd_join") == 0);
	CHECK(strcmp(record_sync_func_name(EXP_SYNC_FUNC_LIMIT), "?") == 0);
	CHECK(record_decode_clock(&r, 0, 1, &(struct exp_clock){0}) == -EBADMSG); /* another kind */
	r.payload_bytes -= 1;                                                     /* truncated */
	CHECK(record_decode_sync(&r, 0, 1, &d) == -EBADMSG);
	/* a function beyond the enum */
	s.func = EXP_SYNC_FUNC_LIMIT;
	n = record_encode_sync(buf, sizeof buf, 0, &s);
	record_publish(buf, EXP_REC_SYNC);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_sync(&r, 0, 1, &d) == -EBADMSG);
	CHECK(record_encode_sync(buf, 10, 0, &s) == 0); /* no room */
}

static void test_io(void)
{
	uint8_t buf[128];
	struct exp_io e = {.ts_ns = 7000000500ull,
			   .func = EXP_IO_PREAD64,
			   .dur_ns = 12345,
			   .fd = 1023,
			   .vfd = 77,
			   .bytes = 1u << 20,
			   .err = 0,
			   .stack_id = 0x1122334455667788ull};
	size_t n = record_encode_io(buf, sizeof buf, 7000000000ull, &e);
	CHECK(n > 0 && buf[0] == 0);
	record_publish(buf, EXP_REC_IO);
	const uint8_t *pos = buf;
	struct exp_record r;
	CHECK(record_next(&pos, buf + n, &r) == 1 && pos == buf + n);
	struct exp_io d;
	CHECK(record_decode_io(&r, 7000000000ull, 4, &d) == 0);
	CHECK_EQ_U64(d.ts_ns, e.ts_ns);
	CHECK_EQ_U64(d.tid, 4);
	CHECK_EQ_U64(d.func, EXP_IO_PREAD64);
	CHECK_EQ_U64(d.dur_ns, e.dur_ns);
	CHECK(d.fd == 1023);
	CHECK_EQ_U64(d.vfd, 77);
	CHECK_EQ_U64(d.bytes, e.bytes);
	CHECK_EQ_U64(d.err, 0);
	CHECK_EQ_U64(d.stack_id, e.stack_id);
	CHECK(strcmp(record_io_func_name(d.func), "pread64") == 0);
	CHECK(strcmp(record_io_func_name(EXP_IO_FUNC_LIMIT), "?") == 0);
	CHECK(record_io_class(EXP_IO_RECVFROM) == EXP_IO_CLASS_READ);
	CHECK(record_io_class(EXP_IO_WRITEV) == EXP_IO_CLASS_WRITE);
	CHECK(record_io_class(EXP_IO_LSEEK) == EXP_IO_CLASS_OTHER);
	CHECK(record_io_class(EXP_IO_COPY_FILE_RANGE) == EXP_IO_CLASS_COPY);
	CHECK(record_io_class(EXP_IO_SENDFILE64) == EXP_IO_CLASS_COPY);
	CHECK(record_io_class(EXP_IO_PREADV64V2) == EXP_IO_CLASS_READ);
	CHECK(record_io_class(EXP_IO_SENDMSG) == EXP_IO_CLASS_WRITE);
	CHECK(strcmp(record_io_func_name(EXP_IO_RECVMSG), "recvmsg") == 0);
	/* format 1.6: the stdio family at the stdio level, mkstemp, llseek */
	static const struct {
		unsigned func;
		enum exp_io_class cls;
	} stdio_class[] = {
		{EXP_IO_FREAD, EXP_IO_CLASS_READ},          {EXP_IO_GETDELIM, EXP_IO_CLASS_READ},
		{EXP_IO_FGETS_UNLOCKED, EXP_IO_CLASS_READ}, {EXP_IO_FPRINTF, EXP_IO_CLASS_WRITE},
		{EXP_IO_PUTS, EXP_IO_CLASS_WRITE},          {EXP_IO_FPUTS_UNLOCKED, EXP_IO_CLASS_WRITE},
		{EXP_IO_FOPEN, EXP_IO_CLASS_OTHER},         {EXP_IO_FCLOSE, EXP_IO_CLASS_OTHER},
		{EXP_IO_FFLUSH, EXP_IO_CLASS_OTHER},        {EXP_IO_MKOSTEMPS64, EXP_IO_CLASS_OTHER},
		{EXP_IO_LLSEEK, EXP_IO_CLASS_OTHER},        {EXP_IO_FPUTC, EXP_IO_CLASS_WRITE},
		{EXP_IO_PUTCHAR, EXP_IO_CLASS_WRITE},       {EXP_IO_GETC, EXP_IO_CLASS_READ},
		{EXP_IO_GETCHAR, EXP_IO_CLASS_READ},
	};
	for (size_t i = 0; i < sizeof stdio_class / sizeof stdio_class[0]; i++)
		CHECK(record_io_class(stdio_class[i].func) == stdio_class[i].cls);
	CHECK(strcmp(record_io_func_name(EXP_IO_FWRITE_UNLOCKED), "fwrite_unlocked") == 0);
	CHECK(strcmp(record_io_func_name(EXP_IO_LLSEEK), "llseek") == 0);
	for (unsigned f = 0; f < EXP_IO_FUNC_LIMIT; f++)
		CHECK(strcmp(record_io_func_name(f), "?") != 0 && record_io_func_name(f) != NULL);
	r.payload_bytes -= 1; /* truncated */
	CHECK(record_decode_io(&r, 0, 1, &d) == -EBADMSG);
	/* a failed open: fd -1, an errno */
	e.func = EXP_IO_OPENAT;
	e.fd = -1;
	e.vfd = 0;
	e.bytes = 0;
	e.err = 2;
	n = record_encode_io(buf, sizeof buf, 0, &e);
	record_publish(buf, EXP_REC_IO);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_io(&r, 0, 1, &d) == 0);
	CHECK(d.fd == -1 && d.err == 2 && d.vfd == 0);
	e.func = EXP_IO_FUNC_LIMIT; /* beyond the enum */
	n = record_encode_io(buf, sizeof buf, 0, &e);
	record_publish(buf, EXP_REC_IO);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_io(&r, 0, 1, &d) == -EBADMSG);
	CHECK(record_encode_io(buf, 10, 0, &e) == 0); /* no room */

	struct exp_io_file f = {.vfd = 3,
				.fd = 5,
				.origin = 0,
				.how = EXP_IO_HOW_OPEN,
				.name = "data/a.txt",
				.name_bytes = 10};
	n = record_encode_io_file(buf, sizeof buf, &f);
	CHECK(n > 0);
	record_publish(buf, EXP_REC_IO_FILE);
	pos = buf;
	struct exp_io_file g;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_io_file(&r, &g) == 0);
	CHECK(g.vfd == 3 && g.fd == 5 && g.origin == 0 && g.how == EXP_IO_HOW_OPEN);
	CHECK(g.name_bytes == 10 && memcmp(g.name, "data/a.txt", 10) == 0);
	CHECK(record_decode_io(&r, 0, 1, &d) == -EBADMSG); /* another kind */
	f.how = EXP_IO_HOW_TMPFILE;                        /* format 1.6 */
	f.name = "<tmpfile>";
	f.name_bytes = 9;
	n = record_encode_io_file(buf, sizeof buf, &f);
	record_publish(buf, EXP_REC_IO_FILE);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_io_file(&r, &g) == 0);
	CHECK(g.how == EXP_IO_HOW_TMPFILE && g.name_bytes == 9 && memcmp(g.name, "<tmpfile>", 9) == 0);
	f.how = EXP_IO_HOW_LIMIT;
	n = record_encode_io_file(buf, sizeof buf, &f);
	record_publish(buf, EXP_REC_IO_FILE);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_io_file(&r, &g) == -EBADMSG);
	f.how = EXP_IO_HOW_DUP;
	f.vfd = 0; /* vfd 0 names no descriptor */
	n = record_encode_io_file(buf, sizeof buf, &f);
	record_publish(buf, EXP_REC_IO_FILE);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_io_file(&r, &g) == -EBADMSG);
	CHECK(record_encode_io_file(buf, 8, &f) == 0); /* no room */
}

static void test_sync_acq(void)
{
	uint8_t buf[64];
	struct exp_sync_acq a = {.ts_ns = 7000000500ull,
				 .func = EXP_SYNC_RWLOCK_WRLOCK,
				 .object = 0x55aa00001000ull,
				 .stack_id = 0x1122334455667788ull};
	size_t n = record_encode_sync_acq(buf, sizeof buf, 7000000000ull, &a);
	CHECK(n > 0 && n <= 32);
	record_publish(buf, EXP_REC_SYNC_ACQ);
	const uint8_t *pos = buf;
	struct exp_record r;
	CHECK(record_next(&pos, buf + n, &r) == 1 && pos == buf + n);
	struct exp_sync_acq d;
	CHECK(record_decode_sync_acq(&r, 7000000000ull, 4, &d) == 0);
	CHECK_EQ_U64(d.ts_ns, a.ts_ns);
	CHECK_EQ_U64(d.tid, 4);
	CHECK_EQ_U64(d.func, EXP_SYNC_RWLOCK_WRLOCK);
	CHECK_EQ_U64(d.object, a.object);
	CHECK_EQ_U64(d.stack_id, a.stack_id);
	CHECK(record_decode_sync(&r, 0, 1, &(struct exp_sync){0}) == -EBADMSG); /* another kind */
	r.payload_bytes -= 1;
	CHECK(record_decode_sync_acq(&r, 0, 1, &d) == -EBADMSG);
	a.func = EXP_SYNC_FUNC_LIMIT;
	n = record_encode_sync_acq(buf, sizeof buf, 0, &a);
	record_publish(buf, EXP_REC_SYNC_ACQ);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_sync_acq(&r, 0, 1, &d) == -EBADMSG);

	struct exp_sync_count c = {
		.object = 0x55aa00001000ull, .acquisitions = 123456789, .sample_every = 16};
	n = record_encode_sync_count(buf, sizeof buf, &c);
	CHECK(n > 0 && n <= 24);
	record_publish(buf, EXP_REC_SYNC_COUNT);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && pos == buf + n);
	struct exp_sync_count e;
	CHECK(record_decode_sync_count(&r, &e) == 0);
	CHECK_EQ_U64(e.object, c.object);
	CHECK_EQ_U64(e.acquisitions, 123456789);
	CHECK_EQ_U64(e.sample_every, 16);
	c.sample_every = 0; /* no sampling rate: malformed */
	n = record_encode_sync_count(buf, sizeof buf, &c);
	record_publish(buf, EXP_REC_SYNC_COUNT);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_sync_count(&r, &e) == -EBADMSG);
	CHECK(record_encode_sync_count(buf, 8, &c) == 0); /* no room */
}

static void test_hwc(void)
{
	uint8_t buf[64];
	struct exp_hwc h = {
		.ts_ns = 5000000123ull, .counter = 2, .overflows = 3, .stack_id = 0x1122334455667788ull};
	size_t n = record_encode_hwc(buf, sizeof buf, 5000000000ull, &h);
	CHECK(n > 0);
	record_publish(buf, EXP_REC_HWC);
	const uint8_t *pos = buf;
	struct exp_record r;
	struct exp_hwc d;
	CHECK(record_next(&pos, buf + n, &r) == 1 && r.kind == EXP_REC_HWC);
	CHECK(record_decode_hwc(&r, 5000000000ull, 9, &d) == 0);
	CHECK(d.ts_ns == h.ts_ns && d.tid == 9 && d.counter == 2 && d.overflows == 3 &&
	      d.stack_id == h.stack_id);
	r.payload_bytes -= 1; /* truncated */
	CHECK(record_decode_hwc(&r, 0, 9, &d) == -EBADMSG);
	h.counter = EXP_HWC_MAX_COUNTERS; /* no such counter */
	n = record_encode_hwc(buf, sizeof buf, 0, &h);
	record_publish(buf, EXP_REC_HWC);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_hwc(&r, 0, 1, &d) == -EBADMSG);
	h.counter = 0;
	h.overflows = 0; /* an overflow record stands for at least one */
	n = record_encode_hwc(buf, sizeof buf, 0, &h);
	record_publish(buf, EXP_REC_HWC);
	pos = buf;
	CHECK(record_next(&pos, buf + n, &r) == 1 && record_decode_hwc(&r, 0, 1, &d) == -EBADMSG);
	CHECK(record_encode_hwc(buf, 6, 0, &h) == 0); /* no room */
}

int main(void)
{
	test_sample_point();
	test_hwc();
	test_io();
	test_sync();
	test_sync_acq();
	test_stack_slot();
	test_clock();
	test_clock_split();
	test_clock_ctx();
	test_stack();
	test_threads_samples();
	return check_done();
}
