/*
 * unwind.c - call stacks from the signal context, by the unwind tables of
 * unwtab.h (x86-64; shared/reference/unwinding-research.md section 7.4).
 *
 * Per frame: look the rule up at pc (frame 0, and the frame a signal frame
 * restores) or pc - 1 (return addresses), compute the CFA, read the return
 * address at CFA - 8 and the caller's %rbp and %rbx where the rule says they
 * were saved (%rbx only for the rare CFA based on it: ld.so's trampolines).
 * Where no table covers pc the frame-pointer rule applies ([fp] = caller's fp,
 * [fp + 8] = return address) if %rbp points into the stack.  Special rules:
 * PLT stubs (CFA from the stub's offset), signal trampolines (__restore_rt:
 * the interrupted registers are in the ucontext at sp + 40), and the
 * epilogue quirk (after `pop %rbp` GCC still says %rbp is saved at CFA - 16,
 * a slot now below sp: keep %rbp).  Go code has rows from its pclntab
 * (gopcln.h): stack tops end the walk, stack switches stop it.  Every stack
 * read is bounds-checked against [sp, top) of the stack that holds sp (the
 * thread's, the running goroutine's, the signal stack, or else pages checked
 * readable one by one: stack_holding) and
 * the CFA must grow on one stack, so a walk never faults and ends; where it
 * cannot go on, the stack is marked truncated, never guessed.  SIGNAL_SAFE:
 * reads only the stacks, the running g's first two words, and the
 * collector's own tables.
 */
#include "collector/unwind.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collector/unwtab.h"
#include "experiment/format.h"

/* The per-frame helpers are inlined into the walk whatever its size. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Offset of uc_mcontext.gregs in the ucontext a signal frame pushes (x86-64). */
#define SIGFRAME_GREGS (offsetof(ucontext_t, uc_mcontext.gregs))

/* Where fp or bx came from, for the memo: the start's register, or a memo read's index. */
#define SRC_START (-1)

struct regs {
	uint64_t pc, sp, fp, bx;
	int bx_ok;          /* bx is the frame's %rbx (else unknown: a CFA from it cannot be computed) */
	int fp_src, bx_src; /* SRC_START or the index of the memo read that gave fp, bx */
	struct unwind_memo *memo;
};

/* ------------------------------------------------------------ the stack a walk reads */

/*
 * Where the walk may read: [lo, hi) holds the frames, and every read is of
 * an aligned word in [the frame's sp, hi).  The kinds are the stacks a
 * thread runs on: its own, the running goroutine's (Go: in the Go heap,
 * outside the thread's), or the signal stack it handles a signal on.
 */
enum stack_kind { STACK_NONE, STACK_THREAD, STACK_GO, STACK_SIGNAL, STACK_PROBED };

struct stack {
	uint64_t lo, hi;
	int kind;
	uint64_t probe_lim; /* STACK_PROBED: hi grows page by page up to this */
};

/* A stack nothing describes is read only in pages checked first, at most this many a walk. */
#define PROBE_PAGES_MAX 64u
#define PAGE_SIZE_X86 4096u

/* At most this many changes of stack (signal frames) in one walk: a walk always ends. */
#define STACK_SWITCHES_MAX 4

/* A goroutine's stack is at most 1 GB (the runtime's default limit on 64-bit). */
#define GO_STACK_MAX (1ull << 30)

static uint64_t load(uint64_t addr);

/* The word at offset off (< 0) from the thread pointer: in this thread's static TLS. */
static uint64_t tls_load(int64_t off)
{
	uint64_t v;
	__asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(off));
	return v;
}

/*
 * The running goroutine's stack, if it holds sp.  Go keeps a pointer to the
 * running g in TLS (runtime.tlsg), 0 or a live g: its first words are the
 * stack's [lo, hi) (an offset fixed for runtime/cgo).  The runtime moves or
 * frees a goroutine's stack only from the g0 (thread) stack, and switches g
 * and sp one instruction apart, so bounds that hold sp are the ones sp's
 * frames live in.
 */
