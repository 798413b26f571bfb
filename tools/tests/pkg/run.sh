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
passed=0
failed=0
skipped=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

for t in $tests; do
	t=${t%.sh}
	echo "# running $t"
	bash "$here/$t.sh" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -E '^ok [0-9]+' "$out" | grep -cv '# SKIP')
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$out")
	f=$(grep -cE '^not ok [0-9]+' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	skipped=$((skipped + s))
	failed=$((failed + f))
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
