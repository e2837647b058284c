/*
 * profile_heap.c - replay of each experiment's heap calls (time order,
 * all threads) into per-stack allocations, leaks, temporaries and the peak
 * of live memory; the semantics are in profile_heap.h.  Live blocks are
 * found by address in an open-addressing table with backward-shift
 * deletion, mmap'd ranges in a small list (munmap may cut them); one pass
 * counts, a second replays up to the peak to see who holds memory there;
 * the same replay, one call at a time, gives the live bytes over time
 * (profile_heap_live_*).  Cost O(heap events).
 */
#include "analysis/profile_heap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/heap_pack.h"
#include "analysis/profile_internal.h"
#include "common/vec.h"
#include "experiment/format.h"

static const uint64_t class_limit[HEAP_SIZE_CLASSES - 1] = {
	1ull << 10,  8ull << 10,   32ull << 10, 128ull << 10, 256ull << 10, 512ull << 10, 1000ull << 10,
	10ull << 20, 100ull << 20, 1ull << 30,  10ull << 30,  100ull << 30, 1ull << 40,
};
static const char *const class_label[HEAP_SIZE_CLASSES] = {
	"0KB - 1KB",     "1KB - 8KB",      "8KB - 32KB",    "32KB - 128KB", "128KB - 256KB",
	"256KB - 512KB", "512KB - 1000KB", "1000KB - 10MB", "10MB - 100MB", "100MB - 1GB",
	"1GB - 10GB",    "10GB - 100GB",   "100GB - 1TB",   "1TB - 10TB",
};

size_t heap_size_class(uint64_t bytes)
{
	size_t c = 0;
	while (c < HEAP_SIZE_CLASSES - 1 && bytes > class_limit[c])
		c++;
	return c;
}

const char *heap_size_class_label(size_t cls)
{
	return cls < HEAP_SIZE_CLASSES ? class_label[cls] : "?";
}

/* ------------------------------------------------------------ address table */

struct amap {
	uint64_t *keys; /* 0 = empty (address 0 is never a block) */
	uint32_t *vals;
	size_t cap, count;
};

static size_t amap_hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static int amap_grow(struct amap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 1024;
	uint64_t *nk = calloc(ncap, sizeof *nk);
	uint32_t *nv = malloc(ncap * sizeof *nv);
	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = amap_hash(m->keys[i], ncap);
		while (nk[j])
			j = (j + 1) & (ncap - 1);
		nk[j] = m->keys[i];
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = ncap;
	return 0;
}

/* Slot of key, or SIZE_MAX. */
static size_t amap_find(const struct amap *m, uint64_t k)
{
	if (!m->cap)
		return SIZE_MAX;
	for (size_t j = amap_hash(k, m->cap);; j = (j + 1) & (m->cap - 1)) {
		if (m->keys[j] == k)
			return j;
		if (!m->keys[j])
			return SIZE_MAX;
	}
}

static int amap_put(struct amap *m, uint64_t k, uint32_t v)
{
	if ((m->count + 1) * 2 > m->cap && amap_grow(m) < 0)
		return -ENOMEM;
	size_t j = amap_hash(k, m->cap);
	while (m->keys[j] && m->keys[j] != k)
		j = (j + 1) & (m->cap - 1);
	if (!m->keys[j])
		m->count++;
	m->keys[j] = k;
	m->vals[j] = v;
	return 0;
}

static void amap_del_slot(struct amap *m, size_t j)
{
	size_t mask = m->cap - 1;
	m->keys[j] = 0;
	m->count--;
	for (size_t i = (j + 1) & mask; m->keys[i]; i = (i + 1) & mask) {
		size_t h = amap_hash(m->keys[i], m->cap);
		/* move i back to j if its home h is not in (j, i] */
		if ((i > j && (h <= j || h > i)) || (i < j && h <= j && h > i)) {
			m->keys[j] = m->keys[i];
			m->vals[j] = m->vals[i];
			m->keys[i] = 0;
			j = i;
		}
	}
}

/* ------------------------------------------------------------ replay */

struct blk {
	uint64_t size;
	uint64_t ts_ns; /* when it was allocated */
	uint32_t stack, thread;
	uint8_t live;
};

struct mapping {
	uint64_t addr, size;
	uint64_t ts_ns; /* when it was mapped */
	uint32_t stack, thread, origin;
	uint8_t primary; /* the piece that stands for the whole mapping */
};