static int go_stack(const struct unwtab_snap *snap, uint64_t sp, struct stack *ret)
{
	for (uint32_t i = 0; snap && i < snap->ngo; i++) {
		uint64_t g = tls_load(snap->go_g_tls[i]);
		if (!g || (g & 7) || g < 4096)
			continue;
		uint64_t lo = load(g), hi = load(g + 8);
		if (lo < hi && hi - lo <= GO_STACK_MAX && sp >= lo && sp < hi) {
			*ret = (struct stack){lo, hi, STACK_GO, 0};
			return 1;
		}
	}
	return 0;
}

/* The signal stack the thread is on, if it holds sp (a handler on sigaltstack(2)'s stack). */
static int signal_stack(uint64_t sp, struct stack *ret)
{
	stack_t ss;
	int saved = errno; /* a tracer's walk runs inside the program's call */
	long r = syscall(SYS_sigaltstack, NULL, &ss);
	errno = saved;
	if (r != 0 || (ss.ss_flags & SS_DISABLE))
		return 0;
	uint64_t lo = (uint64_t)(uintptr_t)ss.ss_sp, hi = lo + ss.ss_size;
	if (sp < lo || sp >= hi || hi < lo)
		return 0;
	*ret = (struct stack){lo, hi, STACK_SIGNAL, 0};
	return 1;
}

/*
 * 1 if the page at `page` can be read.  The kernel reads it for us:
 * process_vm_readv on this process fails with EFAULT on an unmapped or
 * PROT_NONE page instead of faulting (two system calls).
 */
static int page_readable(uint64_t page)
{
	uint64_t word;
	struct iovec l = {&word, 8}, r = {(void *)(uintptr_t)page, 8};
	int saved = errno;
	long n = syscall(SYS_process_vm_readv, syscall(SYS_getpid), &l, 1L, &r, 1L, 0L);
	errno = saved;
	return n == 8;
}

/*
 * A stack nothing describes (a coroutine's, a clone child's own, a goroutine's
 * caught between its g and its sp): from sp's page, if it can be read, then
 * page by page as the walk reaches them.
 */
static int probed_stack(uint64_t sp, struct stack *ret)
{
	uint64_t page = sp & ~(uint64_t)(PAGE_SIZE_X86 - 1);
	if (page < PAGE_SIZE_X86 || page > UINT64_MAX - (PROBE_PAGES_MAX + 1) * PAGE_SIZE_X86 ||
	    !page_readable(page))
		return 0;
	*ret = (struct stack){page, page + PAGE_SIZE_X86, STACK_PROBED,
			      page + PROBE_PAGES_MAX * PAGE_SIZE_X86};
	return 1;
}

/* The stack holding sp, or STACK_NONE (then nothing is read). */
static struct stack stack_holding(const struct unwind_thread *t, const struct unwtab_snap *snap, uint64_t sp)
{
	struct stack st = {0, 0, STACK_NONE, 0};
	if (sp >= t->stack_lo && sp < t->stack_hi)
		st = (struct stack){t->stack_lo, t->stack_hi, STACK_THREAD, 0};
	else if (!go_stack(snap, sp, &st) && !signal_stack(sp, &st))
		probed_stack(sp, &st);
	return st;
}

/* The top of a probed stack grown page by page (each checked) until it covers need, or as far as it can. */
static uint64_t probe_up(uint64_t hi, uint64_t lim, uint64_t need)
{
	while (need > hi && hi < lim && page_readable(hi))
		hi += PAGE_SIZE_X86;
	return hi;
}

/*
 * [addr, addr + bytes) is aligned, at or above lo (the frame's sp) and in
 * the stack; a probed stack's top grows to take it if its pages can be read.
 * (hi > lo >= 4096, bytes <= 16: hi - bytes does not wrap.)
 */
ALWAYS_INLINE int in_stack(struct stack *st, uint64_t lo, uint64_t addr, uint64_t bytes)
{
	if (!(addr & 7) && addr >= lo && addr <= st->hi - bytes)
		return 1;
	if (st->kind != STACK_PROBED || (addr & 7) || addr < lo || addr > UINT64_MAX - bytes)
		return 0;
	st->hi = probe_up(st->hi, st->probe_lim, addr + bytes);
	return addr + bytes <= st->hi;
}

