################################################################################
#
# ftr
#
################################################################################

FTR_VERSION = 0.1.0
FTR_SITE = $(call qstrip,$(BR2_PACKAGE_FTR_SOURCE_DIR))
FTR_SITE_METHOD = local
FTR_LICENSE = GPL-2.0+
FTR_DEPENDENCIES = host-pkgconf libtracefs libtraceevent elfutils zlib xz

# ftr's own Makefile, with Buildroot's cross compiler and flags
# (TARGET_CONFIGURE_OPTS: CC, CFLAGS, LDFLAGS, and PKG_CONFIG, whose
# wrapper reads the staging directory's .pc files).  The dynamic build: its
# static one needs static libtracefs and elfutils, which Buildroot does not
# build (!BR2_STATIC_LIBS).  SERVE=0: no libmicrohttpd (--serve; --prom-file
# does the job); libtracecmd is not in Buildroot, and ftr builds without it
# when pkg-config does not find it (ftr report then reads no trace-cmd files).
FTR_MAKE_OPTS = \
	$(TARGET_CONFIGURE_OPTS) \
	PREFIX=/usr \
	SERVE=0

define FTR_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) $(FTR_MAKE_OPTS) -C $(@D) all
endef

# make install puts the binary in /usr/bin, the recipes and filters in
# /usr/share/ftr (where a PREFIX=/usr build looks for them), the bash
# completion and the man pages (which Buildroot's target-finalize removes).
define FTR_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) $(FTR_MAKE_OPTS) -C $(@D) \
		DESTDIR=$(TARGET_DIR) install
endef

# What ftr drives: tracefs, kprobe and uprobe events, hist triggers and perf
# events (docs/design.md).  None of BPF.
define FTR_LINUX_CONFIG_FIXUPS
	$(call KCONFIG_ENABLE_OPT,CONFIG_FTRACE)
	$(call KCONFIG_ENABLE_OPT,CONFIG_TRACING)
	$(call KCONFIG_ENABLE_OPT,CONFIG_FTRACE_SYSCALLS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_KPROBES)
	$(call KCONFIG_ENABLE_OPT,CONFIG_KPROBE_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_UPROBES)
	$(call KCONFIG_ENABLE_OPT,CONFIG_UPROBE_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_HIST_TRIGGERS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_PERF_EVENTS)
	$(call KCONFIG_ENABLE_OPT,CONFIG_KALLSYMS)
endef

$(eval $(generic-package))
