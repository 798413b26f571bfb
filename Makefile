# SPDX-License-Identifier: GPL-2.0
#
# mqstripe: the module (Kbuild), stripectl (tools/stripectl) and the tests.
#
#   make                   stripectl and the module for the running kernel
#   make KDIR=<build dir>  the module for another installed kernel
#   make check             unit tests, then the VM selftests on 6.1 and 6.12
#   make demo              a guest with 4 NVMe drives: create, mkfs.xfs, fio
#   make clean

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# The running kernel's build tree, else (in a container) the newest one
# installed.
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
NEWEST_KDIR := $(lastword $(sort $(wildcard /lib/modules/*/build)))
ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard $(RUNNING_KDIR)/Makefile),)
    KDIR := $(RUNNING_KDIR)
  else
    KDIR := $(NEWEST_KDIR)
    KDIR_NOTE := headers of the running kernel $(shell uname -r) are not installed: building for $(KDIR)
  endif
endif

# Kernels the VM tests boot: Debian's 6.1 and 6.12 (see tools/vm/).
VM_KERNELS ?= $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/6.1.*-amd64/build /lib/modules/6.12.*-amd64/build)))
DEBUG_KERNEL ?= $(abspath ../shared/debug-kernel)
MODULE_SRC := Kbuild dkms.conf $(wildcard module/*.c module/*.h module/uapi/*.h module/probes/*.c) module/probe.sh

.PHONY: debug-module all deps module module-clean stripectl vm-modules check unit-check \
	demo clean

all: stripectl module

stripectl:
	$(MAKE) -C tools/stripectl VERSION=$(VERSION)

module:
	@$(if $(KDIR_NOTE),echo "make: $(KDIR_NOTE)")
	@test -n "$(KDIR)" || { echo "make: no kernel build tree found: apt-get install linux-headers-amd64, or set KDIR" >&2; exit 1; }
	sh module/probe.sh $(KDIR) module/mqstripe_probed.h
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

module-clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -f module/mqstripe_probed.h

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

# The debug kernel of ../shared/debug-kernel (uname -r 6.12.117), when present.
DEBUG_RELEASE := 6.12.117
debug-module: build/$(DEBUG_RELEASE)/mqstripe.ko

unit-check:
	$(MAKE) -C tools/tests check

deps:
	sh tools/deps.sh

check: deps
	$(MAKE) stripectl vm-modules
	sh tools/check.sh

demo: deps
	$(MAKE) stripectl vm-modules
	sh tools/demo.sh

clean: module-clean
	$(MAKE) -C tools/stripectl clean
	$(MAKE) -C tools/tests clean
	rm -rf build
