# SPDX-License-Identifier: GPL-2.0
#
# The developers' targets, included by the top Makefile in a clone (the
# DKMS source tree has no tools/):
#
#   make check             unit, package, VM, persistence and boot tests on
#                          6.1 and 6.12 (tools/check.sh); CHECK_KERNELS=
#                          "6.1 6.12 debug" adds the debug kernel's list
#   make vm-modules        build/<release>/mqstripe.ko for Debian's 6.1 and 6.12
#   make debug-kernel      build the debug kernel (40 min; see tools/vm/)
#   make demo              a guest with 4 NVMe drives: create, mkfs.xfs, fio
#   make dkms-install [KVERS="<release>..."]  the module source to
#       /usr/src/mqstripe-<version>/, then dkms add, build and install for
#       KVERS (default: every kernel whose headers are installed)
#   make dkms-uninstall    dkms remove --all, remove the source
#   make deb               build/deb/mqstripe-dkms_<v>_all.deb and
#       build/deb/stripectl_<v>_<arch>.deb (tools/debian/), then lintian
#   make pkg-check         the tests of these (tools/tests/pkg/)
#   make boot-check        boot tests: a Debian image booted with systemd
#   make bench, make bench-smoke, make bench-table   tools/bench/

# Kernels the VM tests boot: Debian's 6.1 and 6.12 (see tools/vm/).
VM_KERNELS ?= $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/6.1.*-amd64/build /lib/modules/6.12.*-amd64/build)))
# The debug kernel (KASAN, lockdep, kmemleak, ...): $(MQS_DEBUG_KERNEL), else
# ../shared/debug-kernel, else build/debug-kernel (make debug-kernel builds it).
ifeq ($(origin DEBUG_KERNEL),undefined)
  DEBUG_KERNEL := $(abspath $(shell bash -c '. tools/vm/common.sh && mqs_debug_kernel_dir'))
endif
MODULE_SRC := Kbuild dkms.conf $(wildcard module/*.c module/*.h module/uapi/*.h module/probes/*.c) module/probe.sh

.PHONY: debug-module debug-kernel deps vm-modules check unit-check demo dev-clean \
	dkms-install dkms-uninstall deb pkg-check boot-check bench bench-smoke bench-table

# One out-of-tree copy per kernel, so builds for several kernels coexist:
# build/<release>/mqstripe.ko, loaded by the VM tests.
build/%/mqstripe.ko: $(MODULE_SRC)
	@mkdir -p build/$*
	@rm -rf build/$*/module && cp -r Kbuild dkms.conf module build/$*/
	@rm -f build/$*/module/mqstripe_probed.h
	if [ -d /lib/modules/$*/build ]; then kdir=/lib/modules/$*/build; else \
		kdir=$(CURDIR)/build/debug-kdir; \
		sh tools/vm/debug-kdir.sh $(DEBUG_KERNEL)/build $$kdir || exit 1; fi; \
	sh build/$*/module/probe.sh $$kdir build/$*/module/mqstripe_probed.h && \
	$(MAKE) -C $$kdir M=$(CURDIR)/build/$* W=$(W) modules

vm-modules: $(foreach k,$(VM_KERNELS),build/$(k)/mqstripe.ko)

# The module for the debug kernel, when present (uname -r 6.12.117).
DEBUG_RELEASE := $(or $(shell cat $(DEBUG_KERNEL)/build/include/config/kernel.release 2>/dev/null),6.12.117)
debug-module: build/$(DEBUG_RELEASE)/mqstripe.ko

# Build the debug kernel from Debian's linux-source-6.12 into
# $(MQS_DEBUG_KERNEL) or build/debug-kernel (about 40 min on 2 cores; cached:
# nothing to do when it is complete and built from tools/vm/debug.config).
# make check never builds it: it runs the debug suite when a debug kernel
# is present and says it is skipped otherwise.
debug-kernel:
	sh tools/deps.sh debug-kernel
	bash tools/vm/build-debug-kernel.sh $(if $(MQS_DEBUG_KERNEL),$(MQS_DEBUG_KERNEL),build/debug-kernel)

unit-check:
	$(MAKE) -C tools/tests check

deps:
	sh tools/deps.sh

check: deps
	$(MAKE) stripectl vm-modules
	@case " $(CHECK_KERNELS) " in *" debug "*) \
	if [ -r $(DEBUG_KERNEL)/bzImage ]; then $(MAKE) debug-module; \
	else echo "make: no debug kernel in $(DEBUG_KERNEL): its suite is skipped (make debug-kernel builds one)"; fi ;; esac
	bash tools/check.sh

demo: deps
	$(MAKE) stripectl vm-modules
	sh tools/demo.sh

clean: dev-clean
dev-clean:
	$(MAKE) -C tools/tests clean
	rm -rf build

