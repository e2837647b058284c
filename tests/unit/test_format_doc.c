/*
 * docs/experiment-format.md and experiment/format.h agree: every constant the
 * document names in a table row "| `NAME` | value |" or "| offset | `NAME` |"
 * has the code's value, and every constant of the code is documented; so do
 * the reader's bounds (common/regfile.h's sparse rule, analysis/zdata.h's
 * ceiling).
 */
#include "experiment/format.h"
#include "experiment/params.h"

#include <stdlib.h>

#include "analysis/zdata.h"
#include "common/regfile.h"

#include "tests/unit/check.h"

struct c {
	const char *name;
	unsigned long long value;
	int seen;
};

#define C(x)                                   \
	{                                      \
#x, (unsigned long long)(x), 0 \
	}
static struct c consts[] = {
	C(EXP_PARAMS_INTERVAL_MAX_US),
	C(EXP_PARAMS_DEPTH_DEFAULT),
	C(EXP_PARAMS_DEPTH_MAX),
	C(EXP_PARAMS_SAMPLE_MAX_S),
	C(EXP_PARAMS_SIGNAL_MAX),
	C(REGFILE_SPARSE_MIN_BYTES),
	C(REGFILE_SPARSE_RATIO),
	C(ZDATA_MAX_BYTES),
	C(EXP_FORMAT_VERSION_MAJOR),
	C(EXP_FORMAT_VERSION_MINOR),
	C(EXP_BLOCK_BYTES),
	C(EXP_FILE_HEADER_BYTES),
	C(EXP_BLOCK_HEADER_BYTES),
	C(EXP_BLOCK_MAGIC),
	C(EXP_MAX_FRAMES),
	C(EXP_FH_MAGIC),
	C(EXP_FH_VERSION_MAJOR),
	C(EXP_FH_VERSION_MINOR),
	C(EXP_FH_FILE_KIND),
	C(EXP_FH_BLOCK_BYTES),
	C(EXP_FH_PID),
	C(EXP_FH_START_NS),
	C(EXP_BH_MAGIC),
	C(EXP_BH_TID),
	C(EXP_BH_SEQ),
	C(EXP_BH_USED),
	C(EXP_BH_BASE_NS),
	C(EXP_REC_CLOCK),
	C(EXP_REC_THREAD_START),
	C(EXP_REC_THREAD_END),
	C(EXP_REC_STACK),
	C(EXP_REC_SAMPLE),
	C(EXP_STACK_TRUNCATED),
	C(EXP_STACK_FAILED),
	C(EXP_STACK_COLLECTOR),
	C(EXP_STACK_STARTUP),
	C(EXP_REC_STACK_SLOT),
	C(EXP_HEAP_MALLOC),
	C(EXP_HEAP_CALLOC),
	C(EXP_HEAP_REALLOC),
	C(EXP_HEAP_FREE),
	C(EXP_HEAP_MEMALIGN),
	C(EXP_HEAP_MMAP),
	C(EXP_HEAP_MUNMAP),
	C(EXP_HEAP_TIME),
	C(EXP_HEAP_OP_BITS),
	C(EXP_HEAP_SEQ_ESCAPE),
	C(EXP_HEAP_TIME_STEP_NS),
	C(EXP_HEAP_TIME_STEP_MAX_NS),
	C(EXP_HEAP_TIME_QUANTUM_NS),
	C(EXP_HEAP_RECENT_MINOR),
	C(EXP_HEAP_RECENT_ADDRS),
	C(EXP_HEAP_EVENT_MAX_BYTES),
	C(EXP_STACKREF_NONE),
	C(EXP_STACKREF_ID),
	C(EXP_STACKREF_SLOT0),
	C(EXP_REC_SYNC),
	C(EXP_SYNC_MINOR),
	C(EXP_REC_SYNC_ACQ),
	C(EXP_REC_SYNC_COUNT),
	C(EXP_SYNC_ACQ_MINOR),
	C(EXP_SYNC_ACQ_SAMPLE_EVERY),
	C(EXP_SYNC_MUTEX_LOCK),
	C(EXP_SYNC_MUTEX_TIMEDLOCK),
	C(EXP_SYNC_MUTEX_CLOCKLOCK),
	C(EXP_SYNC_COND_WAIT),
	C(EXP_SYNC_COND_TIMEDWAIT),
	C(EXP_SYNC_COND_CLOCKWAIT),
	C(EXP_SYNC_RWLOCK_RDLOCK),
	C(EXP_SYNC_RWLOCK_WRLOCK),
	C(EXP_SYNC_RWLOCK_TIMEDRDLOCK),
	C(EXP_SYNC_RWLOCK_TIMEDWRLOCK),
	C(EXP_SYNC_RWLOCK_CLOCKRDLOCK),
	C(EXP_SYNC_RWLOCK_CLOCKWRLOCK),
	C(EXP_SYNC_BARRIER_WAIT),
	C(EXP_SYNC_JOIN),
	C(EXP_SYNC_TIMEDJOIN),
	C(EXP_SYNC_CLOCKJOIN),
	C(EXP_SYNC_SEM_WAIT),
	C(EXP_SYNC_SEM_TIMEDWAIT),
	C(EXP_SYNC_SEM_CLOCKWAIT),
	C(EXP_SYNC_SPIN_LOCK),
	C(EXP_SYNC_MTX_LOCK),
	C(EXP_SYNC_MTX_TIMEDLOCK),
	C(EXP_SYNC_CND_WAIT),
	C(EXP_SYNC_CND_TIMEDWAIT),
	C(EXP_SYNC_THRD_JOIN),
	C(EXP_REC_IO),
	C(EXP_REC_IO_FILE),
	C(EXP_REC_SAMPLE_POINT),
	C(EXP_SAMPLE_START),
	C(EXP_SAMPLE_PERIODIC),
	C(EXP_SAMPLE_SIGNAL),
	C(EXP_SAMPLE_API),
	C(EXP_SAMPLE_PAUSE),
	C(EXP_SAMPLE_RESUME),
	C(EXP_SAMPLE_END),
	C(EXP_SAMPLE_LABEL_MAX),
	C(EXP_IO_MINOR),
	C(EXP_IO_STDIO_MINOR),
	C(EXP_REC_HWC),
	C(EXP_REC_CLOCK_CTX),
	C(EXP_RUNTIME_OPENMP),
	C(EXP_RUNTIME_MPI),
	C(EXP_RUNTIME_JAVA),
	C(EXP_RUNTIME_PRIVATE),
	C(EXP_CTX_IN_MPI),
	C(EXP_HWC_MINOR),
	C(EXP_HWC_MAX_COUNTERS),
	C(EXP_IO_OPEN),
	C(EXP_IO_OPEN64),
	C(EXP_IO_OPENAT),
	C(EXP_IO_OPENAT64),
	C(EXP_IO_CREAT),
	C(EXP_IO_CREAT64),
	C(EXP_IO_CLOSE),
	C(EXP_IO_READ),
	C(EXP_IO_WRITE),
	C(EXP_IO_PREAD),
	C(EXP_IO_PREAD64),
	C(EXP_IO_PWRITE),
	C(EXP_IO_PWRITE64),
	C(EXP_IO_READV),
	C(EXP_IO_WRITEV),
	C(EXP_IO_LSEEK),
	C(EXP_IO_LSEEK64),
	C(EXP_IO_FSYNC),
	C(EXP_IO_FDATASYNC),
	C(EXP_IO_DUP),
	C(EXP_IO_DUP2),
	C(EXP_IO_DUP3),
	C(EXP_IO_PIPE),
	C(EXP_IO_PIPE2),
	C(EXP_IO_SOCKET),
	C(EXP_IO_SOCKETPAIR),
	C(EXP_IO_ACCEPT),
	C(EXP_IO_CONNECT),
	C(EXP_IO_SEND),
	C(EXP_IO_RECV),
	C(EXP_IO_SENDTO),
	C(EXP_IO_RECVFROM),
	C(EXP_IO_COPY_FILE_RANGE),
	C(EXP_IO_SENDFILE),
	C(EXP_IO_SENDFILE64),
	C(EXP_IO_PREADV),
	C(EXP_IO_PREADV64),
	C(EXP_IO_PWRITEV),
	C(EXP_IO_PWRITEV64),
	C(EXP_IO_PREADV2),
	C(EXP_IO_PREADV64V2),
	C(EXP_IO_PWRITEV2),
	C(EXP_IO_PWRITEV64V2),
	C(EXP_IO_SENDMSG),
	C(EXP_IO_RECVMSG),
	C(EXP_IO_FOPEN),
	C(EXP_IO_FOPEN64),
	C(EXP_IO_FDOPEN),
	C(EXP_IO_FREOPEN),
	C(EXP_IO_FREOPEN64),
	C(EXP_IO_FCLOSE),
	C(EXP_IO_FREAD),
	C(EXP_IO_FWRITE),
	C(EXP_IO_FGETS),
	C(EXP_IO_FPUTS),
	C(EXP_IO_FPRINTF),
	C(EXP_IO_VFPRINTF),
	C(EXP_IO_GETLINE),
	C(EXP_IO_GETDELIM),
	C(EXP_IO_PRINTF),
	C(EXP_IO_VPRINTF),
	C(EXP_IO_PUTS),
	C(EXP_IO_FFLUSH),
	C(EXP_IO_TMPFILE),
	C(EXP_IO_TMPFILE64),
	C(EXP_IO_FREAD_UNLOCKED),
	C(EXP_IO_FWRITE_UNLOCKED),
	C(EXP_IO_FGETS_UNLOCKED),
	C(EXP_IO_FPUTS_UNLOCKED),
	C(EXP_IO_MKSTEMP),
	C(EXP_IO_MKSTEMP64),
	C(EXP_IO_MKOSTEMP),
	C(EXP_IO_MKOSTEMP64),
	C(EXP_IO_MKSTEMPS),
	C(EXP_IO_MKSTEMPS64),
	C(EXP_IO_MKOSTEMPS),
	C(EXP_IO_MKOSTEMPS64),
	C(EXP_IO_LLSEEK),
	C(EXP_IO_FPUTC),
	C(EXP_IO_PUTC),
	C(EXP_IO_PUTCHAR),
	C(EXP_IO_FGETC),
	C(EXP_IO_GETC),
	C(EXP_IO_GETCHAR),
	C(EXP_IO_HOW_OPEN),
	C(EXP_IO_HOW_FAILED),
	C(EXP_IO_HOW_DUP),
	C(EXP_IO_HOW_PIPE),
	C(EXP_IO_HOW_SOCKET),
	C(EXP_IO_HOW_INHERITED),
	C(EXP_IO_HOW_TMPFILE),
};

