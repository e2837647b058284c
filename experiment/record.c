/*
 * record.c - encoders and bounds-checked decoders of the binary records.
 * Encoders are SIGNAL_SAFE (no allocation, no libc calls beyond inline code).
 */
#include "experiment/record.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "common/varint.h"

size_t record_header_bytes(size_t payload_bytes)
{
	return 1 + varint_len(payload_bytes);
}

/*
 * Finish a record whose payload was built at tmp[0..n): write the header in
 * front of it at buf.  The payload is built in a scratch area first because
 * the length varint's size is unknown until then.
 */
static size_t finish(uint8_t *buf, size_t room, const uint8_t *tmp, size_t n)
{
	size_t h = record_header_bytes(n);
	if (h + n > room || n > EXP_MAX_PAYLOAD_BYTES)
		return 0;
	buf[0] = EXP_REC_END;
	varint_put(buf + 1, n);
	for (size_t i = 0; i < n; i++)
		buf[h + i] = tmp[i];
	return h + n;
}

enum exp_record_kind record_clock_kind(const struct exp_clock *c)
{
	return c->ctx.runtime ? EXP_REC_CLOCK_CTX : EXP_REC_CLOCK;
}

size_t record_encode_clock(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_clock *c)
{
	uint8_t tmp[10 * VARINT_MAX_BYTES + 8];
	size_t n = 0;
	if (c->ctx.runtime) { /* a CLOCK_CTX: the context first */
		n += varint_put(tmp + n, c->ctx.runtime);
		n += varint_put(tmp + n, c->ctx.state);
		n += varint_put(tmp + n, c->ctx.flags);
		n += varint_put(tmp + n, c->ctx.region);
		n += varint_put(tmp + n, c->ctx.aux);
	}
	n += varint_put(tmp + n, c->ts_ns >= prev_ns ? c->ts_ns - prev_ns : 0);
	n += varint_put(tmp + n, c->cpu);
	le64_put(tmp + n, c->stack_id);
	n += 8;
	n += varint_put(tmp + n, c->weight_ns);
	if (c->has_user) /* format 1.10 */
		n += varint_put(tmp + n, c->user_ns <= c->weight_ns ? c->user_ns : c->weight_ns);
	return finish(buf, room, tmp, n);
}

size_t record_encode_thread_start(uint8_t *buf, size_t room, const struct exp_thread_start *t)
{
	uint8_t tmp[4 * VARINT_MAX_BYTES];
	size_t n = 0;
	n += varint_put(tmp + n, t->tid);
	n += varint_put(tmp + n, t->start_ns);
	n += varint_put(tmp + n, t->creator_tid);
	n += varint_put(tmp + n, t->start_pc);
	return finish(buf, room, tmp, n);
}

size_t record_encode_thread_end(uint8_t *buf, size_t room, const struct exp_thread_end *t)
{
	uint8_t tmp[4 * VARINT_MAX_BYTES];
	size_t n = 0;
	n += varint_put(tmp + n, t->tid);
	n += varint_put(tmp + n, t->end_ns);
	n += varint_put(tmp + n, t->cpu_ns);
	if (t->has_wait)
		n += varint_put(tmp + n, t->wait_ns);
	return finish(buf, room, tmp, n);
}

/* The varint of frame i: the first pc, then zigzag deltas. */
static uint64_t frame_code(const struct exp_stack *s, uint32_t i)
{
	return i == 0 ? s->pcs[0] : zigzag_encode((int64_t)(s->pcs[i] - s->pcs[i - 1]));
}

size_t record_encode_stack(uint8_t *buf, size_t room, const struct exp_stack *s)
{
	/* Size the payload first, so the record is written in place and no byte
	 * past its end is ever touched (a reader may be looking there). */
	size_t n = 8 + varint_len(s->flags) + varint_len(s->nframes);
	for (uint32_t i = 0; i < s->nframes; i++)
		n += varint_len(frame_code(s, i));
	size_t h = record_header_bytes(n);
	if (n > EXP_MAX_PAYLOAD_BYTES || h + n > room)
		return 0;
	uint8_t *p = buf;
	*p++ = EXP_REC_END;
	p += varint_put(p, n);
	le64_put(p, s->id);
	p += 8;
	p += varint_put(p, s->flags);
	p += varint_put(p, s->nframes);
	for (uint32_t i = 0; i < s->nframes; i++)
		p += varint_put(p, frame_code(s, i));
	return h + n;
}