static uint64_t load(uint64_t addr)
{
	return *(const volatile uint64_t *)(uintptr_t)addr;
}

enum step { STEP_OK, STEP_END, STEP_STOP };

/* ------------------------------------------------------------ the memo */

/*
 * The walk's steps are compiled twice (ALWAYS_INLINE, `on` a constant): with
 * the memo, and without it for the sampling handler, which pays nothing.
 */

/* Note the read of v at addr; returns its index (not yet needed), or -2. */
ALWAYS_INLINE int memo_read(const struct regs *r, uint64_t addr, uint64_t v, int on)
{
	struct unwind_memo *m = r->memo;
	if (!on)
		return -2;
	if (!m || m->nreads >= UNWIND_MEMO_READS) {
		if (m)
			m->nreads = UNWIND_MEMO_READS + 1; /* too many: the walk is not remembered */
		return -2;
	}
	m->addr[m->nreads] = addr;
	m->val[m->nreads] = v;
	return (int)m->nreads++;
}

/* The walk's result depends on the value from src (bx: a %rbx value, else %rbp). */
ALWAYS_INLINE void memo_need(const struct regs *r, int src, int bx, int on)
{
	struct unwind_memo *m = r->memo;
	if (!on || !m)
		return;
	if (src == SRC_START)
		*(bx ? &m->need_bx : &m->need_fp) = 1;
	else if (src >= 0)
		m->addr[src] |= 1; /* addresses are 8-aligned: bit 0 marks the read needed */
}

/* A read whose value the result depends on (a return address). */
ALWAYS_INLINE void memo_read_needed(const struct regs *r, uint64_t addr, uint64_t v, int on)
{
	memo_need(r, memo_read(r, addr, v, on), 0, on);
}

/* The walk is over: keep the needed reads, or forget the walk. */
static void memo_finish(struct unwind_memo *m, const ucontext_t *uc, uint32_t max, uint64_t gen)
{
	if (!m)
		return;
	if (m->nreads > UNWIND_MEMO_READS || !gen) {
		m->gen = 0;
		return;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->nreads; i++)
		if (m->addr[i] & 1) {
			m->addr[k] = m->addr[i] & ~(uint64_t)1;
			m->val[k++] = m->val[i];
		}
	m->nreads = k;
	m->pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	m->sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	m->fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	m->bx = (uint64_t)uc->uc_mcontext.gregs[REG_RBX];
	m->max = max;
	m->gen = gen;
}

int unwind_memo_holds(const struct unwind_memo *m, const ucontext_t *uc, uint32_t max)
{
	if (!m->gen || m->max != max || m->sp != (uint64_t)uc->uc_mcontext.gregs[REG_RSP] ||
	    m->pc != (uint64_t)uc->uc_mcontext.gregs[REG_RIP] ||
	    (m->need_fp && m->fp != (uint64_t)uc->uc_mcontext.gregs[REG_RBP]) ||
	    (m->need_bx && m->bx != (uint64_t)uc->uc_mcontext.gregs[REG_RBX]) ||
	    m->gen != unwtab_generation())
		return 0;
	for (uint32_t i = 0; i < m->nreads; i++)
		if (load(m->addr[i]) != m->val[i])
			return 0;
	return 1;
}

/* ------------------------------------------------------------ the walk */

/*
 * A heap trace unwinds the same few hundred PCs millions of times: each
 * thread remembers the object and rule of the PCs it met (direct-mapped),
 * which saves the two table searches and their cache misses.
 */
struct unwind_cache_entry {
	uint64_t key; /* 0: empty */
	const struct unwtab_obj *o;
	const struct cfi_rule *rule;
};
_Static_assert(sizeof(struct unwind_cache_entry) * UNWIND_CACHE_ENTRIES == UNWIND_CACHE_BYTES,
	       "UNWIND_CACHE_BYTES");