int main(void)
{
	const char *top = getenv("PA_TOP");
	char path[4096];
	snprintf(path, sizeof path, "%s/docs/experiment-format.md", top ? top : ".");
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return check_done();
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		if (line[0] != '|')
			continue;
		/* cells: split on '|' */
		char *cell[8];
		int n = 0;
		for (char *p = strtok(line, "|"); p && n < 8; p = strtok(NULL, "|"))
			cell[n++] = p;
		for (int i = 0; i < n && i < 2; i++) { /* a name in a later cell is a mention */
			char name[128];
			if (sscanf(cell[i], " `%127[A-Z0-9_]`", name) != 1 ||
			    (strncmp(name, "EXP_", 4) != 0 && strncmp(name, "REGFILE_", 8) != 0 &&
			     strncmp(name, "ZDATA_", 6) != 0))
				continue;
			/* the value is the cell after the name (constants, kinds, flags) or
			 * the cell before it (offset tables) */
			const char *val = i == 0 ? (n > 1 ? cell[1] : "") : cell[0];
			unsigned long long v = strtoull(val, NULL, 0);
			int known = 0;
			for (size_t k = 0; k < sizeof consts / sizeof consts[0]; k++) {
				if (strcmp(consts[k].name, name) != 0)
					continue;
				known = 1;
				consts[k].seen = 1;
				if (v != consts[k].value)
					fprintf(stderr, "%s: documented %llu, code %llu\n", name, v,
						consts[k].value);
				CHECK(v == consts[k].value);
			}
			if (!known)
				fprintf(stderr, "%s: documented but not checked here\n", name);
			CHECK(known);
		}
	}
	fclose(f);
	for (size_t k = 0; k < sizeof consts / sizeof consts[0]; k++) {
		if (!consts[k].seen)
			fprintf(stderr, "%s: not documented in %s\n", consts[k].name, path);
		CHECK(consts[k].seen);
	}
	return check_done();
}