struct sim {
	const struct profile *p;
	size_t x; /* the experiment's index in p */
	const struct experiment *exp;
	struct heap_stack_stat *st;
	struct heap_summary *sum; /* NULL in the replay up to the peak */
	struct amap map;
	VEC(struct blk) blks;
	VEC(uint32_t) spare;
	VEC(struct mapping) maps;
	uint64_t *last; /* per thread: its last allocation's address, 0 = none since its last release */
	uint64_t live, peak, peak_ns;
	size_t peak_idx;
	uint32_t origins;
	heap_charge_fn charge; /* profile_heap_charges: told of each allocation and leak counted */
	void *charge_arg;
	int charge_err; /* the first negative return of charge; stops the replay */
};

static void tell(struct sim *s, enum heap_charge_kind kind, uint32_t stack, uint32_t thread, uint64_t bytes,
		 uint64_t ts_ns)
{
	if (s->charge && !s->charge_err)
		s->charge_err = s->charge(s->charge_arg, kind, stack, thread, bytes, ts_ns);
}

/* 1 if a call of thread at ts_ns counts (profile_event_selected: no CPU recorded). */
static int counted(const struct sim *s, uint32_t thread, uint64_t ts_ns)
{
	return profile_event_selected(s->p, s->x, thread, PROFILE_NO_CPU, ts_ns);
}

static void count_alloc(struct sim *s, uint32_t stack, uint32_t thread, uint64_t size, uint64_t ts_ns)
{
	if (!s->sum || !counted(s, thread, ts_ns))
		return;
	tell(s, HEAP_CHARGE_ALLOC, stack, thread, size, ts_ns);
	struct heap_summary *h = s->sum;
	s->st[stack].alloc_count++;
	s->st[stack].alloc_bytes += size;
	if (!h->alloc_count || size < h->alloc_min_bytes)
		h->alloc_min_bytes = size;
	if (size > h->alloc_max_bytes)
		h->alloc_max_bytes = size;
	h->alloc_count++;
	h->alloc_bytes += size;
	h->alloc_classes[heap_size_class(size)]++;
}

static void count_temp(struct sim *s, uint32_t stack, uint32_t thread, uint64_t size, uint64_t ts_ns)
{
	if (!s->sum || !counted(s, thread, ts_ns))
		return;
	s->st[stack].temp_count++;
	s->st[stack].temp_bytes += size;
	s->sum->temp_count++;
	s->sum->temp_bytes += size;
}

static void count_leak(struct sim *s, uint32_t stack, uint32_t thread, uint64_t size, uint64_t count,
		       uint64_t ts_ns)
{
	if (!counted(s, thread, ts_ns))
		return;
	tell(s, HEAP_CHARGE_LEAK, stack, thread, size, 0);
	struct heap_summary *h = s->sum;
	s->st[stack].leak_count += count;
	s->st[stack].leak_bytes += size;
	if (!count)
		return;
	if (!h->leak_count || size < h->leak_min_bytes)
		h->leak_min_bytes = size;
	if (size > h->leak_max_bytes)
		h->leak_max_bytes = size;
	h->leak_count++;
	h->leak_bytes += size;
	h->leak_classes[heap_size_class(size)]++;
}

/* Release the live block in table slot j; tmp = it was its thread's last allocation. */
static int release_slot(struct sim *s, size_t j, uint32_t thread)
{
	uint32_t bi = s->map.vals[j];
	struct blk *b = &s->blks.v[bi];
	if (s->last[thread] == s->map.keys[j])
		count_temp(s, b->stack, b->thread, b->size, b->ts_ns);
	s->live -= b->size;
	b->live = 0;
	amap_del_slot(&s->map, j);
	if (s->sum)
		s->sum->free_count++;
	return VEC_PUSH(&s->spare, bi) < 0 ? -ENOMEM : 0;
}

static int release_addr(struct sim *s, uint64_t addr, uint32_t thread)
{
	if (!addr)
		return 0;
	size_t j = amap_find(&s->map, addr);
	int r = 0;
	if (j == SIZE_MAX) {
		if (s->sum)
			s->sum->unknown_free_count++;
	} else {
		r = release_slot(s, j, thread);
	}
	s->last[thread] = 0;
	return r;
}

