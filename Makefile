# ftr — a tracer for kernels without BPF.  Plain GNU make.
#
#   make            dynamic build: build/ftr
#   make static     one stripped static binary: build/ftr-static
#   make check      unit tests, live tests on this kernel, the qemu kernel matrix
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install the Debian packages the build and the tests need
#   V=1             show the commands
#   ARCH=arm64      cross-build (make, make static, make helpers-static) into
#                   build/arm64/ with Debian's aarch64-linux-gnu-gcc and arm64
#                   multiarch libraries; CROSS_COMPILE=aarch64-linux-gnu- alike

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/ftr
VERSION := 0.1.0

# ---- architecture -------------------------------------------------------
# ARCH names the target (arm64 or aarch64, x86_64 or amd64); CROSS_COMPILE
# alone implies it.  A target other than the build machine's is built with
# $(CROSS_COMPILE)gcc, defaulting to Debian's cross toolchain for it, and
# links against the target's multiarch libraries (/usr/lib/TRIPLET, through
# PKG_CONFIG_LIBDIR): `make deps` installs both for arm64.  Its objects and
# binaries live in build/ARCH/, so native and cross builds never mix; native
# ones stay in build/.
arch_norm = $(patsubst aarch64,arm64,$(patsubst amd64,x86_64,$(1)))
arch_triplet = $(or $(word 2,$(subst :, ,$(filter $(1):%,arm64:aarch64-linux-gnu x86_64:x86_64-linux-gnu))),\
	$(error ARCH=$(1): no known cross toolchain; set CROSS_COMPILE=TRIPLET-))
HOST_ARCH := $(call arch_norm,$(shell uname -m))
FTR_ARCH := $(call arch_norm,$(or $(ARCH),$(if $(CROSS_COMPILE),$(firstword $(subst -, ,$(CROSS_COMPILE)))),$(HOST_ARCH)))
ifneq ($(FTR_ARCH),$(HOST_ARCH))
CROSS_COMPILE ?= $(call arch_triplet,$(FTR_ARCH))-
endif
CROSS := $(if $(CROSS_COMPILE),1)

ifeq ($(origin CC),default)
CC      := $(CROSS_COMPILE)gcc
endif
STRIP   ?= $(CROSS_COMPILE)strip
ifdef CROSS
TRIPLET := $(patsubst %-,%,$(CROSS_COMPILE))
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig pkg-config
ifeq ($(filter clean deps,$(MAKECMDGOALS)),)
ifeq ($(shell command -v $(firstword $(CC))),)
$(error $(CC) not found: install the cross toolchain and $(FTR_ARCH) libraries with `make deps`)
endif
endif
endif
PKG_CONFIG ?= pkg-config
LIBS_PC := libtracefs libtraceevent libelf

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wstrict-prototypes
CPPFLAGS += -D_GNU_SOURCE -DFTR_VERSION='"$(VERSION)"' -DFTR_DATADIR='"$(DATADIR)"' -iquote src
PC_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIBS_PC) 2>/dev/null)
PC_LIBS   := $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null)
# libelf's static archive pulls zlib and zstd; pkg-config --static knows one, not both.
PC_SLIBS  := $(shell $(PKG_CONFIG) --static --libs $(LIBS_PC) 2>/dev/null) -lzstd -lz

ALL_CFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(PC_CFLAGS) $(CFLAGS)

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

