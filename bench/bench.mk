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
