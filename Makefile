# Non-recursive Makefile for the Performance Analyzer for Linux.
#   make            build everything into build/
#   make demo       install missing Debian packages, build, profile the demo, print reports
#   make check      install missing Debian packages, build (ASan+UBSan test build), run all tests
#   make install    install into PREFIX (default /usr/local; DESTDIR stages), make uninstall
# Layers (docs/architecture.md): common <- experiment <- {collector, collect, analysis} <- {er_print, er_archive, analyzer};
#                   common <- experiment <- er_manage (er_rm, er_mv, er_cp)

CC      ?= cc
BUILD   ?= build
VERSION := 0.1.0
PREFIX  ?= /usr/local

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wvla -Wimplicit-fallthrough
CSTD    := -std=gnu11
OPT     ?= -O2 -g
SAN     ?=
# CPPFLAGS, CFLAGS and LDFLAGS from the environment or the command line (a distribution's
# hardening flags) are the user's: they come after the project's own flags, which are
# always applied, and reach every object and link (the collector's too, without SAN).
# The first make keeps them apart, so that sub-makes get them unchanged.
ifeq ($(origin PA_USER_FLAGS),undefined)
export PA_USER_FLAGS    := 1
export PA_USER_CPPFLAGS := $(CPPFLAGS)
export PA_USER_CFLAGS   := $(CFLAGS)
export PA_USER_LDFLAGS  := $(LDFLAGS)
endif
override CPPFLAGS := -I. -DPA_VERSION='"$(VERSION)"' -D_GNU_SOURCE $(PA_USER_CPPFLAGS)
override CFLAGS   := $(CSTD) $(OPT) $(WARN) $(SAN) $(EXTRA_CFLAGS) $(PA_USER_CFLAGS)
override LDFLAGS  := $(SAN) $(PA_USER_LDFLAGS)