# Kernels for dkms-install: those with headers (a build tree) installed.
KVERS ?= $(patsubst /lib/modules/%/build/Makefile,%,$(wildcard /lib/modules/*/build/Makefile))

DEB_DIR := build/deb
DEB_SRC := $(DEB_DIR)/src/$(DKMS_NAME)-$(VERSION)
DEB_FILES := $(DKMS_FILES) README.md tools/stripectl/Makefile \
	$(wildcard tools/stripectl/*.c tools/stripectl/*.h) \
	tools/stripectl/stripectl.8 tools/stripectl/mqstripe.conf.5 \
	tools/stripectl/stripectl.bash-completion \
	$(UDEV_RULES) $(SYSTEMD_UNITS) tools/systemd/mqstripe.shutdown tools/systemd/mqstripe-generator \
	tools/initramfs/hook tools/initramfs/local-block

dkms-install:
	@command -v dkms >/dev/null || { echo "make: dkms is not installed: apt-get install dkms" >&2; exit 1; }
	@test -n "$(KVERS)" || { echo "make: no kernel headers installed (/lib/modules/*/build): apt-get install linux-headers-amd64, or set KVERS" >&2; exit 1; }
	@if pkg=$$(dpkg-query -S $(DKMS_SRCDIR)/dkms.conf 2>/dev/null); then \
		echo "make: $(DKMS_SRCDIR) belongs to the package $${pkg%%:*}: apt-get purge $${pkg%%:*} first" >&2; exit 1; fi
	if [ -n "$$(dkms status -m $(DKMS_NAME) -v $(VERSION))" ]; then \
		dkms remove -m $(DKMS_NAME) -v $(VERSION) --all; fi
	$(MAKE) dkms-source DKMS_SRCDIR=/usr/src/$(DKMS_NAME)-$(VERSION)
	dkms add -m $(DKMS_NAME) -v $(VERSION)
	for k in $(KVERS); do \
		dkms build -m $(DKMS_NAME) -v $(VERSION) -k $$k && \
		dkms install -m $(DKMS_NAME) -v $(VERSION) -k $$k || exit 1; done
	dkms status -m $(DKMS_NAME) -v $(VERSION)

dkms-uninstall:
	@command -v dkms >/dev/null || { echo "make: dkms is not installed" >&2; exit 1; }
	@if pkg=$$(dpkg-query -S /usr/src/$(DKMS_NAME)-$(VERSION)/dkms.conf 2>/dev/null); then \
		echo "make: /usr/src/$(DKMS_NAME)-$(VERSION) belongs to the package $${pkg%%:*}: apt-get purge $${pkg%%:*}" >&2; exit 1; fi
	if [ -n "$$(dkms status -m $(DKMS_NAME) -v $(VERSION))" ]; then \
		dkms remove -m $(DKMS_NAME) -v $(VERSION) --all; fi
	rm -rf /usr/src/$(DKMS_NAME)-$(VERSION)

# Debian packages, built with dpkg-buildpackage from a staged copy of the
# source (the packaging lives in tools/debian/, not in a top-level debian/).
# debian/changelog is generated: version from dkms.conf, maintainer from
# tools/debian/control, date of the last commit.
deb:
	rm -rf $(DEB_DIR)
	for f in $(DEB_FILES); do install -D -m 0644 $$f $(DEB_SRC)/$$f || exit 1; done
	cp -r tools/debian $(DEB_SRC)/debian
	chmod 0755 $(DEB_SRC)/debian/rules
	{ maint=$$(sed -n 's/^Maintainer: //p' tools/debian/control); \
	  date=$$(git log -1 --format=%cD 2>/dev/null || date -R); \
	  printf '%s (%s) unstable; urgency=medium\n\n  * Built from the mqstripe source tree%s.\n\n -- %s  %s\n' \
		$(DKMS_NAME) $(VERSION) \
		"$$(git describe --always --dirty 2>/dev/null | sed 's/^/ at /')" \
		"$$maint" "$${date:-$$(date -R)}"; } >$(DEB_SRC)/debian/changelog
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.changes $(DEB_DIR)/src/*.buildinfo $(DEB_DIR)/
	rm -rf $(DEB_DIR)/src
	@if command -v lintian >/dev/null; then \
		echo "lintian $(DEB_DIR)/*.changes"; \
		lintian --fail-on error --info $(DEB_DIR)/*.changes; \
	else echo "make: lintian is not installed: packages not checked"; fi
	@ls -l $(DEB_DIR)/*.deb

# Host tests of install, DKMS, the packages and the man page; the DKMS and
# package tests need root and dkms, and restore the host afterwards.
pkg-check: stripectl vm-modules
	sh tools/tests/pkg/run.sh

# Boot tests (selftests/boot/): a Debian 12 image (built once with
# debootstrap, cached in /var/cache/mqstripe) booted with systemd, the
# stripectl package installed in it: fstab by UUID, root on an array, a
# missing member.
boot-check: vm-modules
	bash selftests/boot/run.sh --kernel $(or $(KVER),6.12)

# Benchmarks (tools/bench/): mqstripe against md raid0, dm-stripe, the
# members in parallel (JBOD) and one member, in QEMU guests; results in
# bench-results/<timestamp>/ (report.md, results.json, plots).
#   make bench [QUICK=1] [KVER=6.1|6.12] [PROFILE=1: perf profiles instead]
#   make bench-smoke    QUICK run on one kernel; checks the output is
#                       well-formed (used by make check)
bench: deps
	$(MAKE) stripectl vm-modules
	QUICK='$(QUICK)' KVER='$(KVER)' PROFILE='$(PROFILE)' bash tools/bench/bench.sh

bench-smoke: deps
	$(MAKE) stripectl vm-modules
	sh tools/bench/smoke.sh

# The README's table of figures (tools/bench/table.py): made again from the
# results files its first line names, or from other ones:
#   make bench-table [BENCH_RESULTS="bench-results/<run>/results.json ..."]
# tools/tests/test_bench_table.py checks that the table is current.
bench-table:
	python3 tools/bench/table.py README.md $(BENCH_RESULTS)

