# SPDX-License-Identifier: GPL-2.0
#
# mqstripe: the module (Kbuild) and stripectl (tools/stripectl).
#
#   make                   stripectl and the module for the running kernel
#   make KDIR=<build dir>  the module for another installed kernel
#   make module            the module only (what DKMS runs, with KDIR=)
#   make install           stripectl, its man page, completion, udev rule, units
#   make clean
#
# This file is all the DKMS source tree (/usr/src/mqstripe-<version>/) has
# of the build.  In a clone, tools/dev.mk adds the test bed, the tests, the
# benchmarks and the packages (make check, make deb, make dkms-install...).

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

.PHONY: all module module-clean stripectl clean install uninstall dkms-source

all: stripectl module

stripectl:
	$(MAKE) -C tools/stripectl VERSION=$(VERSION)

module:
	@$(if $(KDIR_NOTE),echo "make: $(KDIR_NOTE)")
	@test -n "$(KDIR)" || { echo "make: no kernel build tree found: apt-get install linux-headers-amd64, or set KDIR" >&2; exit 1; }
	sh module/probe.sh $(KDIR) module/mqstripe_probed.h
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Not kbuild's clean: it would also delete build/*/mqstripe.ko.
module-clean:
	rm -f mqstripe.ko mqstripe.o mqstripe.mod mqstripe.mod.c mqstripe.mod.o \
		Module.symvers modules.order .module-common.o .*.cmd \
		module/*.o module/.*.cmd module/mqstripe_probed.h

clean: module-clean
	$(if $(wildcard tools/stripectl/Makefile),$(MAKE) -C tools/stripectl clean)

# ---- installation ------------------------------------------------------------
#
#   make install [DESTDIR=] [PREFIX=/usr]  stripectl, stripectl(8), bash completion,
#       udev rule, systemd units and generator, initramfs-tools hook and script (then run
#       update-initramfs -u for a root or /usr on an array)
#   make uninstall [DESTDIR=] [PREFIX=/usr]  removes exactly what install put
#   make dkms-source DKMS_SRCDIR=.../mqstripe-<version>  the module source
#       (used by make dkms-install and by tools/debian/rules)

PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# The udev rule and the systemd units (the assembly of persistent arrays,
# the monitor): every tools/udev/*.rules and tools/systemd/*.service.
# install copies them with /usr/sbin/stripectl rewritten to SBINDIR; it
# does not enable the units (systemctl enable mqstripe-assemble.service
# mqstripe-monitor.service does; the stripectl package enables them,
# tools/debian/rules).
UDEV_RULES := $(wildcard tools/udev/*.rules)
SYSTEMD_UNITS := $(wildcard tools/systemd/*.service)
UDEVRULESDIR ?= /lib/udev/rules.d
SYSTEMDUNITDIR ?= /lib/systemd/system
# the shutdown's last resort (mdadm's mdadm.shutdown is its md peer)
SYSTEMDSHUTDOWNDIR ?= /lib/systemd/system-shutdown
# mqstripe-generator: orders the cryptsetup units of dm-crypt members
# before mqstripe-stop.service (from /etc/mqstripe/crypt-members)
SYSTEMDGENERATORDIR ?= /lib/systemd/system-generators
# Debian's initramfs-tools: the hook puts the module, stripectl and the
# udev rule into the initramfs, the local-block script starts arrays there
INITRAMFSDIR ?= /usr/share/initramfs-tools

INSTALLED := $(SBINDIR)/stripectl $(MANDIR)/man8/stripectl.8.gz \
	$(MANDIR)/man5/mqstripe.conf.5.gz \
	$(BASHCOMPDIR)/stripectl \
	$(addprefix $(UDEVRULESDIR)/,$(notdir $(UDEV_RULES))) \
	$(addprefix $(SYSTEMDUNITDIR)/,$(notdir $(SYSTEMD_UNITS))) \
	$(SYSTEMDSHUTDOWNDIR)/mqstripe.shutdown \
	$(SYSTEMDGENERATORDIR)/mqstripe-generator \
	$(INITRAMFSDIR)/hooks/mqstripe $(INITRAMFSDIR)/scripts/local-block/mqstripe

# The module source, exactly: what DKMS and the mqstripe-dkms package get.
DKMS_NAME := mqstripe
DKMS_FILES := Kbuild Makefile dkms.conf module/probe.sh \
	$(filter-out module/mqstripe_probed.h %.mod.c,$(wildcard module/*.c module/*.h)) \
	$(wildcard module/uapi/*.h module/probes/*.c)
DKMS_SRCDIR ?= /usr/src/$(DKMS_NAME)-$(VERSION)

# install_sbin_path FILE DIR: FILE to DESTDIR/DIR, mode 0644, with
# /usr/sbin/stripectl in it rewritten to SBINDIR/stripectl
define install_sbin_path
	install -d $(DESTDIR)$(2)
	sed 's|/usr/sbin/stripectl|$(SBINDIR)/stripectl|g' $(1) >$(DESTDIR)$(2)/$(notdir $(1))
	chmod 0644 $(DESTDIR)$(2)/$(notdir $(1))

endef

# install_sbin_script FILE DEST: FILE to DESTDIR/DEST, mode 0755, with
# /usr/sbin/stripectl rewritten as above
define install_sbin_script
	install -d $(DESTDIR)$(dir $(2))
	sed 's|/usr/sbin/stripectl|$(SBINDIR)/stripectl|g' $(1) >$(DESTDIR)$(2)
	chmod 0755 $(DESTDIR)$(2)

endef

install: stripectl
	install -D -m 0755 tools/stripectl/stripectl $(DESTDIR)$(SBINDIR)/stripectl
	install -d $(DESTDIR)$(MANDIR)/man8
	gzip -9n -c tools/stripectl/stripectl.8 >$(DESTDIR)$(MANDIR)/man8/stripectl.8.gz
	chmod 0644 $(DESTDIR)$(MANDIR)/man8/stripectl.8.gz
	install -d $(DESTDIR)$(MANDIR)/man5
	gzip -9n -c tools/stripectl/mqstripe.conf.5 >$(DESTDIR)$(MANDIR)/man5/mqstripe.conf.5.gz
	chmod 0644 $(DESTDIR)$(MANDIR)/man5/mqstripe.conf.5.gz
	install -D -m 0644 tools/stripectl/stripectl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/stripectl
	$(foreach f,$(UDEV_RULES) $(SYSTEMD_UNITS),$(call install_sbin_path,$(f),$(if $(filter %.rules,$(f)),$(UDEVRULESDIR),$(SYSTEMDUNITDIR))))
	$(call install_sbin_script,tools/systemd/mqstripe.shutdown,$(SYSTEMDSHUTDOWNDIR)/mqstripe.shutdown)
	$(call install_sbin_script,tools/systemd/mqstripe-generator,$(SYSTEMDGENERATORDIR)/mqstripe-generator)
	$(call install_sbin_script,tools/initramfs/hook,$(INITRAMFSDIR)/hooks/mqstripe)
	$(call install_sbin_script,tools/initramfs/local-block,$(INITRAMFSDIR)/scripts/local-block/mqstripe)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# Copy the module source to DKMS_SRCDIR (used by dkms-install and by
# tools/debian/rules).
dkms-source:
	@case "$(DKMS_SRCDIR)" in */$(DKMS_NAME)-$(VERSION)) ;; \
	*) echo "make: DKMS_SRCDIR must end in /$(DKMS_NAME)-$(VERSION)" >&2; exit 1 ;; esac
	rm -rf $(DKMS_SRCDIR)
	for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DKMS_SRCDIR)/$$f || exit 1; done


# The developers' targets, in a clone only.
-include $(wildcard tools/dev.mk)
