# Benchmarks (bench/README.md): `make bench` builds everything, the bench
# programs and the mkexp test tool, then runs bench/runbench.py, which prints
# the figures, the ratios and a summary table.  Nothing here is a test: the
# machine is shared and noisy, so the benchmarks only print.

BENCH_CPUBOUND := $(BUILD)/bench/cpubound
BENCH_RECBYTES := $(BUILD)/bench/recbytes

# The target program is built like a profiled program would be: -O2 -g with
# frame pointers, no sanitizers.
$(BENCH_CPUBOUND): bench/cpubound.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) -O2 -g -fno-omit-frame-pointer $(WARN) -pthread -o $@ $<

$(BENCH_RECBYTES): bench/recbytes.c $(LIBEXPERIMENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^

bench-bins: all $(BENCH_CPUBOUND) $(BENCH_RECBYTES) $(BUILD)/tests/tools/mkexp

# BENCH_ROUNDS=N, BENCH_COMPARE=none (no gprofng/perf), BENCH_ONLY=overhead|erprint
bench: bench-bins
	python3 bench/runbench.py --build $(BUILD)

.PHONY: bench bench-bins

# The CFI unwinder (collector/cfi.c, unwtab.c, unwind.c): ns per frame and per
# sample at depths 8/32/128 measured in the SIGPROF handler, table build time
# and memory per load object (bench/unwind/run.sh; needs libunwind-dev for the
# shared test harness, skipped without it).  UNWBENCH_SECONDS=N per depth.
bench-unwind:
	bash bench/unwind/run.sh $(BUILD)

bench: bench-unwind

.PHONY: bench-unwind

# bench-lines: analysis/lines.c vs addr2line and eu-addr2line on 100,000 distinct
# PCs of libc's .text (DWARF from libc6-dbg).  BENCH_LINES_ARGS="-n N [OBJECT]".
BENCH_LINES := $(BUILD)/bench/bench_lines

$(BENCH_LINES): bench/lines/bench_lines.c $(LIBANALYSIS) $(LIBEXPERIMENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.a,$^) $(ANALYSIS_LIBS) -lm

bench-lines: $(BENCH_LINES)
	$(BENCH_LINES) $(BENCH_LINES_ARGS)

.PHONY: bench-lines

# bench-heap: heap tracing cost side by side (ours, heaptrack, gprofng) on
# 1M malloc/free pairs; BENCH_HEAP_N=N changes the count.
BENCH_HEAP_N ?= 1000000
bench-heap: all
	python3 bench/heap/run.py $(BUILD) $(BENCH_HEAP_N)

# bench-heap-real: heap tracing on real programs, ours vs heaptrack: sqlite3 on
# bench/heap/work.sql and git log -p of BENCH_GIT_REPO (default: this repository).
BENCH_GIT_REPO ?= .
bench-heap-real: all
	python3 bench/heap/real.py $(BUILD) $(BENCH_GIT_REPO)

# bench-heap-read: reading a heap experiment (er_print -functions, -leaks) against
# heaptrack_print of heaptrack's trace of the same sqlite3 run (bench/heap/read.py).
bench-heap-read: all
	python3 bench/heap/read.py --build $(BUILD)

# bench-heap-loop: collect -H on of a malloc loop, the whole command, against heaptrack
# (bench/heap/loop.py).
bench-heap-loop: all
	python3 bench/heap/loop.py --build $(BUILD)

bench: bench-lines bench-heap bench-heap-real bench-heap-read bench-heap-loop

.PHONY: bench-heap bench-heap-real bench-heap-read bench-heap-loop

# bench-sync: synchronization wait tracing cost (an uncontended lock/unlock loop,
# single- and multi-threaded) and exactness (contended waits >= 1 ms), ours vs
# gprofng -s on (bench/sync/run.py).  BENCH_SYNC_N=N pairs per run.
bench-sync: all
	python3 bench/sync/run.py $(BUILD) $(or $(BENCH_SYNC_N),20000000)

bench: bench-sync

.PHONY: bench-sync

# bench-tree: CPU coverage of a process tree (gcc -O2 -c: driver, cc1, as):
# recorded CPU / the tree's wait4 user+sys, ours vs perf record and gprofng
# (bench/tree/coverage.py).  BENCH_TREE_FUNCS=N sizes the compiled file.
bench-tree: all
	python3 bench/tree/coverage.py --build $(BUILD) --funcs $(or $(BENCH_TREE_FUNCS),700)

bench: bench-tree

.PHONY: bench-tree

# bench-archive: experiment size (ours linked, ours -A copy, gprofng, perf)
# and er_archive time on a clock and a heap experiment (bench/archive/size.sh).
bench-archive: all
	bash bench/archive/size.sh $(BUILD)

bench: bench-archive

.PHONY: bench-archive

# The analyzer on 1,000,000 samples over 100,000 distinct stacks (bench/analyzer/run.py):
# start, /api/overview + /api/functions (target 2 s), the flame, call tree and timeline
# replies' sizes and times, whole and pruned as the page asks; then the page's redraw times in
# chromium (bench/analyzer/browser.mjs: flame graph, click-zoom, hover, timeline, zoom, pan).
bench-analyzer: all $(BENCH_CPUBOUND) $(BUILD)/tests/tools/mkexp
	python3 bench/analyzer/run.py --build $(BUILD)

bench: bench-analyzer

# bench-analyzer-group: a group of 64 one-second experiments opened in the analyzer and its
# functions shown (bench/analyzer/group.sh BUILD N; BENCH_GROUP_N=N).
bench-analyzer-group: all
	bash bench/analyzer/group.sh $(BUILD) $(or $(BENCH_GROUP_N),64)

.PHONY: bench-analyzer bench-analyzer-group

# bench-hwc: counter overflow profiling cost: task-clock overflows every 1 ms
# with stacks (collect -h) beside clock profiling at 1 kHz (collect -p hi) and
# perf record -e task-clock at the same rate, on bench/cpubound (bench/hwc/run.py):
# slowdown and bytes per sample.  BENCH_HWC_UNITS=N work units, BENCH_HWC_THREADS=N.
bench-hwc: bench-bins
	python3 bench/hwc/run.py $(BUILD) $(or $(BENCH_HWC_UNITS),100) 5 $(or $(BENCH_HWC_THREADS),1)

bench: bench-hwc

.PHONY: bench-hwc

# bench-cpusplit: the user/system split's cost per clock sample: ns per
# getrusage(RUSAGE_THREAD) beside ns per thread CPU clock read, and cpubound under
# collect -p hi with the split on and off (bench/cpusplit/run.py).
bench-cpusplit: bench-bins
	python3 bench/cpusplit/run.py $(BUILD) $(or $(BENCH_CPUSPLIT_UNITS),100) 5

bench: bench-cpusplit

.PHONY: bench-cpusplit

# bench-io: I/O tracing cost (1-byte write()s to /dev/null, 4 KiB reads of a
# cached file), ours vs gprofng -i on and strace -c -f (bench/io/run.py): ns per
# call, ratio to native, experiment bytes per call.  BENCH_IO_N=N calls per run.
bench-io: all
	python3 bench/io/run.py $(BUILD) $(or $(BENCH_IO_N),1000000)

bench: bench-io

.PHONY: bench-io

# bench-filter: the selections and the filter expression on 1M clock samples of a
# synthetic experiment (bench/filter/run.sh): er_print -functions with each, seconds
# and the extra cost per million events.  BENCH_FILTER_N=N events.
bench-filter: all $(BUILD)/tests/tools/mkexp
	bash bench/filter/run.sh $(BUILD) $(or $(BENCH_FILTER_N),1000000)

.PHONY: bench-filter

# bench-eintr: the EINTR each profiler's sampling causes in a loop of 1 ms waits
# (ours at -p hi, gprofng at -p hi, perf at 1 kHz; bench/eintr/run.sh BUILD RUNS).
bench-eintr: all
	bash bench/eintr/run.sh $(BUILD) $(or $(EINTR_RUNS),10)

.PHONY: bench-eintr

# bench-quick: the quick benchmarks' ratios against their anchors (bench/quick.py, under
# a minute), checked against bench/quick-baseline.json: a ratio over twice its recorded
# value fails (tests/e2e/bench_guard.sh runs the same in make check).
# bench-erprint: er_print -functions on small experiments vs gprofng (bench/erprint/run.py).
bench-quick: all
	python3 bench/quick.py --build $(BUILD) --check bench/quick-baseline.json

bench-erprint: all
	python3 bench/erprint/run.py --build $(BUILD)

bench: bench-erprint

.PHONY: bench-quick bench-erprint

# bench-pagefaults: the collector's own page faults (perf record -e minor-faults) on python3
# and a C++ program, natively and under collect (bench/pagefaults/run.py).
bench-pagefaults: all
	python3 bench/pagefaults/run.py $(BUILD)

bench: bench-pagefaults

.PHONY: bench-pagefaults

# bench-shell-loop: an exec-heavy bash loop of BENCH_LOOP_N rounds (3 short processes each),
# native, under collect and under perf record -g (bench/tree/shell_loop.py).
bench-shell-loop: all
	python3 bench/tree/shell_loop.py $(BUILD) $(or $(BENCH_LOOP_N),400) 3

bench: bench-shell-loop

.PHONY: bench-shell-loop