/* Give the primary role of a removed piece to another piece of its mapping. */
static void pass_primary(struct sim *s, uint32_t origin)
{
	for (size_t k = 0; k < s->maps.n; k++)
		if (s->maps.v[k].origin == origin) {
			s->maps.v[k].primary = 1;
			return;
		}
}

/* Unmap [addr, addr + len); returns 1 if it overlapped a mapping, or -ENOMEM. */
static int unmap_range(struct sim *s, uint64_t addr, uint64_t len, uint32_t thread)
{
	uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
	int found = 0;
	for (size_t j = s->maps.n; j-- > 0;) {
		struct mapping *m = &s->maps.v[j];
		uint64_t ms = m->addr, me = m->addr + m->size;
		if (me <= addr || ms >= end)
			continue;
		found = 1;
		uint64_t lo = ms > addr ? ms : addr, hi = me < end ? me : end;
		s->live -= hi - lo;
		if (lo == ms && hi == me) {
			struct mapping gone = *m;
			if (gone.primary && s->last[thread] == ms)
				count_temp(s, gone.stack, gone.thread, gone.size, gone.ts_ns);
			s->maps.v[j] = s->maps.v[s->maps.n - 1];
			s->maps.n--;
			if (gone.primary)
				pass_primary(s, gone.origin);
		} else if (lo == ms) {
			m->addr = hi;
			m->size = me - hi;
		} else if (hi == me) {
			m->size = lo - ms;
		} else {
			struct mapping tail = *m;
			m->size = lo - ms;
			tail.addr = hi;
			tail.size = me - hi;
			tail.primary = 0;
			if (VEC_PUSH(&s->maps, tail) < 0)
				return -ENOMEM;
		}
	}
	return found;
}

static int allocate(struct sim *s, const struct exp_heap_event *ev, size_t i)
{
	uint64_t addr = ev->addr, size = ev->size_bytes;
	if (!addr) {
		if (s->sum)
			s->sum->failed_count++;
		return 0;
	}
	uint32_t stack = ev->stack == EXP_HEAP_NO_STACK ? s->exp->unknown_stack : ev->stack;
	if (ev->op == EXP_HEAP_MMAP) {
		int r = unmap_range(s, addr, size, ev->thread); /* MAP_FIXED over a traced mapping */
		if (r < 0)
			return r;
		if (r && s->sum)
			s->sum->reused_count++;
		struct mapping m = {.addr = addr,
				    .size = size,
				    .stack = stack,
				    .thread = ev->thread,
				    .ts_ns = ev->ts_ns,
				    .origin = s->origins++,
				    .primary = 1};
		if (VEC_PUSH(&s->maps, m) < 0)
			return -ENOMEM;
	} else {
		size_t j = amap_find(&s->map, addr);
		if (j != SIZE_MAX) {
			uint64_t keep = s->last[ev->thread];
			s->last[ev->thread] = 0; /* not a temporary: its free was never seen */
			if (release_slot(s, j, ev->thread) < 0)
				return -ENOMEM;
			s->last[ev->thread] = keep;
			if (s->sum) {
				s->sum->reused_count++;
				s->sum->free_count--;
			}
		}
		uint32_t bi;
		if (s->spare.n) {
			bi = s->spare.v[--s->spare.n];
		} else {
			struct blk b = {0};
			if (VEC_PUSH(&s->blks, b) < 0)
				return -ENOMEM;
			bi = (uint32_t)(s->blks.n - 1);
		}
		s->blks.v[bi] = (struct blk){
			.size = size, .ts_ns = ev->ts_ns, .stack = stack, .thread = ev->thread, .live = 1};
		if (amap_put(&s->map, addr, bi) < 0)
			return -ENOMEM;
	}
	count_alloc(s, stack, ev->thread, size, ev->ts_ns);
	s->live += size;
	s->last[ev->thread] = addr;
	if (s->live > s->peak) {
		s->peak = s->live;
		s->peak_idx = i;
		s->peak_ns = ev->ts_ns;
	}
	return 0;
}

