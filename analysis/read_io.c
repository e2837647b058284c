/*
 * read_io.c - the iotrace file's reader (see exp_read.h): the I/O calls of
 * collect -i on, one IO record each (format 1.5), and the descriptors'
 * lives (IO_FILE records): their names, a duplicate's taken from its
 * original's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/exp_read.h"
#include "experiment/record.h"

struct io_state {
	struct exp_read *rd;
	VEC(struct exp_io_event) events;
	VEC(uint64_t) stack_ids; /* per event, resolved once the file is read */
	VEC(struct exp_io_fd) fds;
	uint64_t prev_ns;
	uint64_t bad;
};

static int io_record_cb(void *ctx, uint32_t tid, uint64_t base_ns, int block_start,
			const struct exp_record *rec)
{
	struct io_state *st = ctx;
	if (block_start)
		st->prev_ns = base_ns;
	struct exp_io y;
	if (rec->kind == EXP_REC_IO_FILE) {
		struct exp_io_file f;
		if (record_decode_io_file(rec, &f) < 0) {
			st->bad++;
			return 0;
		}
		struct exp_io_fd d = {.vfd = f.vfd, .fd = f.fd, .origin = f.origin, .how = f.how};
		d.name = strndup(f.name, f.name_bytes);
		if (!d.name || VEC_PUSH(&st->fds, d) < 0) {
			free(d.name);
			return -ENOMEM;
		}
		return 0;
	}
	if (record_decode_io(rec, st->prev_ns, tid, &y) < 0) {
		st->bad++; /* malformed, or a kind that does not belong in this file */
		return 0;
	}
	st->prev_ns = y.ts_ns;
	struct exp_thread *t = exp_read_thread(st->rd, tid);
	if (!t)
		return 0;
	struct exp_io_event e = {.ts_ns = y.ts_ns,
				 .dur_ns = y.dur_ns,
				 .bytes = y.bytes,
				 .thread = (uint32_t)(t - st->rd->threads.v),
				 .vfd = y.vfd,
				 .err = y.err,
				 .func = (uint16_t)y.func,
				 .fd = y.fd};
	if (VEC_PUSH(&st->events, e) < 0 || VEC_PUSH(&st->stack_ids, y.stack_id) < 0)
		return -ENOMEM;
	return 0;
}

static int io_read(struct exp_read *rd, void *vst, struct datafile *df)
{
	struct io_state *st = vst;
	st->rd = rd;
	/* present (even damaged) means I/O tracing was on */
	EXP_PRESENT(rd->exp, IO) = exp_read_present(rd, EXP_FILE_NAME_IO);
	if (!df)
		return 0;
	int r = datafile_walk(df, io_record_cb, st);
	if (r < 0)
		return r;
	exp_read_damage(rd, EXP_FILE_NAME_IO, df, st->bad);
	exp_read_set_stacks(rd, st->stack_ids.v, st->events.n, st->events.v, sizeof *st->events.v,
			    offsetof(struct exp_io_event, stack), "I/O call(s)");
	return 0;
}

static int cmp_io_event(const void *a, const void *b)
{
	const struct exp_io_event *x = a, *y = b;
	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_io_fd(const void *a, const void *b)
{
	const struct exp_io_fd *x = a, *y = b;
	return (x->vfd > y->vfd) - (x->vfd < y->vfd);
}

/* What a table of descriptors owns: their names. */
static void io_fds_release(void *rows, size_t n)
{
	struct exp_io_fd *v = rows;
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
}

/*
 * The descriptors by vfd, one each (a damaged file's repeats dropped), each
 * duplicate named as its original (which came first: a smaller vfd).
 */
static int io_fds_finish(struct exp_read *rd, struct io_state *st)
{
	struct exp_io_fd *v = st->fds.v;
	size_t n = 0;
	if (st->fds.n)
		qsort(v, st->fds.n, sizeof *v, cmp_io_fd);
	for (size_t i = 0; i < st->fds.n; i++) {
		if (v[i].vfd == 0 || (n > 0 && v[n - 1].vfd == v[i].vfd)) {
			free(v[i].name);
			continue;
		}
		v[n++] = v[i];
	}
	st->fds.n = n;
	for (size_t i = 0; i < n; i++) {
		if (*v[i].name || v[i].how == EXP_IO_HOW_DUP || v[i].fd < 0)
			continue;
		char *name; /* an inherited descriptor whose link could not be read */
		if (asprintf(&name, "<descriptor %d>", v[i].fd) < 0)
			return -ENOMEM;
		free(v[i].name);
		v[i].name = name;
	}
	/* the experiment owns them from here on, names resolved or not */
	exp_read_take_rows(rd, EXP_TABLE_IO_FDS, &st->fds.v, &st->fds.n, sizeof *v, io_fds_release);
	for (size_t i = 0; i < n; i++) {
		const struct exp_io_fd *o = v[i].how == EXP_IO_HOW_DUP && v[i].origin < v[i].vfd
						    ? experiment_io_fd(rd->exp, v[i].origin)
						    : NULL;
		if (!o)
			continue;
		char *name = strdup(o->name);
		if (!name)
			return -ENOMEM;
		free(v[i].name);
		v[i].name = name;
	}
	return 0;
}

static int io_finish(struct exp_read *rd, void *vst, const uint32_t *thread_order)
{
	struct io_state *st = vst;
	int r = io_fds_finish(rd, st);
	if (r < 0)
		return r;
	EXP_READ_FINISH_VEC(rd, EXP_TABLE_IO, &st->events, thread_order, cmp_io_event, NULL);
	return 0;
}

static void io_release(void *vst)
{
	struct io_state *st = vst;
	free(st->events.v);
	free(st->stack_ids.v);
	for (size_t i = 0; i < st->fds.n; i++)
		free(st->fds.v[i].name);
	free(st->fds.v);
}

const struct exp_reader exp_reader_io = {
	.file = EXP_FILE_NAME_IO,
	.kind = EXP_FILE_IO,
	.state_bytes = sizeof(struct io_state),
	.read = io_read,
	.finish = io_finish,
	.release = io_release,
};