ALWAYS_INLINE void find_rule(const struct unwtab_snap *snap, struct unwind_cache_entry *cache, uint64_t key,
			     const struct unwtab_obj **ret_o, const struct cfi_rule **ret_rule)
{
	struct unwind_cache_entry *e = NULL;
	if (cache) {
		e = &cache[(key * 0x9e3779b97f4a7c15ull) >> 54];
		if (e->key == key) {
			*ret_o = e->o;
			*ret_rule = e->rule;
			return;
		}
	}
	const struct unwtab_obj *o = snap ? unwtab_find(snap, key) : NULL;
	const struct cfi_rule *rule = o && o->gotab ? cfi_lookup(o->gotab, key) : NULL;
	if (!rule && o && o->table)
		rule = cfi_lookup(o->table, key);
	if (e) {
		e->key = key;
		e->o = o;
		e->rule = rule;
	}
	*ret_o = o;
	*ret_rule = rule;
}

/*
 * A signal frame: the interrupted registers, from the kernel's ucontext above
 * sp.  The interrupted code may have run on another stack (the handler on a
 * signal stack, or Go's on its gsignal stack): *st becomes the one holding
 * the interrupted sp, if it is known.
 */
ALWAYS_INLINE enum step step_signal(const struct unwind_thread *t, const struct unwtab_snap *snap,
				    struct regs *r, int *exact, struct stack *st, int *switches)
{
	uint64_t g = r->sp + SIGFRAME_GREGS;
	uint64_t a_pc = g + 8 * REG_RIP, a_sp = g + 8 * REG_RSP, a_fp = g + 8 * REG_RBP,
		 a_bx = g + 8 * REG_RBX;
	if (r->memo)
		r->memo->nreads = UNWIND_MEMO_READS + 1; /* not remembered: rare, and many words */
	if (!in_stack(st, r->sp, a_pc, 8) || !in_stack(st, r->sp, a_sp, 8) || !in_stack(st, r->sp, a_fp, 8) ||
	    !in_stack(st, r->sp, a_bx, 8))
		return STEP_STOP;
	uint64_t sp = load(a_sp);
	if (sp < st->lo || sp >= st->hi) {
		struct stack next = stack_holding(t, snap, sp);
		if (next.kind == STACK_NONE || ++*switches > STACK_SWITCHES_MAX)
			return STEP_STOP;
		*st = next;
	} else if (sp <= r->sp) {
		return STEP_STOP;
	}
	r->pc = load(a_pc);
	r->sp = sp;
	r->fp = load(a_fp);
	r->bx = load(a_bx);
	r->bx_ok = 1;
	*exact = 1; /* the interrupted PC, not a return address */
	return r->pc ? STEP_OK : STEP_STOP;
}

/* Where a frame's CFA is and where it saved %rbp and %rbx. */
struct frame_rule {
	uint64_t cfa;
	int16_t fp_off;
	int8_t bx_slot;
};

/*
 * The frame rule of r's frame from its CFI rule (kind, rule), or without
 * CFI the frame-pointer rule.  0, or -1 when the walk cannot go on.
 */
ALWAYS_INLINE int frame_rule(int kind, const struct cfi_rule *rule, const struct regs *r, int frame0,
			     const struct unwtab_obj *o, struct stack *st, struct frame_rule *f, int on)
{
	f->fp_off = CFI_FP_SAME;
	f->bx_slot = CFI_BX_SAME;
	switch (kind) {
	case CFI_CFA_SP:
	case CFI_CFA_SP_INJECTED:
	case CFI_CFA_FP:
	case CFI_CFA_BX:
		if (kind == CFI_CFA_BX && !r->bx_ok)
			return -1;
		if (kind == CFI_CFA_FP || kind == CFI_CFA_BX)
			memo_need(r, kind == CFI_CFA_BX ? r->bx_src : r->fp_src, kind == CFI_CFA_BX, on);
		f->cfa = (kind == CFI_CFA_FP   ? r->fp
			  : kind == CFI_CFA_BX ? r->bx
					       : r->sp) +
			 (uint64_t)(int64_t)rule->cfa_off;
		f->fp_off = rule->fp_off;
		f->bx_slot = rule->bx_slot;
		return 0;
	case CFI_PLT: f->cfa = r->sp + 8 + ((r->pc & 15) >= rule->plt_threshold ? 8 : 0); return 0;
	default: /* no CFI: the frame-pointer rule, if %rbp points into the stack */
		memo_need(r, r->fp_src, 0, on);
		if (in_stack(st, r->sp, r->fp, 16)) {
			f->cfa = r->fp + 16;
			f->fp_off = -16;
			f->bx_slot = CFI_BX_UNKNOWN; /* where such a function keeps %rbx is unknown */
			return 0;
		}
		if (frame0 && !o) {
			/* code no table knows yet (a library's _init running inside dlopen,
			 * before the rescan): assume a function entry, return address at
			 * [sp]; accepted only if it returns into known code (step) */
			f->cfa = r->sp + 8;
			return 0;
		}
		return -1;
	}
}