/* Replay ev, the experiment's call i (from 0). */
static int replay_one(struct sim *s, const struct exp_heap_event *ev, size_t i)
{
	int r = 0;
	switch (ev->op) {
	case EXP_HEAP_FREE: r = release_addr(s, ev->addr, ev->thread); break;
	case EXP_HEAP_MUNMAP:
		r = unmap_range(s, ev->addr, ev->size_bytes, ev->thread);
		if (r == 0 && s->sum)
			s->sum->unknown_free_count++;
		else if (r > 0 && s->sum)
			s->sum->free_count++;
		s->last[ev->thread] = 0;
		break;
	case EXP_HEAP_REALLOC:
		if (ev->old_addr)
			r = release_addr(s, ev->old_addr, ev->thread);
		if (r >= 0)
			r = allocate(s, ev, i);
		break;
	default: r = allocate(s, ev, i); break;
	}
	if (r < 0)
		return r;
	return s->charge_err;
}

/* Replay calls [0, stop). */
static int replay(struct sim *s, size_t stop)
{
	struct exp_heap_iter it;
	struct exp_heap_event ev;
	exp_heap_iter_begin(&it, EXP_ROWS(s->exp, HEAP));
	for (size_t i = 0; i < stop && exp_heap_iter_next(&it, &ev) > 0; i++) {
		int r = replay_one(s, &ev, i);
		if (r)
			return r;
	}
	return 0;
}

static void sim_release(struct sim *s)
{
	free(s->map.keys);
	free(s->map.vals);
	free(s->blks.v);
	free(s->spare.v);
	free(s->maps.v);
	free(s->last);
	memset(&s->map, 0, sizeof s->map);
	s->blks.v = NULL;
	s->spare.v = NULL;
	s->maps.v = NULL;
	s->last = NULL;
}