size_t record_encode_sample(uint8_t *buf, size_t room, const struct exp_sample *s)
{
	uint8_t tmp[15 * VARINT_MAX_BYTES];
	const uint64_t f[] = {s->ts_ns,  s->number,   s->utime_ns, s->stime_ns, s->minflt,
			      s->majflt, s->nswap,    s->inblock,  s->oublock,  s->msgsnd,
			      s->msgrcv, s->nsignals, s->nvcsw,    s->nivcsw,   s->maxrss_kb};
	size_t n = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		n += varint_put(tmp + n, f[i]);
	return finish(buf, room, tmp, n);
}

size_t record_encode_sample_point(uint8_t *buf, size_t room, const struct exp_sample *s)
{
	uint8_t tmp[16 * VARINT_MAX_BYTES + EXP_SAMPLE_LABEL_MAX];
	const uint64_t f[] = {s->ts_ns, s->number,  s->utime_ns,  s->stime_ns, s->minflt, s->majflt,
			      s->nswap, s->inblock, s->oublock,   s->msgsnd,   s->msgrcv, s->nsignals,
			      s->nvcsw, s->nivcsw,  s->maxrss_kb, s->reason};
	size_t n = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		n += varint_put(tmp + n, f[i]);
	uint32_t k = s->label ? s->label_bytes : 0;
	if (k > EXP_SAMPLE_LABEL_MAX)
		k = EXP_SAMPLE_LABEL_MAX;
	for (uint32_t i = 0; i < k; i++)
		tmp[n++] = (uint8_t)s->label[i];
	return finish(buf, room, tmp, n);
}

size_t record_encode_stack_slot(uint8_t *buf, size_t room, const struct exp_stack_slot *s)
{
	uint8_t tmp[VARINT_MAX_BYTES + 8];
	size_t n = varint_put(tmp, s->slot);
	le64_put(tmp + n, s->stack_id);
	n += 8;
	return finish(buf, room, tmp, n);
}

