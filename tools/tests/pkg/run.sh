#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make pkg-check: the installation and packaging tests, in this order:
#   test_install     make install/uninstall into a DESTDIR
#   test_man         stripectl(8) renders cleanly, matches --help
#   test_completion  bash completion offers the commands and options
#   test_modinfo     modinfo of build/<release>/mqstripe.ko
#   test_dkms        make dkms-install/-uninstall, guests (root, dkms)
#   test_deb         make deb, lintian, dpkg -i, guest, apt-get purge (root)
# Each prints KTAP; the last line is "N passed, N failed, N skipped".
# Env: PKG_VM=0 skips the QEMU guests; PKG_TESTS="test_man ..." runs some.
here=$(cd "$(dirname "$0")" && pwd)
tests=${PKG_TESTS:-test_install test_man test_completion test_modinfo test_dkms test_deb}
# shellcheck source=SCRIPTDIR/../run_lib.sh
. "$here/../run_lib.sh"

for t in $tests; do
	t=${t%.sh}
	run_test "$t" bash "$here/$t.sh"
done

run_summary