static int sim_init(struct sim *s, const struct profile *p, size_t x, struct heap_stack_stat *st,
		    struct heap_summary *sum)
{
	const struct experiment *exp = p->exps.v[x].exp;
	memset(s, 0, sizeof *s);
	s->p = p;
	s->x = x;
	s->exp = exp;
	s->st = st;
	s->sum = sum;
	s->last = calloc(exp->nthreads ? exp->nthreads : 1, sizeof *s->last);
	return s->last ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------ live heap over time */

struct heap_live {
	struct sim s; /* counts nothing (no summary): only the live bytes */
	struct exp_heap_iter it;
	size_t next; /* the next heap call to replay */
};

int profile_heap_live_open(const struct profile *p, size_t x, struct heap_live **ret)
{
	*ret = NULL;
	if (x >= p->exps.n)
		return -EINVAL;
	if (!EXP_PRESENT(p->exps.v[x].exp, HEAP))
		return -ENOENT;
	struct heap_live *h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	int r = sim_init(&h->s, p, x, NULL, NULL);
	if (r < 0) {
		free(h);
		return r;
	}
	exp_heap_iter_begin(&h->it, EXP_ROWS(h->s.exp, HEAP));
	*ret = h;
	return 0;
}

int profile_heap_live_next(struct heap_live *h, uint64_t *ret_ts_ns, uint64_t *ret_bytes)
{
	struct exp_heap_event ev;
	if (exp_heap_iter_next(&h->it, &ev) <= 0)
		return 0;
	int r = replay_one(&h->s, &ev, h->next++);
	if (r < 0)
		return r;
	*ret_ts_ns = ev.ts_ns;
	*ret_bytes = h->s.live;
	return 1;
}

void profile_heap_live_close(struct heap_live *h)
{
	if (!h)
		return;
	sim_release(&h->s);
	free(h);
}

/* The blocks and mappings still live at the end of a full replay are leaks. */
static void count_leaks(struct sim *s)
{
	for (size_t b = 0; b < s->blks.n; b++)
		if (s->blks.v[b].live)
			count_leak(s, s->blks.v[b].stack, s->blks.v[b].thread, s->blks.v[b].size, 1,
				   s->blks.v[b].ts_ns);
	for (size_t k = 0; k < s->maps.n; k++) {
		const struct mapping *m = &s->maps.v[k];
		if (!m->primary)
			continue;
		uint64_t bytes = 0;
		for (size_t q = 0; q < s->maps.n; q++)
			if (s->maps.v[q].origin == m->origin)
				bytes += s->maps.v[q].size;
		count_leak(s, m->stack, m->thread, bytes, 1, m->ts_ns);
	}
}

int profile_heap_charges(struct profile *p, size_t x, heap_charge_fn fn, void *arg)
{
	struct exp_slot *e = &p->exps.v[x];
	const struct experiment *exp = e->exp;
	if (!EXP_PRESENT(exp, HEAP) || !e->exp_selected)
		return 0;
	/* the same replay as heap_compute, into scratch figures */
	struct heap_summary sum = {.peak_exp = SIZE_MAX};
	struct heap_stack_stat *st = calloc(exp->nstacks ? exp->nstacks : 1, sizeof *st);
	struct sim s;
	int r = st ? sim_init(&s, p, x, st, &sum) : -ENOMEM;
	if (r < 0) {
		free(st);
		return r;
	}
	s.charge = fn;
	s.charge_arg = arg;
	r = replay(&s, EXP_COUNT(exp, HEAP));
	if (r == 0) {
		count_leaks(&s);
		r = s.charge_err;
	}
	sim_release(&s);
	free(st);
	return r;
}

/*
 * The heap module's state in a profile: the figures of the last
 * profile_compute's replays, per experiment (its per-stack array, NULL
 * without heap data or unselected) and summed.
 */
struct heap_state {
	struct heap_summary sum;
	struct heap_stack_stat **stacks; /* per experiment, nstacks of them */
	size_t nstacks;
};

static struct heap_state *heap_state_of(const struct profile *p)
{
	return profile_module_state(p, &profile_heap_module);
}

/* Replay experiment x's heap calls into the module's figures (profile_compute).  0 or -ENOMEM. */
static int heap_compute(struct profile *p, size_t x)
{
	struct heap_state *hs = heap_state_of(p);
	struct exp_slot *e = &p->exps.v[x];
	const struct experiment *exp = e->exp;
	struct heap_summary *sum = &hs->sum;
	if (x >= hs->nstacks) {
		struct heap_stack_stat **v = realloc(hs->stacks, p->exps.n * sizeof *v);
		if (!v)
			return -ENOMEM;
		for (size_t i = hs->nstacks; i < p->exps.n; i++)
			v[i] = NULL;
		hs->stacks = v;
		hs->nstacks = p->exps.n;
	}
	free(hs->stacks[x]);
	hs->stacks[x] = NULL;
	if (!EXP_PRESENT(exp, HEAP) || !e->exp_selected)
		return 0;
	sum->has_heap = 1;
	struct heap_stack_stat *st = calloc(exp->nstacks ? exp->nstacks : 1, sizeof *st);
	if (!st)
		return -ENOMEM;
	hs->stacks[x] = st;
	struct sim s;
	int r = sim_init(&s, p, x, st, sum);
	if (r < 0 || (r = replay(&s, EXP_COUNT(exp, HEAP))) < 0)
		goto out;
	count_leaks(&s);
	uint64_t peak = s.peak, peak_ns = s.peak_ns;
	size_t peak_idx = s.peak_idx;
	sim_release(&s);
	if (peak > 0) {
		if (sum->peak_exp == SIZE_MAX || peak > sum->peak_bytes) {
			sum->peak_exp = x;
			sum->peak_pid = exp->log.pid;
			sum->peak_bytes = peak;
			sum->peak_ns = peak_ns > exp->log.start_ns ? peak_ns - exp->log.start_ns : 0;
		}
		/* who holds the memory at the peak: replay up to it */
		if ((r = sim_init(&s, p, x, st, NULL)) < 0 || (r = replay(&s, peak_idx + 1)) < 0)
			goto out;
		for (size_t b = 0; b < s.blks.n; b++)
			if (s.blks.v[b].live) {
				st[s.blks.v[b].stack].peak_count++;
				st[s.blks.v[b].stack].peak_bytes += s.blks.v[b].size;
			}
		for (size_t k = 0; k < s.maps.n; k++) {
			st[s.maps.v[k].stack].peak_count += s.maps.v[k].primary;
			st[s.maps.v[k].stack].peak_bytes += s.maps.v[k].size;
		}
	}
	r = 0;
out:
	sim_release(&s);
	return r;
}

/* Forget the figures (summary and per stack) before a profile_compute. */
static void heap_reset(struct profile *p, void *vst)
{
	(void)p;
	struct heap_state *hs = vst;
	memset(&hs->sum, 0, sizeof hs->sum);
	hs->sum.peak_exp = SIZE_MAX;
	for (size_t x = 0; x < hs->nstacks; x++) {
		free(hs->stacks[x]);
		hs->stacks[x] = NULL;
	}
}

static void heap_release(void *vst)
{
	struct heap_state *hs = vst;
	for (size_t x = 0; x < hs->nstacks; x++)
		free(hs->stacks[x]);
	free(hs->stacks);
}

/* ------------------------------------------------------------ metric source */

/* Heap tracing's metrics, in the order of heap_source_values. */
static const struct metric_def heap_defs[] = {
	{"heapalloccnt", "Allocations", "Allocations", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_HEAP, 0, NULL, NULL},
	{"heapallocbytes", "Bytes Allocated", "Bytes Allocated", METRIC_UNIT_BYTES, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_HEAP, 0, NULL, NULL},
	{"heapleakcnt", "Leaks", "Leaks", METRIC_UNIT_COUNT, METRIC_FLAVORS_ALL, EXP_FILE_NAME_HEAP, 1, NULL,
	 NULL},
	{"heapleakbytes", "Bytes Leaked", "Bytes Leaked", METRIC_UNIT_BYTES, METRIC_FLAVORS_ALL,
	 EXP_FILE_NAME_HEAP, 1, NULL, NULL},
};

static int heap_present(const struct profile *p, size_t x, void *arg)
{
	(void)arg;
	return EXP_PRESENT(p->exps.v[x].exp, HEAP);
}

struct heap_charge_ctx {
	profile_charge_fn fn;
	void *arg;
};

/* A heap replay's charge as the source's: an allocation is an event, a leak the state at the end. */
static int heap_to_charge(void *arg, enum heap_charge_kind kind, uint32_t stack, uint32_t thread,
			  uint64_t bytes, uint64_t ts_ns)
{
	const struct heap_charge_ctx *h = arg;
	int leak = kind == HEAP_CHARGE_LEAK;
	uint64_t v[4] = {leak ? 0 : 1, leak ? 0 : bytes, leak, leak ? bytes : 0};
	struct profile_charge c = {
		.stack = stack, .thread = thread, .ts_ns = leak ? 0 : ts_ns, .event = !leak, .values = v};
	return h->fn(h->arg, &c);
}

static int heap_charge(struct profile *p, size_t x, profile_charge_fn fn, void *fn_arg, void *arg)
{
	(void)arg;
	struct heap_charge_ctx h = {.fn = fn, .arg = fn_arg};
	return profile_heap_charges(p, x, heap_to_charge, &h);
}

/* profile_compute's pass: the replay of the heap reports, its per-stack figures as metrics. */
static int heap_sum(struct profile *p, size_t x, uint64_t *sums, size_t stride, const size_t *cols, void *arg)
{
	(void)arg;
	int r = heap_compute(p, x);
	const struct heap_stack_stat *st = r == 0 ? heap_state_of(p)->stacks[x] : NULL;
	for (size_t s = 0; st && s < p->exps.v[x].exp->nstacks; s++) {
		uint64_t *v = sums + s * stride;
		const struct heap_stack_stat *h = &st[s];
		v[cols[0]] += h->alloc_count;
		v[cols[1]] += h->alloc_bytes;
		v[cols[2]] += h->leak_count;
		v[cols[3]] += h->leak_bytes;
	}
	return r;
}

static const struct profile_metric_source heap_source = {
	.needs = "heap data (collect -H on)",
	.defs = heap_defs,
	.ndefs = sizeof heap_defs / sizeof heap_defs[0],
	.present = heap_present,
	.charge = heap_charge,
	.sum = heap_sum,
};

const struct profile_module profile_heap_module = {
	.source = &heap_source,
	.state_bytes = sizeof(struct heap_state),
	.reset = heap_reset,
	.release = heap_release,
};

const struct heap_stack_stat *profile_heap_stack(const struct profile *p, size_t x, uint32_t s)
{
	const struct heap_state *hs = heap_state_of(p);
	if (x >= p->exps.n || x >= hs->nstacks || !hs->stacks[x] || s >= p->exps.v[x].exp->nstacks)
		return NULL;
	return &hs->stacks[x][s];
}

const struct heap_summary *profile_heap_summary(const struct profile *p)
{
	return &heap_state_of(p)->sum;
}

int profile_stack_pcs(struct profile *p, size_t x, uint32_t s, const uint32_t **ret)
{
	if (x >= p->exps.n || s >= p->exps.v[x].exp->nstacks)
		return -EINVAL;
	struct exp_slot *e = &p->exps.v[x];
	if (profile_resolve_stack(p, e, s) < 0)
		return -ENOMEM;
	*ret = e->stacks[s].pcs;
	return (int)e->stacks[s].npcs;
}
