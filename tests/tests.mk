# Test build: everything but the collector with ASan+UBSan, into build-test/.
# tests/run.sh runs unit tests, fuzz-corpus replays, component and e2e tests and
# ends with "N passed, N failed".

TEST_BUILD := build-test
TEST_SAN   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN   := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRC))
TOOLS_SRC  := $(wildcard tests/tools/*.c)
TOOLS_BIN  := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOLS_SRC))

# Every test program links the internal libraries, upper layers first (Makefile); the
# linker takes from them only the modules the test uses.
TEST_LIBS   := $(LIBERPRINT) $(LIBERARCHIVE) $(LIBERMANAGE) $(LIBCOLLECT) $(LIBCOLCORE) \
               $(LIBANALYSIS) $(LIBEXPERIMENT) $(LIBCOMMON)
TEST_LDLIBS := $(ANALYSIS_LIBS) $(EDIT_LIBS) -lprotobuf-c -lpfm -lz -lm

$(BUILD)/tests/unit/%: tests/unit/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.a,$^) $(TEST_LDLIBS)

# Fuzz targets: LLVMFuzzerTestOneInput + a replay main (tests/fuzz/replay_main.c).
$(BUILD)/tests/fuzz/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay_main.c $(filter %.a,$^) $(TEST_LDLIBS)

$(BUILD)/tests/tools/%: tests/tools/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.a,$^) $(TEST_LDLIBS)

test-bins: all $(UNIT_BIN) $(FUZZ_BIN) $(TOOLS_BIN)

# libFuzzer build, into build-fuzz/ (clang): the libraries instrumented for coverage with
# ASan+UBSan (any UBSan report aborts, so libFuzzer sees it), each target linked with
# libFuzzer's main instead of replay_main.c.  tests/fuzz/campaign.sh runs them for a number
# of executions each (docs/fuzzing.md); scripts/fuzz.sh grows the corpora.
#   make fuzz-bins
#   make fuzz-campaign [FUZZ_RUNS=N] [FUZZ_TARGETS="datafile heapstream ... files"]
FUZZ_BUILD   := build-fuzz
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=undefined
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC)) files
FUZZ_RUNS    ?= 1000000
LIBFUZZER_BIN := $(patsubst tests/fuzz/%.c,$(BUILD)/libfuzzer/%,$(FUZZ_SRC))

$(BUILD)/libfuzzer/%: tests/fuzz/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(filter %.a,$^) $(TEST_LDLIBS)

libfuzzer-bins: $(LIBFUZZER_BIN)

fuzz-bins:
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=clang OPT="-O1 -g" SAN="$(FUZZ_SAN)" libfuzzer-bins

# "files" (tests/fuzz/mutate_files.py) runs the test build's programs
fuzz-campaign: fuzz-bins
	@$(MAKE) --no-print-directory BUILD=$(TEST_BUILD) SAN="$(TEST_SAN)" test-bins
	@bash tests/fuzz/campaign.sh -b $(FUZZ_BUILD) -t $(TEST_BUILD) -r $(FUZZ_RUNS) $(FUZZ_TARGETS)

# The release build too: tests/e2e/bench_guard.sh measures its ratios on it.
test:
	@$(MAKE) --no-print-directory BUILD=build all
	@$(MAKE) --no-print-directory BUILD=$(TEST_BUILD) SAN="$(TEST_SAN)" test-bins
	@bash tests/run.sh $(TEST_BUILD)

.PHONY: test test-bins libfuzzer-bins fuzz-bins fuzz-campaign

# every test binary is rebuilt when a header it may use changes
$(UNIT_BIN) $(FUZZ_BIN) $(LIBFUZZER_BIN) $(TOOLS_BIN): $(wildcard common/*.h experiment/*.h analysis/*.h \
	collector/*.h collect/*.h er_print/*.h er_archive/*.h er_manage/*.h) tests/unit/check.h