/*
 * The caller's %rbp and %rbx (*nx: and with the memo, where they came from)
 * from their slots under f.cfa.  0, or -1 when %rbp's slot cannot be read.
 * %rbx matters only to a CFA_BX frame further up: losing it never stops the
 * walk.
 */
struct saved {
	uint64_t fp, bx;
	int bx_ok, fp_src, bx_src;
};

ALWAYS_INLINE int callee_saved(const struct regs *r, const struct frame_rule *f, int frame0, struct stack *st,
			       struct saved *nx, int on)
{
	nx->fp = r->fp;
	nx->fp_src = r->fp_src;
	if (f->fp_off != CFI_FP_SAME) {
		uint64_t slot = f->cfa + (uint64_t)(int64_t)f->fp_off;
		if (slot < r->sp && frame0) {
			/* epilogue after `pop %rbp`: %rbp already holds the caller's value */
		} else if (in_stack(st, r->sp, slot, 8)) {
			nx->fp = load(slot);
			nx->fp_src = memo_read(r, slot, nx->fp, on);
		} else {
			return -1;
		}
	}
	nx->bx = r->bx;
	nx->bx_ok = r->bx_ok;
	nx->bx_src = r->bx_src;
	if (f->bx_slot == CFI_BX_UNKNOWN) {
		nx->bx_ok = 0;
	} else if (f->bx_slot != CFI_BX_SAME) {
		uint64_t slot = f->cfa + 8 * (uint64_t)(int64_t)f->bx_slot;
		if (slot < r->sp && frame0) {
			/* epilogue after `pop %rbx`: %rbx already holds the caller's value */
		} else if (in_stack(st, r->sp, slot, 8)) {
			nx->bx = load(slot);
			nx->bx_src = memo_read(r, slot, nx->bx, on);
		} else {
			nx->bx_ok = 0;
		}
	}
	return 0;
}

/* The walk's fixed inputs. */
struct walk_ctx {
	const struct unwind_thread *t;
	const struct unwtab_snap *snap;
	struct unwind_cache_entry *cache;
};

/*
 * One frame up from r.  `exact`: r.pc is not a return address.  Returns
 * STEP_END at the outermost frame, STEP_STOP when the walk cannot go on.
 */
ALWAYS_INLINE enum step step(const struct walk_ctx *w, struct regs *r, int *exact, int frame0,
			     struct stack *st, int *switches, int on)
{
	const struct unwtab_snap *snap = w->snap;
	uint64_t key = *exact ? r->pc : r->pc - 1;
	const struct unwtab_obj *o;
	const struct cfi_rule *rule;
	find_rule(snap, w->cache, key, &o, &rule);
	int kind = rule ? rule->kind : CFI_NO_INFO;
	if (kind == CFI_OUTERMOST)
		return STEP_END;
	if (kind == CFI_STOP)
		return STEP_STOP;
	if (kind == CFI_SIGNAL)
		return step_signal(w->t, snap, r, exact, st, switches);
	struct frame_rule f;
	if (frame_rule(kind, rule, r, frame0, o, st, &f, on) < 0)
		return STEP_STOP;
	/* the return address at CFA - 8, inside the stack, above sp */
	if (f.cfa <= r->sp || !in_stack(st, r->sp, f.cfa - 8, 8))
		return STEP_STOP;
	uint64_t ra = load(f.cfa - 8);
	memo_read_needed(r, f.cfa - 8, ra, on);
	struct saved nx;
	if (callee_saved(r, &f, frame0, st, &nx, on) < 0)
		return STEP_STOP;
	if (ra == 0)
		return STEP_END; /* a null return address ends a chain too */
	if (ra < 4096 || (kind == CFI_NO_INFO && frame0 && !o && (!snap || !unwtab_find(snap, ra - 1))))
		return STEP_STOP;
	r->pc = ra;
	r->sp = f.cfa;
	r->fp = nx.fp;
	r->bx = nx.bx;
	r->bx_ok = nx.bx_ok;
	if (on) {
		r->fp_src = nx.fp_src;
		r->bx_src = nx.bx_src;
	}
	*exact = kind == CFI_CFA_SP_INJECTED; /* its return address is where the call was injected */
	return STEP_OK;
}