B := build$(if $(CROSS),/$(FTR_ARCH))
SRCS := $(wildcard src/*.c src/*/*.c)
HDRS := $(wildcard src/*.h src/*/*.h)
OBJS := $(SRCS:src/%.c=$(B)/%.o)
LIBOBJS := $(filter-out $(B)/main.o,$(OBJS))
MANS := $(wildcard man/*.[0-9])

.PHONY: all static check check-layers check-unit check-fuzz check-live check-matrix fuzz install man clean deps helpers helpers-static

all: $(B)/ftr

$(B)/%.o: src/%.c $(HDRS) | $(B)
	@mkdir -p $(dir $@)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B):
	$(Q)mkdir -p $@

$(B)/ftr: $(OBJS)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PC_LIBS)

# The static binary is built from its own objects so that `make` and
# `make static` never mix flags.  -ffunction-sections + --gc-sections keep the
# size budget (1.5 MiB) with room to spare.
# The per-event path of `ftr trace` (reading, routing, printing) is built
# -O2 all the same: under -Os its fixed-size copies become "rep movs" and it
# costs twice the CPU per event, for a few KB saved.
SB := $(B)/static
SOBJS := $(SRCS:src/%.c=$(SB)/%.o)
HOT_SRCS := src/report/output.c src/kernel/stream.c src/kernel/engine.c src/kernel/comm.c
$(SB)/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$< [static])
	$(Q)$(CC) $(ALL_CFLAGS) $(if $(filter $<,$(HOT_SRCS)),-O2,-Os) -ffunction-sections \
		-fdata-sections -c -o $@ $<

# glibc's linker prints one warning about dlopen in static programs: it comes
# from libtraceevent's plugin loader, which ftr never calls (plugins are
# shared objects); it is filtered out so that real warnings stand out.
static: $(B)/ftr-static
$(B)/ftr-static: $(SOBJS)
	$(call msg,LD,$@)
	$(Q)rm -f $@; $(CC) -static -Wl,--gc-sections $(LDFLAGS) -o $@ $^ $(PC_SLIBS) 2>&1 | \
		grep -v -e "in function .load_plugin" -e "Using 'dlopen' in statically linked" >&2; \
		test -x $@
	$(Q)$(STRIP) $@
	@sz=$$(stat -c %s $@); echo "  static  $@: $$sz bytes ($(FTR_ARCH))"; \
	 if [ $$sz -gt 1572864 ]; then echo "ftr-static is larger than 1.5 MiB" >&2; exit 1; fi

# ---- tests -------------------------------------------------------------
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
# tests/unit/fixture.c: the formats and records the tests share.
$(B)/tests/%: tests/unit/%.c tests/unit/fixture.c tests/unit/fixture.h $(LIBOBJS)
	@mkdir -p $(B)/tests
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -DFIXTURES='"$(CURDIR)/tests/fixtures"' -o $@ $(filter %.c %.o,$^) \
		$(PC_LIBS) -lcmocka

# Helper programs the live tests run (a workload of known size, ...), built
# both dynamic (host) and static (copied into the qemu guests).
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRCS:tests/helpers/%.c=$(B)/tests-bin/%)
HELPERS_STATIC := $(HELPER_SRCS:tests/helpers/%.c=$(B)/tests-static/%)
# hotpath built without frame pointers, and stripped: the profiler's
# one-frame-stack and stripped-binary warnings are tested on these.
HOTPATH_VARIANTS := hotpath-nofp hotpath-stripped
HELPERS += $(HOTPATH_VARIANTS:%=$(B)/tests-bin/%)
HELPERS_STATIC += $(HOTPATH_VARIANTS:%=$(B)/tests-static/%)
HOTPATH_FLAGS_nofp := -fomit-frame-pointer -g
HOTPATH_FLAGS_stripped := -fno-omit-frame-pointer -s
$(B)/tests-bin/hotpath-%: tests/helpers/hotpath.c
	@mkdir -p $(B)/tests-bin
	$(call msg,CC,$< [$*])
	$(Q)$(CC) -std=gnu11 $(WARN) -O1 $(HOTPATH_FLAGS_$*) -o $@ $<
$(B)/tests-static/hotpath-%: tests/helpers/hotpath.c
	@mkdir -p $(B)/tests-static
	$(call msg,CC,$< [$* static])
	$(Q)$(CC) -std=gnu11 $(WARN) -O1 $(HOTPATH_FLAGS_$*) -static -o $@ $<
$(B)/tests-bin/%: tests/helpers/%.c
	@mkdir -p $(B)/tests-bin
	$(call msg,CC,$<)
	$(Q)$(CC) -std=gnu11 $(WARN) -O1 -fno-omit-frame-pointer -g -o $@ $<
$(B)/tests-static/%: tests/helpers/%.c
	@mkdir -p $(B)/tests-static
	$(call msg,CC,$< [static])
	$(Q)$(CC) -std=gnu11 $(WARN) -O1 -fno-omit-frame-pointer -g -static -o $@ $<
helpers: $(HELPERS) $(HELPERS_STATIC)
helpers-static: $(HELPERS_STATIC)

check: check-layers check-unit check-fuzz check-live check-matrix

# Cross builds cannot run here: the arm64 binaries are tested by the
# matrix's arm64 row, which `make check-matrix` (native) builds for itself.
ifneq ($(CROSS),)
ifneq ($(filter check%,$(MAKECMDGOALS)),)
$(error make $(filter check%,$(MAKECMDGOALS)) runs on this machine: not with ARCH=$(FTR_ARCH) or CROSS_COMPILE (the matrix's arm64 row is what tests arm64))
endif
endif

# The layers of src/ (docs/design.md): a folder includes only those below it.
check-layers:
	@tests/layers.sh src

check-unit: $(UNIT_BINS)
	@tests/unit/run.sh $(UNIT_BINS)

# The parser's fuzz target (tests/fuzz/fuzz-lang.c) on the objects it needs,
# built with the sanitizers.  check-fuzz: a bounded deterministic campaign,
# FUZZ_RUNS mutants of the seed corpus and of the recipes in events/ (PRNG
# seed 1; about 3 s of CPU, stopped at FUZZ_TIME seconds, default 25), with
# gcc's ASan+UBSan and tests/fuzz/driver.c; a crashing input is saved in
# $(B)/fuzz/.  `make fuzz`: libFuzzer with clang for FUZZ_TIME seconds
# (default 60), its corpus growing in $(B)/fuzz/corpus; without clang's
# libFuzzer, the driver on a million mutants.
FUZZ_LIB := src/lang/parse.c src/lang/plan.c src/util.c
FUZZ_SRCS := tests/fuzz/fuzz-lang.c $(FUZZ_LIB)
FUZZ_FLAGS := -std=gnu11 $(WARN) $(CPPFLAGS) -O1 -g -fno-omit-frame-pointer
FUZZ_RUNS ?= 50000
FUZZ_CLANG ?= $(shell command -v clang 2>/dev/null || command -v clang-14 2>/dev/null)
$(B)/fuzz/driver-lang: tests/fuzz/driver.c $(FUZZ_SRCS) $(HDRS)
	@mkdir -p $(B)/fuzz
	$(call msg,CC,$@ [asan])
	$(Q)$(CC) $(FUZZ_FLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $@ tests/fuzz/driver.c $(FUZZ_SRCS)
# (clang's -Wformat=2 also flags util.c's vfprintf wrappers, which gcc's does not)
$(B)/fuzz/fuzz-lang: $(FUZZ_SRCS) $(HDRS)
	@mkdir -p $(B)/fuzz
	$(call msg,CC,$@ [libFuzzer])
	$(Q)$(FUZZ_CLANG) $(FUZZ_FLAGS) -Wno-format-nonliteral -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(FUZZ_SRCS)
check-fuzz: $(B)/fuzz/driver-lang
	@$(B)/fuzz/driver-lang -n $(FUZZ_RUNS) -t $(or $(FUZZ_TIME),25) -o $(B)/fuzz tests/fuzz/corpus \
		$(wildcard events/*.ftr)
fuzz: $(B)/fuzz/driver-lang
	@if [ -n "$(FUZZ_CLANG)" ] && echo 'int LLVMFuzzerTestOneInput(void){return 0;}' | \
	    $(FUZZ_CLANG) -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then \
		$(MAKE) --no-print-directory $(B)/fuzz/fuzz-lang && mkdir -p $(B)/fuzz/corpus && \
		cd $(B)/fuzz && ./fuzz-lang -max_total_time=$(or $(FUZZ_TIME),60) \
			-dict=$(CURDIR)/tests/fuzz/lang.dict corpus $(CURDIR)/tests/fuzz/corpus \
			$(if $(wildcard events/*.ftr),$(CURDIR)/events); \
	else \
		echo "fuzz: no clang with libFuzzer; the driver instead"; \
		$(B)/fuzz/driver-lang -n 1000000 -t $(or $(FUZZ_TIME),60) -o $(B)/fuzz tests/fuzz/corpus \
			$(wildcard events/*.ftr); \
	fi

check-live: $(B)/ftr helpers
	@FTR=$(CURDIR)/$(B)/ftr PATH="$(CURDIR)/$(B)/tests-bin:$$PATH" tests/live/run.sh

# The matrix boots x86-64 and arm64 guests: the arm64 static ftr and helpers
# come from a cross build into build/arm64 (a sub-make with ARCH=arm64),
# made unless MATRIX_ROWS=NAME,NAME (run only those rows; see
# tests/matrix/run.sh --list) names no arm64 row.
MATRIX_ARM64 := $(if $(MATRIX_ROWS),$(findstring arm64,$(MATRIX_ROWS)),1)
check-matrix: $(B)/ftr-static $(HELPERS_STATIC)
	$(if $(MATRIX_ARM64),@$(MAKE) --no-print-directory ARCH=arm64 static helpers-static)
	@FTR_STATIC=$(CURDIR)/$(B)/ftr-static FTR_TESTS_BIN=$(CURDIR)/$(B)/tests-static \
	 FTR_STATIC_ARM64=$(CURDIR)/build/arm64/ftr-static \
	 FTR_TESTS_BIN_ARM64=$(CURDIR)/build/arm64/tests-static \
	 tests/matrix/run.sh $(if $(MATRIX_ROWS),--rows $(MATRIX_ROWS))

# ---- install -----------------------------------------------------------
install: $(B)/ftr
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(DATADIR)/events $(DESTDIR)$(DATADIR)/filters
	install -m 755 $(B)/ftr $(DESTDIR)$(BINDIR)/ftr
	install -m 644 $(filter %.1,$(MANS)) $(DESTDIR)$(MANDIR)/man1/
	$(if $(filter %.7,$(MANS)),install -m 644 $(filter %.7,$(MANS)) $(DESTDIR)$(MANDIR)/man7/)
	$(if $(wildcard events/*.ftr),install -m 644 $(wildcard events/*.ftr) $(DESTDIR)$(DATADIR)/events/)
	$(if $(wildcard filters/*.ftr),install -m 644 $(wildcard filters/*.ftr) $(DESTDIR)$(DATADIR)/filters/)

# Man pages are written in roff directly; `make man` checks they render
# without warnings.
man:
	@for m in $(MANS); do \
		out=$$(LC_ALL=C MANWIDTH=80 man --warnings -l $$m 2>&1 >/dev/null); \
		if [ -n "$$out" ]; then echo "$$m: $$out"; exit 1; fi; \
	done; echo "  MAN     $(words $(MANS)) pages render cleanly"

deps:
	@contrib/install-deps.sh

clean:
	rm -rf $(B)