size_t record_encode_sync(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_sync *s)
{
	uint8_t tmp[3 * VARINT_MAX_BYTES + 16];
	size_t n = 0;
	n += varint_put(tmp + n, s->ts_ns >= prev_ns ? s->ts_ns - prev_ns : 0);
	n += varint_put(tmp + n, s->wait_ns);
	n += varint_put(tmp + n, s->func);
	le64_put(tmp + n, s->object);
	n += 8;
	le64_put(tmp + n, s->stack_id);
	n += 8;
	return finish(buf, room, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

size_t record_encode_io(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_io *e)
{
	uint8_t tmp[7 * VARINT_MAX_BYTES + 8];
	size_t n = 0;
	n += varint_put(tmp + n, e->ts_ns >= prev_ns ? e->ts_ns - prev_ns : 0);
	n += varint_put(tmp + n, e->dur_ns);
	n += varint_put(tmp + n, e->func);
	n += varint_put(tmp + n, zigzag(e->fd));
	n += varint_put(tmp + n, e->vfd);
	n += varint_put(tmp + n, e->bytes);
	n += varint_put(tmp + n, e->err);
	le64_put(tmp + n, e->stack_id);
	n += 8;
	return finish(buf, room, tmp, n);
}

size_t record_encode_io_file(uint8_t *buf, size_t room, const struct exp_io_file *f)
{
	uint8_t head[4 * VARINT_MAX_BYTES];
	size_t n = 0;
	n += varint_put(head + n, f->vfd);
	n += varint_put(head + n, zigzag(f->fd));
	n += varint_put(head + n, f->origin);
	n += varint_put(head + n, f->how);
	size_t name = f->name_bytes;
	if (n + name > EXP_MAX_PAYLOAD_BYTES)
		name = EXP_MAX_PAYLOAD_BYTES - n;
	size_t h = record_header_bytes(n + name);
	if (h + n + name > room)
		return 0;
	buf[0] = EXP_REC_END;
	varint_put(buf + 1, n + name);
	for (size_t i = 0; i < n; i++)
		buf[h + i] = head[i];
	for (size_t i = 0; i < name; i++)
		buf[h + n + i] = (uint8_t)f->name[i];
	return h + n + name;
}

size_t record_encode_sync_acq(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_sync_acq *a)
{
	uint8_t tmp[2 * VARINT_MAX_BYTES + 16];
	size_t n = 0;
	n += varint_put(tmp + n, a->ts_ns >= prev_ns ? a->ts_ns - prev_ns : 0);
	n += varint_put(tmp + n, a->func);
	le64_put(tmp + n, a->object);
	n += 8;
	le64_put(tmp + n, a->stack_id);
	n += 8;
	return finish(buf, room, tmp, n);
}

size_t record_encode_sync_count(uint8_t *buf, size_t room, const struct exp_sync_count *c)
{
	uint8_t tmp[2 * VARINT_MAX_BYTES + 8];
	le64_put(tmp, c->object);
	size_t n = 8;
	n += varint_put(tmp + n, c->acquisitions);
	n += varint_put(tmp + n, c->sample_every);
	return finish(buf, room, tmp, n);
}

void record_publish(uint8_t *buf, enum exp_record_kind kind)
{
	atomic_store_explicit((_Atomic uint8_t *)buf, (uint8_t)kind, memory_order_release);
}

int record_next(const uint8_t **pos, const uint8_t *end, struct exp_record *ret)
{
	const uint8_t *p = *pos;
	if (p >= end)
		return 0;
	uint8_t kind = atomic_load_explicit((const _Atomic uint8_t *)p, memory_order_acquire);
	if (kind == EXP_REC_END)
		return 0;
	if (kind >= EXP_REC_KIND_LIMIT || kind == 6) /* 6: heap records of format 1.0 */
		return -EBADMSG;
	uint64_t n;
	p = varint_get(p + 1, end, &n);
	if (!p || n > (uint64_t)(end - p))
		return -EBADMSG;
	ret->kind = (enum exp_record_kind)kind;
	ret->payload = p;
	ret->payload_bytes = (size_t)n;
	*pos = p + n;
	return 1;
}

/* Read `count` varints from a payload; -EBADMSG on short or trailing bytes. */
static int get_varints(const struct exp_record *r, uint64_t *v, int count)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	for (int i = 0; i < count; i++) {
		p = varint_get(p, end, &v[i]);
		if (!p)
			return -EBADMSG;
	}
	return p == end ? 0 : -EBADMSG;
}

/* A CLOCK_CTX's context, before its CLOCK fields: -EBADMSG when cut, out of range or of no runtime. */
static int decode_ctx(const uint8_t **pp, const uint8_t *end, struct exp_sample_ctx *ret)
{
	uint64_t rt, st, fl;
	const uint8_t *p = *pp;
	if (!(p = varint_get(p, end, &rt)) || !(p = varint_get(p, end, &st)) ||
	    !(p = varint_get(p, end, &fl)) || !(p = varint_get(p, end, &ret->region)) ||
	    !(p = varint_get(p, end, &ret->aux)))
		return -EBADMSG;
	if (rt == 0 || rt > UINT32_MAX || st > UINT32_MAX || fl > UINT32_MAX)
		return -EBADMSG;
	ret->runtime = (uint32_t)rt;
	ret->state = (uint32_t)st;
	ret->flags = (uint32_t)fl;
	*pp = p;
	return 0;
}

int record_decode_clock(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_clock *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t dt, cpu, w, user = 0;
	if (r->kind != EXP_REC_CLOCK && r->kind != EXP_REC_CLOCK_CTX)
		return -EBADMSG;
	ret->ctx = (struct exp_sample_ctx){0};
	if (r->kind == EXP_REC_CLOCK_CTX && decode_ctx(&p, end, &ret->ctx) < 0)
		return -EBADMSG;
	if (!(p = varint_get(p, end, &dt)) || !(p = varint_get(p, end, &cpu)) || end - p < 8)
		return -EBADMSG;
	ret->stack_id = le64_get(p);
	p += 8;
	if (!(p = varint_get(p, end, &w)) || cpu > UINT32_MAX)
		return -EBADMSG;
	int has_user = p != end; /* format 1.10: the user part follows */
	if (has_user && (!(p = varint_get(p, end, &user)) || user > w))
		return -EBADMSG;
	if (p != end)
		return -EBADMSG;
	ret->ts_ns = prev_ns + dt;
	ret->tid = tid;
	ret->cpu = (uint32_t)cpu;
	ret->weight_ns = w;
	ret->user_ns = user;
	ret->has_user = has_user;
	return 0;
}

int record_decode_thread_start(const struct exp_record *r, struct exp_thread_start *ret)
{
	uint64_t v[4];
	if (r->kind != EXP_REC_THREAD_START || get_varints(r, v, 4) < 0 || v[0] > UINT32_MAX ||
	    v[2] > UINT32_MAX)
		return -EBADMSG;
	ret->tid = (uint32_t)v[0];
	ret->start_ns = v[1];
	ret->creator_tid = (uint32_t)v[2];
	ret->start_pc = v[3];
	return 0;
}

int record_decode_thread_end(const struct exp_record *r, struct exp_thread_end *ret)
{
	uint64_t v[4];
	int wait = r->kind == EXP_REC_THREAD_END && get_varints(r, v, 4) == 0; /* format 1.9 */
	if (r->kind != EXP_REC_THREAD_END || (!wait && get_varints(r, v, 3) < 0) || v[0] > UINT32_MAX)
		return -EBADMSG;
	ret->tid = (uint32_t)v[0];
	ret->end_ns = v[1];
	ret->cpu_ns = v[2];
	ret->wait_ns = wait ? v[3] : 0;
	ret->has_wait = wait;
	return 0;
}

int record_decode_stack(const struct exp_record *r, uint64_t *pcs, uint32_t cap, struct exp_stack *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t flags, n;
	if (r->kind != EXP_REC_STACK || end - p < 8)
		return -EBADMSG;
	ret->id = le64_get(p);
	p += 8;
	if (!(p = varint_get(p, end, &flags)) || !(p = varint_get(p, end, &n)) || flags > UINT32_MAX ||
	    n > EXP_MAX_FRAMES)
		return -EBADMSG;
	if (n > cap)
		return -E2BIG;
	uint64_t prev = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v;
		if (!(p = varint_get(p, end, &v)))
			return -EBADMSG;
		prev = i == 0 ? v : prev + (uint64_t)zigzag_decode(v);
		pcs[i] = prev;
	}
	if (p != end)
		return -EBADMSG;
	ret->flags = (uint32_t)flags;
	ret->nframes = (uint32_t)n;
	ret->pcs = pcs;
	return 0;
}