/* The frames above pcs[0] into pcs[1..max); *ret_s: how the walk ended. */
ALWAYS_INLINE uint32_t walk(const struct walk_ctx *w, struct regs *r, struct stack *st, uint64_t *pcs,
			    uint32_t max, enum step *ret_s, int on)
{
	uint32_t n = 1;
	int exact = 1, switches = 0;
	enum step s = STEP_OK;
	while (n < max) {
		s = step(w, r, &exact, n == 1, st, &switches, on);
		if (s != STEP_OK)
			break;
		pcs[n++] = r->pc;
	}
	*ret_s = s;
	return n;
}

uint32_t unwind_from_context(const ucontext_t *uc, struct unwind_thread *t, uint64_t *pcs, uint32_t max,
			     uint32_t *ret_flags)
{
	return unwind_from_context_memo(uc, t, pcs, max, ret_flags, NULL);
}

uint32_t unwind_from_context_memo(const ucontext_t *uc, struct unwind_thread *t, uint64_t *pcs, uint32_t max,
				  uint32_t *ret_flags, struct unwind_memo *memo)
{
	*ret_flags = EXP_STACK_TRUNCATED | EXP_STACK_FAILED;
	if (max == 0)
		return 0;
#if defined(__x86_64__)
	struct regs r = {(uint64_t)uc->uc_mcontext.gregs[REG_RIP],
			 (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
			 (uint64_t)uc->uc_mcontext.gregs[REG_RBP],
			 (uint64_t)uc->uc_mcontext.gregs[REG_RBX],
			 1,
			 SRC_START,
			 SRC_START,
			 memo};
	if (memo) {
		memo->gen = 0; /* nothing remembered while it is being filled */
		memo->nreads = 0;
		memo->need_fp = memo->need_bx = 0;
	}
#else
#error "unwind.c: only x86-64 is supported"
#endif
	const struct unwtab_snap *snap = unwtab_acquire(&t->hazard);
	struct unwind_cache_entry *cache = t->cache;
	uint64_t gen = snap ? snap->gen : 0;
	if (cache && t->cache_gen != gen) { /* new tables (dlopen, dlclose): forget */
		for (uint32_t i = 0; i < UNWIND_CACHE_ENTRIES; i++)
			cache[i].key = 0;
		t->cache_gen = gen;
	}
	struct walk_ctx w = {t, snap, cache};
	struct stack st = stack_holding(t, snap, r.sp);
	enum step s = STEP_STOP;
	uint32_t n = 1;
	pcs[0] = r.pc;
	if (memo && (st.kind == STACK_NONE || st.kind == STACK_PROBED))
		memo->nreads = UNWIND_MEMO_READS + 1; /* a replay would read unchecked pages */
	if (st.kind != STACK_NONE) {
		n = memo ? walk(&w, &r, &st, pcs, max, &s, 1) : walk(&w, &r, &st, pcs, max, &s, 0);
	}
	unwtab_release(&t->hazard);
	memo_finish(memo, uc, max, gen);
	/* stopped beyond the collector's thread-start wrapper: the program's part is whole */
	if (s == STEP_STOP && st.kind == STACK_THREAD && t->outer_fp && r.sp > t->outer_fp)
		s = STEP_END;
	if (s == STEP_END)
		*ret_flags = 0;
	else
		*ret_flags = n > 1 ? EXP_STACK_TRUNCATED : EXP_STACK_TRUNCATED | EXP_STACK_FAILED;
	return n;
}