# ---------------------------------------------------------------- sources
COMMON_SRC     := $(wildcard common/*.c)
EXPERIMENT_SRC := $(wildcard experiment/*.c)
# libcollector.so is collector/*.c; each preloaded interposer library has its folder
# (collector/heap, sync, io; the collector API's stubs are collector/api)
COLLECTOR_SRC  := $(wildcard collector/*.c)
COLLECT_SRC    := $(wildcard collect/*.c)
ANALYSIS_SRC   := $(wildcard analysis/*.c)
ERPRINT_SRC    := $(wildcard er_print/*.c)
ERARCHIVE_SRC  := $(wildcard er_archive/*.c)
ANALYZER_SRC   := $(wildcard analyzer/*.c)
ANALYZER_WEB   := $(sort $(wildcard analyzer/web/*.* analyzer/web/*/*.*))
ERMANAGE_MAINS := er_manage/er_rm.c er_manage/er_mv.c er_manage/er_cp.c
ERMANAGE_SRC   := $(filter-out $(ERMANAGE_MAINS),$(wildcard er_manage/*.c))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
pic = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))

LIBCOMMON     := $(BUILD)/libcommon.a
LIBEXPERIMENT := $(BUILD)/libexperiment.a
LIBANALYSIS   := $(BUILD)/libanalysis.a
LIBCOLLECTOR  := $(BUILD)/lib/libcollector.so
LIBCOLHEAP    := $(BUILD)/lib/libcollector-heap.so
LIBCOLSYNC    := $(BUILD)/lib/libcollector-sync.so
LIBCOLIO      := $(BUILD)/lib/libcollector-io.so
LIBCOLAPI     := $(BUILD)/lib/libcollectorAPI.so $(BUILD)/lib/libcollectorAPI.a \
                 $(BUILD)/include/collectorAPI.h $(BUILD)/lib/pkgconfig/collectorAPI.pc
COLLECT       := $(BUILD)/bin/collect
ERPRINT       := $(BUILD)/bin/er_print
ERARCHIVE     := $(BUILD)/bin/er_archive
ANALYZER      := $(BUILD)/bin/analyzer
ERMANAGE_BINS := $(patsubst er_manage/%.c,$(BUILD)/bin/%,$(ERMANAGE_MAINS))

# Internal static libraries: each program's modules but its main.c, which the program and
# the unit tests link (no test includes a .c file).  libcollector-core.a holds
# libcollector.so's modules but its entry points, the four that define the interposed names
# (they would replace libc's in a program linking the archive); it is for the tests, built
# from the pic objects, or in a sanitized build (the test and fuzz builds; the collector
# itself never is) from the same sources compiled again with $(SAN) into $(BUILD)/picsan/.
COLLECTOR_ENTRY := $(addprefix collector/,collector.c descend.c interpose.c waits.c)
COLCORE_OBJ   := $(patsubst %.c,$(BUILD)/pic$(if $(SAN),san)/%.o,$(filter-out $(COLLECTOR_ENTRY),$(COLLECTOR_SRC)))
LIBCOLCORE    := $(BUILD)/libcollector-core.a
LIBCOLLECT    := $(BUILD)/libcollect.a
LIBERPRINT    := $(BUILD)/liberprint.a
LIBERARCHIVE  := $(BUILD)/liberarchive.a
LIBERMANAGE   := $(BUILD)/libermanage.a
# er_print's pprof encoder, generated (below)
PPROF_GEN     := $(BUILD)/gen/third_party/pprof/profile.pb-c
PPROF_OBJ     := $(BUILD)/obj/gen/third_party/pprof/profile.pb-c.o

ANALYSIS_LIBS := -lelf -ldw -lexpat -lcapstone -lzstd -lstdc++
EDIT_LIBS     := -ledit

all: $(LIBCOLLECTOR) $(LIBCOLHEAP) $(LIBCOLSYNC) $(LIBCOLIO) $(LIBCOLAPI) $(COLLECT) $(ERPRINT) $(ERARCHIVE) $(ANALYZER) \
     $(ERMANAGE_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The collector is built without sanitizers (it lives inside the target) and
# with hidden visibility and static TLS: these come after the user's flags (a -fPIE or
# -fomit-frame-pointer there cannot undo them).
COLLECTOR_CFLAGS := $(CSTD) -O2 -g $(WARN) $(EXTRA_CFLAGS) $(PA_USER_CFLAGS) -fPIC -fvisibility=hidden \
                    -ftls-model=initial-exec -fno-omit-frame-pointer
COLLECTOR_LDFLAGS := $(PA_USER_LDFLAGS)
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(COLLECTOR_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/picsan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(COLLECTOR_CFLAGS) $(SAN) -MMD -MP -c $< -o $@

$(LIBCOMMON): $(call obj,$(COMMON_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBEXPERIMENT): $(call obj,$(EXPERIMENT_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBANALYSIS): $(call obj,$(ANALYSIS_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBCOLCORE): $(COLCORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBCOLLECT): $(call obj,$(filter-out collect/main.c,$(COLLECT_SRC)))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBERPRINT): $(call obj,$(filter-out er_print/main.c,$(ERPRINT_SRC))) $(PPROF_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBERARCHIVE): $(call obj,$(filter-out er_archive/main.c,$(ERARCHIVE_SRC)))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(LIBERMANAGE): $(call obj,$(ERMANAGE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# (experiment/expgroup.c is for the tools that read group files, common/fsops.c for those
# that copy files, common/why.c for the libraries' failure words: not for the target)
$(LIBCOLLECTOR): $(call pic,$(COLLECTOR_SRC) $(filter-out experiment/expgroup.c,$(EXPERIMENT_SRC)) \
		$(filter-out common/fsops.c common/why.c,$(COMMON_SRC))) \
		collector/libcollector.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(COLLECTOR_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--version-script=collector/libcollector.map \
	      -Wl,-z,now -Wl,-z,nodelete -ldl -lpthread

# The heap interposers (collect -H on) live in their own library, preloaded
# only with -H on; they reach libcollector.so through pa_collector_trace_api.
$(BUILD)/pic/collector/heap/heapwrap.o: COLLECTOR_CFLAGS += -fno-builtin
$(LIBCOLHEAP): $(call pic,collector/heap/heapwrap.c) collector/heap/libcollector-heap.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(COLLECTOR_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--version-script=collector/heap/libcollector-heap.map \
	      -Wl,-z,now -Wl,-z,nodelete -ldl

# The synchronization interposers (collect -s), likewise only preloaded with -s.
# the interposers' fast paths are bare tail calls: no frame (their frames are walked by CFI)
$(BUILD)/pic/collector/sync/syncwrap.o: COLLECTOR_CFLAGS += -fomit-frame-pointer
$(LIBCOLSYNC): $(call pic,collector/sync/syncwrap.c) collector/sync/libcollector-sync.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(COLLECTOR_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--version-script=collector/sync/libcollector-sync.map \
	      -Wl,-z,now -Wl,-z,nodelete -ldl

# The I/O interposers (collect -i on), likewise only preloaded with -i on.
$(LIBCOLIO): $(call pic,collector/io/iowrap.c) collector/io/libcollector-io.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(COLLECTOR_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--version-script=collector/io/libcollector-io.map \
	      -Wl,-z,now -Wl,-z,nodelete -ldl

# The collector API (collector/api): stubs that call libcollector.so's entry points when
# it is loaded, else nothing; a shared and a static library, the header and a pkg-config
# file naming this build tree (-lcollectorAPI, pkg-config collectorAPI).
$(BUILD)/pic/collector/api/collectorAPI.o: COLLECTOR_CFLAGS += -fvisibility=default
$(BUILD)/lib/libcollectorAPI.so: $(call pic,collector/api/collectorAPI.c)
	@mkdir -p $(dir $@)
	$(CC) -shared $(COLLECTOR_LDFLAGS) -o $@ $^ -Wl,-soname,libcollectorAPI.so -ldl
$(BUILD)/lib/libcollectorAPI.a: $(call pic,collector/api/collectorAPI.c)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(BUILD)/include/collectorAPI.h: collector/api/collectorAPI.h
	@mkdir -p $(dir $@)
	cp $< $@
$(BUILD)/lib/pkgconfig/collectorAPI.pc: collector/api/collectorAPI.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(abspath $(BUILD))|' -e 's|@VERSION@|$(VERSION)|' $< >$@

# collect looks for PREFIX/lib/libcollector.so after <bindir>/../lib.
$(BUILD)/obj/collect/%.o: CPPFLAGS += -DPA_PREFIX='"$(PREFIX)"'
$(COLLECT): $(BUILD)/obj/collect/main.o $(LIBCOLLECT) $(LIBEXPERIMENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lzstd -lpfm

# er_print -export pprof: protoc-c generates the encoder of google/pprof's profile.proto
# (third_party/pprof) into $(BUILD)/gen at build time; it is compiled without our warnings.
$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: %.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen $<
$(PPROF_OBJ): $(PPROF_GEN).c $(PPROF_GEN).h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(BUILD)/gen $(CSTD) $(OPT) $(SAN) $(PA_USER_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/obj/er_print/export_pprof.o: CPPFLAGS += -I$(BUILD)/gen
$(BUILD)/obj/er_print/export_pprof.o: $(PPROF_GEN).h

$(ERPRINT): $(BUILD)/obj/er_print/main.o $(LIBERPRINT) $(LIBANALYSIS) $(LIBEXPERIMENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ANALYSIS_LIBS) $(EDIT_LIBS) -lprotobuf-c -lz -lm

$(ERARCHIVE): $(BUILD)/obj/er_archive/main.o $(LIBERARCHIVE) $(LIBANALYSIS) $(LIBEXPERIMENT) $(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ANALYSIS_LIBS) -lm

# er_rm, er_mv, er_cp: experiment management (the Oracle manual's chapter 8), libc only.
$(ERMANAGE_BINS): $(BUILD)/bin/%: $(BUILD)/obj/er_manage/%.o $(LIBERMANAGE) $(LIBEXPERIMENT) \
		$(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

# analyzer: the page's files (analyzer/web/ and its folders, one level deep) are compiled into
# the binary as a fixed table, generated at build time by scripts/embed-assets.sh; nothing is
# read from disk at run time.
ANALYZER_ASSETS := $(BUILD)/gen/analyzer/assets.c
$(ANALYZER_ASSETS): $(ANALYZER_WEB) scripts/embed-assets.sh
	@mkdir -p $(dir $@)
	bash scripts/embed-assets.sh $(ANALYZER_WEB) >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/gen/analyzer/assets.o: $(ANALYZER_ASSETS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
$(ANALYZER): $(call obj,$(ANALYZER_SRC)) $(BUILD)/obj/gen/analyzer/assets.o $(LIBANALYSIS) $(LIBEXPERIMENT) \
		$(LIBCOMMON)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(ANALYSIS_LIBS) -lmicrohttpd -lm

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- tests
include tests/tests.mk
include bench/bench.mk

# ---------------------------------------------------------------- top-level targets
deps:
	@bash scripts/setup-deps.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@bash scripts/demo.sh $(BUILD)

check: deps
	@$(MAKE) --no-print-directory test

format-check:
	@bash scripts/format-check.sh

layers-check:
	@bash scripts/layers-check.sh

complexity-check:
	@bash scripts/complexity-check.sh

# collect is built with PREFIX (it looks for PREFIX/lib/libcollector.so after <bindir>/../lib):
# give the same PREFIX to make and make install.
install: all
	@bash scripts/install.sh $(BUILD) $(PREFIX) $(DESTDIR)

uninstall:
	@bash scripts/install.sh --uninstall $(BUILD) $(PREFIX) $(DESTDIR)

clean:
	rm -rf $(BUILD) build-test build-fuzz

.PHONY: all deps demo check test install uninstall clean format-check layers-check complexity-check
