# ftr — a tracer for kernels without BPF.  Plain GNU make.
#
#   make            dynamic build: build/ftr
#   make static     one stripped static binary: build/ftr-static
#   make check      unit tests, live tests on this kernel, the qemu kernel matrix
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install the Debian packages the build and the tests need
#   V=1             show the commands

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/ftr
VERSION := 0.1.0

CC      ?= cc
PKG_CONFIG ?= pkg-config
STRIP   ?= strip
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

B := build
SRCS := $(wildcard src/*.c)
OBJS := $(SRCS:src/%.c=$(B)/%.o)
LIBOBJS := $(filter-out $(B)/main.o,$(OBJS))
MANS := $(wildcard man/*.[0-9])

.PHONY: all static check check-unit check-live check-matrix install man clean deps

all: $(B)/ftr

$(B)/%.o: src/%.c $(wildcard src/*.h) | $(B)
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
SB := $(B)/static
SOBJS := $(SRCS:src/%.c=$(SB)/%.o)
$(SB)/%.o: src/%.c $(wildcard src/*.h)
	@mkdir -p $(SB)
	$(call msg,CC,$< [static])
	$(Q)$(CC) $(ALL_CFLAGS) -Os -ffunction-sections -fdata-sections -c -o $@ $<

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
	@sz=$$(stat -c %s $@); echo "  static  $@: $$sz bytes"; \
	 if [ $$sz -gt 1572864 ]; then echo "ftr-static is larger than 1.5 MiB" >&2; exit 1; fi

# ---- tests -------------------------------------------------------------
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
$(B)/tests/%: tests/unit/%.c $(LIBOBJS)
	@mkdir -p $(B)/tests
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) -DFIXTURES='"$(CURDIR)/tests/fixtures"' -o $@ $^ $(PC_LIBS) -lcmocka

# Helper programs the live tests run (a workload of known size, ...), built
# both dynamic (host) and static (copied into the qemu guests).
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPERS := $(HELPER_SRCS:tests/helpers/%.c=$(B)/tests-bin/%)
HELPERS_STATIC := $(HELPER_SRCS:tests/helpers/%.c=$(B)/tests-static/%)
$(B)/tests-bin/%: tests/helpers/%.c
	@mkdir -p $(B)/tests-bin
	$(call msg,CC,$<)
	$(Q)$(CC) -std=gnu11 $(WARN) -O1 -fno-omit-frame-pointer -g -o $@ $<
$(B)/tests-static/%: tests/helpers/%.c
	@mkdir -p $(B)/tests-static
	$(call msg,CC,$< [static])
	$(Q)$(CC) -std=gnu11 $(WARN) -O1 -fno-omit-frame-pointer -g -static -o $@ $<
helpers: $(HELPERS) $(HELPERS_STATIC)

check: check-unit check-live check-matrix

check-unit: $(UNIT_BINS)
	@tests/unit/run.sh $(UNIT_BINS)

check-live: $(B)/ftr helpers
	@FTR=$(CURDIR)/$(B)/ftr PATH="$(CURDIR)/$(B)/tests-bin:$$PATH" tests/live/run.sh

check-matrix: $(B)/ftr-static helpers
	@FTR_STATIC=$(CURDIR)/$(B)/ftr-static tests/matrix/run.sh

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