int record_decode_sample(const struct exp_record *r, struct exp_sample *ret)
{
	uint64_t v[16];
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	int named = r->kind == EXP_REC_SAMPLE_POINT;
	if (r->kind != EXP_REC_SAMPLE && !named)
		return -EBADMSG;
	for (int i = 0; i < 15 + named; i++)
		if (!(p = varint_get(p, end, &v[i])))
			return -EBADMSG;
	if ((!named && p != end) ||
	    (named && (v[15] >= EXP_SAMPLE_REASON_LIMIT || (size_t)(end - p) > EXP_SAMPLE_LABEL_MAX)))
		return -EBADMSG;
	uint64_t *f[] = {&ret->ts_ns,  &ret->number,   &ret->utime_ns, &ret->stime_ns, &ret->minflt,
			 &ret->majflt, &ret->nswap,    &ret->inblock,  &ret->oublock,  &ret->msgsnd,
			 &ret->msgrcv, &ret->nsignals, &ret->nvcsw,    &ret->nivcsw,   &ret->maxrss_kb};
	for (int i = 0; i < 15; i++)
		*f[i] = v[i];
	/* format 1.6 and before: point 0 starts the collection, any other ends it */
	ret->reason = named ? (uint32_t)v[15] : ret->number == 0 ? EXP_SAMPLE_START : EXP_SAMPLE_END;
	ret->label = named ? (const char *)p : NULL;
	ret->label_bytes = named ? (uint32_t)(end - p) : 0;
	return 0;
}

int record_decode_stack_slot(const struct exp_record *r, struct exp_stack_slot *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t slot;
	if (r->kind != EXP_REC_STACK_SLOT || !(p = varint_get(p, end, &slot)) || slot > UINT32_MAX ||
	    end - p != 8)
		return -EBADMSG;
	ret->slot = (uint32_t)slot;
	ret->stack_id = le64_get(p);
	return 0;
}

uint64_t record_stack_hash(const uint64_t *pcs, uint32_t nframes, uint32_t flags)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)flags << 32) ^ nframes;
	for (uint32_t i = 0; i < nframes; i++) {
		h ^= pcs[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 32;
	return h ? h : 1; /* 0 is reserved for "no stack" */
}

int record_decode_sync(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_sync *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t dt, wait, func;
	if (r->kind != EXP_REC_SYNC)
		return -EBADMSG;
	if (!(p = varint_get(p, end, &dt)) || !(p = varint_get(p, end, &wait)) ||
	    !(p = varint_get(p, end, &func)) || end - p != 16 || func >= EXP_SYNC_FUNC_LIMIT)
		return -EBADMSG;
	ret->ts_ns = prev_ns + dt;
	ret->tid = tid;
	ret->func = (uint32_t)func;
	ret->wait_ns = wait;
	ret->object = le64_get(p);
	ret->stack_id = le64_get(p + 8);
	return 0;
}

int record_decode_sync_acq(const struct exp_record *r, uint64_t prev_ns, uint32_t tid,
			   struct exp_sync_acq *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t dt, func;
	if (r->kind != EXP_REC_SYNC_ACQ)
		return -EBADMSG;
	if (!(p = varint_get(p, end, &dt)) || !(p = varint_get(p, end, &func)) || end - p != 16 ||
	    func >= EXP_SYNC_FUNC_LIMIT)
		return -EBADMSG;
	ret->ts_ns = prev_ns + dt;
	ret->tid = tid;
	ret->func = (uint32_t)func;
	ret->object = le64_get(p);
	ret->stack_id = le64_get(p + 8);
	return 0;
}

int record_decode_sync_count(const struct exp_record *r, struct exp_sync_count *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	if (r->kind != EXP_REC_SYNC_COUNT || end - p < 8)
		return -EBADMSG;
	ret->object = le64_get(p);
	p += 8;
	if (!(p = varint_get(p, end, &ret->acquisitions)) || !(p = varint_get(p, end, &ret->sample_every)) ||
	    p != end || ret->sample_every == 0)
		return -EBADMSG;
	return 0;
}

const char *record_sync_func_name(unsigned func)
{
	static const char *const names[EXP_SYNC_FUNC_LIMIT] = {
		[EXP_SYNC_MUTEX_LOCK] = "pthread_mutex_lock",
		[EXP_SYNC_MUTEX_TIMEDLOCK] = "pthread_mutex_timedlock",
		[EXP_SYNC_MUTEX_CLOCKLOCK] = "pthread_mutex_clocklock",
		[EXP_SYNC_COND_WAIT] = "pthread_cond_wait",
		[EXP_SYNC_COND_TIMEDWAIT] = "pthread_cond_timedwait",
		[EXP_SYNC_COND_CLOCKWAIT] = "pthread_cond_clockwait",
		[EXP_SYNC_RWLOCK_RDLOCK] = "pthread_rwlock_rdlock",
		[EXP_SYNC_RWLOCK_WRLOCK] = "pthread_rwlock_wrlock",
		[EXP_SYNC_RWLOCK_TIMEDRDLOCK] = "pthread_rwlock_timedrdlock",
		[EXP_SYNC_RWLOCK_TIMEDWRLOCK] = "pthread_rwlock_timedwrlock",
		[EXP_SYNC_RWLOCK_CLOCKRDLOCK] = "pthread_rwlock_clockrdlock",
		[EXP_SYNC_RWLOCK_CLOCKWRLOCK] = "pthread_rwlock_clockwrlock",
		[EXP_SYNC_BARRIER_WAIT] = "pthread_barrier_wait",
		[EXP_SYNC_JOIN] = "pthread_join",
		[EXP_SYNC_TIMEDJOIN] = "pthread_timedjoin_np",
		[EXP_SYNC_CLOCKJOIN] = "pthread_clockjoin_np",
		[EXP_SYNC_SEM_WAIT] = "sem_wait",
		[EXP_SYNC_SEM_TIMEDWAIT] = "sem_timedwait",
		[EXP_SYNC_SEM_CLOCKWAIT] = "sem_clockwait",
		[EXP_SYNC_SPIN_LOCK] = "pthread_spin_lock",
		[EXP_SYNC_MTX_LOCK] = "mtx_lock",
		[EXP_SYNC_MTX_TIMEDLOCK] = "mtx_timedlock",
		[EXP_SYNC_CND_WAIT] = "cnd_wait",
		[EXP_SYNC_CND_TIMEDWAIT] = "cnd_timedwait",
		[EXP_SYNC_THRD_JOIN] = "thrd_join",
	};
	return func < EXP_SYNC_FUNC_LIMIT ? names[func] : "?";
}

int record_decode_io(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_io *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t dt, dur, func, fd, vfd, bytes, err;
	if (r->kind != EXP_REC_IO)
		return -EBADMSG;
	if (!(p = varint_get(p, end, &dt)) || !(p = varint_get(p, end, &dur)) ||
	    !(p = varint_get(p, end, &func)) || !(p = varint_get(p, end, &fd)) ||
	    !(p = varint_get(p, end, &vfd)) || !(p = varint_get(p, end, &bytes)) ||
	    !(p = varint_get(p, end, &err)) || end - p != 8 || func >= EXP_IO_FUNC_LIMIT)
		return -EBADMSG;
	int64_t sfd = unzigzag(fd);
	if (sfd < -1 || sfd > INT32_MAX || vfd > UINT32_MAX || err > UINT32_MAX)
		return -EBADMSG;
	ret->ts_ns = prev_ns + dt;
	ret->tid = tid;
	ret->func = (uint32_t)func;
	ret->dur_ns = dur;
	ret->fd = (int32_t)sfd;
	ret->vfd = (uint32_t)vfd;
	ret->bytes = bytes;
	ret->err = (uint32_t)err;
	ret->stack_id = le64_get(p);
	return 0;
}

int record_decode_io_file(const struct exp_record *r, struct exp_io_file *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t vfd, fd, origin, how;
	if (r->kind != EXP_REC_IO_FILE)
		return -EBADMSG;
	if (!(p = varint_get(p, end, &vfd)) || !(p = varint_get(p, end, &fd)) ||
	    !(p = varint_get(p, end, &origin)) || !(p = varint_get(p, end, &how)) || how >= EXP_IO_HOW_LIMIT)
		return -EBADMSG;
	int64_t sfd = unzigzag(fd);
	if (vfd == 0 || vfd > UINT32_MAX || origin > UINT32_MAX || sfd < -1 || sfd > INT32_MAX)
		return -EBADMSG;
	ret->vfd = (uint32_t)vfd;
	ret->fd = (int32_t)sfd;
	ret->origin = (uint32_t)origin;
	ret->how = (uint32_t)how;
	ret->name = (const char *)p;
	ret->name_bytes = (uint32_t)(end - p);
	return 0;
}

const char *record_io_func_name(unsigned func)
{
	static const char *const names[EXP_IO_FUNC_LIMIT] = {
		[EXP_IO_OPEN] = "open",
		[EXP_IO_OPEN64] = "open64",
		[EXP_IO_OPENAT] = "openat",
		[EXP_IO_OPENAT64] = "openat64",
		[EXP_IO_CREAT] = "creat",
		[EXP_IO_CREAT64] = "creat64",
		[EXP_IO_CLOSE] = "close",
		[EXP_IO_READ] = "read",
		[EXP_IO_WRITE] = "write",
		[EXP_IO_PREAD] = "pread",
		[EXP_IO_PREAD64] = "pread64",
		[EXP_IO_PWRITE] = "pwrite",
		[EXP_IO_PWRITE64] = "pwrite64",
		[EXP_IO_READV] = "readv",
		[EXP_IO_WRITEV] = "writev",
		[EXP_IO_LSEEK] = "lseek",
		[EXP_IO_LSEEK64] = "lseek64",
		[EXP_IO_FSYNC] = "fsync",
		[EXP_IO_FDATASYNC] = "fdatasync",
		[EXP_IO_DUP] = "dup",
		[EXP_IO_DUP2] = "dup2",
		[EXP_IO_DUP3] = "dup3",
		[EXP_IO_PIPE] = "pipe",
		[EXP_IO_PIPE2] = "pipe2",
		[EXP_IO_SOCKET] = "socket",
		[EXP_IO_SOCKETPAIR] = "socketpair",
		[EXP_IO_ACCEPT] = "accept",
		[EXP_IO_CONNECT] = "connect",
		[EXP_IO_SEND] = "send",
		[EXP_IO_RECV] = "recv",
		[EXP_IO_SENDTO] = "sendto",
		[EXP_IO_RECVFROM] = "recvfrom",
		[EXP_IO_COPY_FILE_RANGE] = "copy_file_range",
		[EXP_IO_SENDFILE] = "sendfile",
		[EXP_IO_SENDFILE64] = "sendfile64",
		[EXP_IO_PREADV] = "preadv",
		[EXP_IO_PREADV64] = "preadv64",
		[EXP_IO_PWRITEV] = "pwritev",
		[EXP_IO_PWRITEV64] = "pwritev64",
		[EXP_IO_PREADV2] = "preadv2",
		[EXP_IO_PREADV64V2] = "preadv64v2",
		[EXP_IO_PWRITEV2] = "pwritev2",
		[EXP_IO_PWRITEV64V2] = "pwritev64v2",
		[EXP_IO_SENDMSG] = "sendmsg",
		[EXP_IO_RECVMSG] = "recvmsg",
		[EXP_IO_FOPEN] = "fopen",
		[EXP_IO_FOPEN64] = "fopen64",
		[EXP_IO_FDOPEN] = "fdopen",
		[EXP_IO_FREOPEN] = "freopen",
		[EXP_IO_FREOPEN64] = "freopen64",
		[EXP_IO_FCLOSE] = "fclose",
		[EXP_IO_FREAD] = "fread",
		[EXP_IO_FWRITE] = "fwrite",
		[EXP_IO_FGETS] = "fgets",
		[EXP_IO_FPUTS] = "fputs",
		[EXP_IO_FPRINTF] = "fprintf",
		[EXP_IO_VFPRINTF] = "vfprintf",
		[EXP_IO_GETLINE] = "getline",
		[EXP_IO_GETDELIM] = "getdelim",
		[EXP_IO_PRINTF] = "printf",
		[EXP_IO_VPRINTF] = "vprintf",
		[EXP_IO_PUTS] = "puts",
		[EXP_IO_FFLUSH] = "fflush",
		[EXP_IO_TMPFILE] = "tmpfile",
		[EXP_IO_TMPFILE64] = "tmpfile64",
		[EXP_IO_FREAD_UNLOCKED] = "fread_unlocked",
		[EXP_IO_FWRITE_UNLOCKED] = "fwrite_unlocked",
		[EXP_IO_FGETS_UNLOCKED] = "fgets_unlocked",
		[EXP_IO_FPUTS_UNLOCKED] = "fputs_unlocked",
		[EXP_IO_MKSTEMP] = "mkstemp",
		[EXP_IO_MKSTEMP64] = "mkstemp64",
		[EXP_IO_MKOSTEMP] = "mkostemp",
		[EXP_IO_MKOSTEMP64] = "mkostemp64",
		[EXP_IO_MKSTEMPS] = "mkstemps",
		[EXP_IO_MKSTEMPS64] = "mkstemps64",
		[EXP_IO_MKOSTEMPS] = "mkostemps",
		[EXP_IO_MKOSTEMPS64] = "mkostemps64",
		[EXP_IO_LLSEEK] = "llseek",
		[EXP_IO_FPUTC] = "fputc",
		[EXP_IO_PUTC] = "putc",
		[EXP_IO_PUTCHAR] = "putchar",
		[EXP_IO_FGETC] = "fgetc",
		[EXP_IO_GETC] = "getc",
		[EXP_IO_GETCHAR] = "getchar",
	};
	return func < EXP_IO_FUNC_LIMIT ? names[func] : "?";
}

enum exp_io_class record_io_class(unsigned func)
{
	switch (func) {
	case EXP_IO_READ:
	case EXP_IO_PREAD:
	case EXP_IO_PREAD64:
	case EXP_IO_READV:
	case EXP_IO_RECV:
	case EXP_IO_RECVFROM:
	case EXP_IO_PREADV:
	case EXP_IO_PREADV64:
	case EXP_IO_PREADV2:
	case EXP_IO_PREADV64V2:
	case EXP_IO_RECVMSG:
	case EXP_IO_FREAD:
	case EXP_IO_FREAD_UNLOCKED:
	case EXP_IO_FGETS:
	case EXP_IO_FGETS_UNLOCKED:
	case EXP_IO_GETLINE:
	case EXP_IO_GETDELIM:
	case EXP_IO_FGETC:
	case EXP_IO_GETC:
	case EXP_IO_GETCHAR: return EXP_IO_CLASS_READ;
	case EXP_IO_WRITE:
	case EXP_IO_PWRITE:
	case EXP_IO_PWRITE64:
	case EXP_IO_WRITEV:
	case EXP_IO_SEND:
	case EXP_IO_SENDTO:
	case EXP_IO_PWRITEV:
	case EXP_IO_PWRITEV64:
	case EXP_IO_PWRITEV2:
	case EXP_IO_PWRITEV64V2:
	case EXP_IO_SENDMSG:
	case EXP_IO_FWRITE:
	case EXP_IO_FWRITE_UNLOCKED:
	case EXP_IO_FPUTS:
	case EXP_IO_FPUTS_UNLOCKED:
	case EXP_IO_FPRINTF:
	case EXP_IO_VFPRINTF:
	case EXP_IO_PRINTF:
	case EXP_IO_VPRINTF:
	case EXP_IO_PUTS:
	case EXP_IO_FPUTC:
	case EXP_IO_PUTC:
	case EXP_IO_PUTCHAR: return EXP_IO_CLASS_WRITE;
	case EXP_IO_COPY_FILE_RANGE:
	case EXP_IO_SENDFILE:
	case EXP_IO_SENDFILE64: return EXP_IO_CLASS_COPY;
	default: return EXP_IO_CLASS_OTHER;
	}
}

size_t record_encode_hwc(uint8_t *buf, size_t room, uint64_t prev_ns, const struct exp_hwc *h)
{
	uint8_t tmp[3 * VARINT_MAX_BYTES + 8];
	size_t n = 0;
	n += varint_put(tmp + n, h->ts_ns >= prev_ns ? h->ts_ns - prev_ns : 0);
	n += varint_put(tmp + n, h->counter);
	n += varint_put(tmp + n, h->overflows);
	le64_put(tmp + n, h->stack_id);
	n += 8;
	return finish(buf, room, tmp, n);
}

int record_decode_hwc(const struct exp_record *r, uint64_t prev_ns, uint32_t tid, struct exp_hwc *ret)
{
	const uint8_t *p = r->payload, *end = p + r->payload_bytes;
	uint64_t dt, counter, overflows;
	if (r->kind != EXP_REC_HWC)
		return -EBADMSG;
	if (!(p = varint_get(p, end, &dt)) || !(p = varint_get(p, end, &counter)) ||
	    !(p = varint_get(p, end, &overflows)) || end - p != 8 || counter >= EXP_HWC_MAX_COUNTERS ||
	    overflows == 0)
		return -EBADMSG;
	ret->ts_ns = prev_ns + dt;
	ret->tid = tid;
	ret->counter = (uint32_t)counter;
	ret->overflows = overflows;
	ret->stack_id = le64_get(p);
	return 0;
}
