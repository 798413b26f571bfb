#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stripectl's command line without the module: usage errors (exit 2),
# failures userspace detects (exit 1), help and version (exit 0).  Every
# error must be exactly one line on stderr starting with "stripectl: ".
#
#   test_cli.sh [PATH/TO/stripectl]     (default: tools/stripectl/stripectl)
#
# Prints KTAP; tests that need root (mknod) or an absent module skip.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
STRIPECTL=${1:-$TOP/tools/stripectl/stripectl}
if [ ! -x "$STRIPECTL" ]; then
	echo "# $STRIPECTL not built: make -C tools/stripectl" >&2
	exit 1
fi

# shellcheck source=SCRIPTDIR/check_lib.sh
. "$(dirname "$0")/check_lib.sh"
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

run() {
	"$STRIPECTL" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# expect RC REGEX ARGS...: exit status RC; for RC != 0 exactly one line on
# stderr, "stripectl: " and matching REGEX (grep -E), nothing on stdout.
expect() {
	local want=$1 re=$2 desc
	shift 2
	if [ $# -gt 6 ]; then
		desc="stripectl $1 $2 $3 ... ($# arguments) -> $want"
	else
		desc="stripectl $* -> $want"
	fi
	desc=${desc//$'\n'/\\n}
	run "$@"
	if [ "$rc" -ne "$want" ]; then
		not_ok "$desc (got exit $rc)"
		sed 's/^/# stderr: /' "$TMP/err"
		return
	fi
	if [ "$want" -ne 0 ]; then
		if [ "$(wc -l <"$TMP/err")" -ne 1 ] ||
		   ! grep -q '^stripectl: ' "$TMP/err" ||
		   ! grep -qE -- "$re" "$TMP/err" ||
		   [ -s "$TMP/out" ]; then
			not_ok "$desc (message)"
			sed 's/^/# stderr: /' "$TMP/err"
			sed 's/^/# stdout: /' "$TMP/out"
			return
		fi
		ok "$desc: $(cat "$TMP/err")"
		return
	fi
	if [ -s "$TMP/err" ]; then
		not_ok "$desc (stderr not empty)"
		sed 's/^/# stderr: /' "$TMP/err"
		return
	fi
	ok "$desc"
}

echo "KTAP version 1"
echo "# stripectl command line ($STRIPECTL)"

# --- usage errors: exit 2 ---
expect 2 "no command given"
expect 2 "'foo' is not a stripectl command" foo
expect 2 "unknown option '--bogus'" --bogus
expect 2 "create: no members given" create
expect 2 "create: no members given" create --chunk 64K
expect 2 "create: unknown option '--foo'" create --foo /dev/x
expect 2 "create: unknown option '-x'" create -x /dev/x
expect 2 "create: --chunk needs a value" create --chunk
expect 2 "create: --chunk given twice" create -c 64K --chunk 64K /dev/x
expect 2 "--chunk: 'abc' is not a size" create --chunk abc /dev/x
expect 2 "--chunk: '-1' is negative" create --chunk -1 /dev/x
expect 2 "--chunk: '99999999999999999999' is too large" create --chunk 99999999999999999999 /dev/x
expect 2 "--chunk: '17179869184G' is too large" create --chunk 17179869184G /dev/x
expect 2 "--chunk: '1.5M' is not a whole number" create --chunk 1.5M /dev/x
expect 2 "--chunk: chunk 1T is larger than 16M \(the largest\)" create --chunk 1T /dev/x
expect 2 "--chunk: chunk 1T is larger than 16M \(the largest\)" create --chunk 1TiB /dev/x
expect 2 "--chunk: '1P' is not a size: give bytes or a K, M, G or T suffix \(KiB, MiB, GiB, TiB\)" create --chunk 1P /dev/x
expect 2 "--data-offset: '16777216T' is too large: a size must be below 2\^64 bytes \(16777216T\)" create --data-offset 16777216T /dev/x
expect 2 "--size: '16777216T' is too large: a size must be below 2\^64 bytes \(16777216T\)" grow --size 16777216T db
expect 2 "--size: '99999999999999999999' is too large: a size must be below 2\^64 bytes" grow --size 99999999999999999999 db
expect 2 "--chunk: '4KB' is not a size" create --chunk 4KB /dev/x
expect 2 "--chunk: chunk 3K is not a power of two" create --chunk 3K /dev/x
expect 2 "--chunk: chunk 2K is smaller than 4K \(the smallest\): use e.g. 64K or 512K" create --chunk 2K /dev/x
expect 2 "--chunk: chunk 32M is larger than 16M \(the largest\): use at most 16M \(the default is 512K\)" create --chunk 32M /dev/x
expect 2 "--data-offset: data offset 1000 is not a multiple of 4K" create --data-offset 1000 /dev/x
expect 2 "--queue-depth: queue depth 0 is outside 1..4096 \(leave it out for the default: the members. nr_requests summed, at least 128\)" create --queue-depth 0 /dev/x
expect 2 "--queue-depth: queue depth 4097 is outside 1..4096" create -q 4097 /dev/x
expect 2 "--queue-depth: 'many' is not a number" create -q many /dev/x
expect 2 "--name: name 'bad!' has the character '!'" create --name 'bad!' /dev/x
expect 2 "--name: .* at most 31 are allowed" create --name aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa /dev/x
expect 2 "--name: the name is empty" create --name '' /dev/x
expect 2 "--name: name 'mqstripe3' looks like a device name" create --name mqstripe3 /dev/x
expect 2 "--name: name has the byte 0x0a" create --name "$(printf 'a\nb')" /dev/x
expect 2 "--uuid: 'xyz' is not a UUID" create --uuid xyz /dev/x
expect 2 "--uuid: .* is the nil UUID" create --uuid 00000000-0000-0000-0000-000000000000 /dev/x
# 65 x 16M > 1G, checked before the members are looked at
mapfile -t many < <(seq -f "$TMP/none%g" 65)
expect 2 "stripe width 65 members x 16M chunk = 1040M is larger than 1G: use --chunk 8M" create --chunk 16M "${many[@]}"
mapfile -t many < <(seq -f "$TMP/none%g" 257)
expect 2 "too many members: 257 given, at most 256" create "${many[@]}"
expect 2 "--data-offset: data offset 8K is below 12K: the superblock takes bytes 4K to 12K \\(two copies\\)" create --data-offset 8K /dev/x
expect 2 "--data-offset: data offset 0 is below 12K" create --data-offset 0 /dev/x
expect 2 "--data-offset: data offset 4K is below 8K: the superblock takes bytes 4K to 8K" create --metadata 1 --data-offset 4K /dev/x
expect 2 "--metadata: superblock format version 3 is not one this stripectl writes: use 2" create --metadata 3 /dev/x
expect 2 "--metadata: superblocks can be converted to format 2 only" assemble --metadata 1 /dev/x
expect 2 "assemble: --metadata converts the superblocks, --readonly writes nothing" assemble --metadata 2 --readonly /dev/x
expect 2 "create: option '--force' takes no value" create --force=yes /dev/x
expect 2 "assemble: no DEVICE given \\(or --scan\\)" assemble
expect 2 "assemble: unexpected argument '/dev/x' with --scan" assemble --scan /dev/x
expect 2 "assemble: --scan and --incremental exclude each other" assemble --scan --incremental
expect 2 "assemble: --incremental takes exactly one DEVICE" assemble --incremental /dev/x /dev/y
expect 2 "assemble: --change goes with --incremental" assemble --change /dev/x
expect 2 "assemble: --incremental takes exactly one DEVICE" assemble --incremental --name a /dev/x
expect 2 "assemble: give --name or --uuid, not both" assemble --name a --uuid 01234567-89ab-cdef-0123-456789abcdef /dev/x
expect 2 "--uuid: 'xyz' is not a UUID" assemble --uuid xyz /dev/x
expect 2 "--name: name 'a/b' has the character '/'" assemble --scan --name a/b
expect 2 "examine: no MEMBER given" examine
expect 2 "examine: unexpected argument '/dev/y'" examine /dev/x /dev/y
expect 2 "examine: give --json or --export, not both" examine --json --export /dev/x
expect 2 "zero-superblock: no MEMBER given" zero-superblock
expect 2 "stop: no DEVICE given" stop
expect 2 "stop: unexpected argument 'b'" stop a b
expect 2 "clear: give ARRAY and SLOT" clear a
expect 2 "clear: SLOT: 'b' is not a number" clear a b
expect 2 "clear: unexpected argument '2'" clear a 1 2
expect 2 "monitor: give --scan \(every array\) or the arrays to watch, not neither" monitor --syslog
expect 2 "monitor: give --scan \(every array\) or the arrays to watch, not both" monitor --syslog --scan db
# no destination at all: the events to stdout only, the monitor runs (it
# records faults); no array here, so --oneshot has nothing to say
expect 0 "" monitor --oneshot db
MQSTRIPE_CONF=/nonexistent expect 0 "" monitor --scan --oneshot
expect 2 "monitor: --program true: give the program's path \(it is run without a shell or PATH search\)" monitor --program true db
expect 1 "monitor: --program /nonexistent: No such file or directory: give the path of an executable program" monitor --program /nonexistent db
expect 1 "monitor: --program $TMP: Is a directory: give the path of an executable program" monitor --program "$TMP" --oneshot db
MQSTRIPE_SENDMAIL=$TMP expect 1 "monitor: mail to root needs $TMP: Is a directory \\(install a mail transfer agent" monitor --mail root --oneshot db
MQSTRIPE_SENDMAIL=/nonexistent expect 1 "monitor: mail to root needs /nonexistent: No such file or directory \(install a mail transfer agent" monitor --mail root db
expect 2 "monitor: mail address 'a b' is empty or has blanks" monitor --mail 'a b' db
MQSTRIPE_SENDMAIL=/bin/true expect 2 "monitor: mail address 'root.*' is empty or has blanks or control bytes" monitor --mail $'root\e[2J' --oneshot db
expect 2 "monitor: 'bad name' is not an array's device, name or UUID: name has the byte 0x20" monitor --syslog 'bad name'
expect 2 "monitor: /dev/null: not an mqstripe array: give an array's device" monitor --syslog /dev/null
printf 'PROGRAM bin/alert\n' >"$TMP/conf"
MQSTRIPE_CONF=$TMP/conf expect 1 "monitor: $TMP/conf:1: PROGRAM 'bin/alert' is not an absolute path" monitor --scan
printf 'PROGRAM /bin/true\nPROGRAM /bin/false\n' >"$TMP/conf"
MQSTRIPE_CONF=$TMP/conf expect 1 "monitor: $TMP/conf:2: PROGRAM given again \(first on line 1\): keep one" monitor --scan
printf 'PROGRAM /nonexistent\n' >"$TMP/conf"
MQSTRIPE_CONF=$TMP/conf expect 1 "monitor: PROGRAM \($TMP/conf:1\) /nonexistent: No such file or directory" monitor --scan
printf 'MAILADDR root\nMAILFROM\n' >"$TMP/conf"
MQSTRIPE_CONF=$TMP/conf expect 1 "monitor: $TMP/conf:2: MAILFROM without a sender: give the From: of the mails, or remove the line" monitor --scan

# mqstripe-monitor.service runs whatever /etc/mqstripe.conf says (it
# records faults, logs to syslog): its ExecCondition lines, if any, pass
# for a conf with a MAILADDR or PROGRAM line, for one without (a comment,
# a keyword without value, only other lines) and without the file
UNIT=$TOP/tools/systemd/mqstripe-monitor.service
unit_cond() {	# unit_cond CONF: every ExecCondition of the unit passes
	local c
	while IFS= read -r c; do
		c=${c#-}
		sh -c "${c//\/etc\/mqstripe.conf/$1}" || return 1
	done < <(sed -n 's/^ExecCondition=//p' "$UNIT")
}
for c in 'MAILADDR root' $'AUTO no\nPROGRAM /usr/local/sbin/alert' '# MAILADDR root' \
	'MAILADDR' 'PROGRAM   # none yet' $'AUTO no\nMAILFROM root'; do
	printf '%s\n' "$c" >"$TMP/conf"
	if unit_cond "$TMP/conf"; then
		ok "mqstripe-monitor.service: its conditions pass with '${c//$'\n'/\\n}'"
	else
		not_ok "mqstripe-monitor.service: its conditions pass with '${c//$'\n'/\\n}'"
	fi
done
if unit_cond "$TMP/nonexistent"; then
	ok "mqstripe-monitor.service: its conditions pass without the file"
else
	not_ok "mqstripe-monitor.service: its conditions pass without the file"
fi
expect 2 "rename: give ARRAY and NAME" rename a
expect 2 "add: give ARRAY and the DEVICEs to add" add a
expect 2 "rename: unexpected argument 'c'" rename a b c
expect 2 "rename: NAME: the name is empty" rename a ''
expect 2 "rename: NAME: name '\\.\\.' cannot be a link in /dev/stripe/" rename a ..
expect 2 "rename: NAME: name '-x' starts with '-'" rename a -- -x
expect 2 "status: no DEVICE given \\(only --prometheus goes without\\)" status
expect 2 "status: no DEVICE given" status --json
expect 2 "status: give --json or --prometheus, not both" status -j -p
expect 2 "status: unknown option '--bogus'" status --bogus mqstripe0
expect 2 "list: unexpected argument 'x'" list x
expect 2 "list: option '--json' takes no value" list --json=yes
expect 2 "'nope' is not a stripectl command" help nope

# --- failures seen in userspace: exit 1, naming the member ---
expect 1 "^stripectl: $TMP/nonexistent: does not exist" create "$TMP/nonexistent"
ln -s "$TMP/nowhere" "$TMP/dangling"
expect 1 "^stripectl: $TMP/dangling: does not exist" create "$TMP/dangling"
: >"$TMP/regular"
expect 1 "^stripectl: $TMP/regular: not a block device but a regular file: attach it with 'losetup" create "$TMP/regular"
expect 1 "^stripectl: /dev/null: not a block device but a character device" create /dev/null
expect 1 "^stripectl: $TMP/nonexistent: does not exist" examine "$TMP/nonexistent"
expect 1 "^stripectl: /dev/null: not a block device" examine /dev/null
expect 1 "^stripectl: $TMP/regular: no mqstripe superblock" examine "$TMP/regular"
# no superblock but what libblkid knows (mkfs over a member): named
if command -v mkfs.ext4 >/dev/null; then
	truncate -s 8M "$TMP/ext4" && mkfs.ext4 -q -F -U 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 "$TMP/ext4"
	expect 1 "^stripectl: $TMP/ext4: no mqstripe superblock: it holds a filesystem \(ext4, UUID 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0\)$" \
		examine "$TMP/ext4"
fi
# --json without a superblock: exit 1, the reason on stderr, and still a
# JSON document on stdout with status "none"
run examine --json "$TMP/regular"
if [ "$rc" -eq 1 ] && grep -q 'no mqstripe superblock' "$TMP/err" &&
   python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not (d["status"] == "none" and d["device"] == sys.argv[1] and list(d) == ["json_version", "device", "status"] and d["json_version"] == 1))' \
	"$TMP/regular" <"$TMP/out"; then
	ok "stripectl examine --json on a file without a superblock: exit 1, {json_version: 1, device, status: none}"
else
	not_ok "stripectl examine --json on a file without a superblock (exit $rc)"
	sed 's/^/# stdout: /' "$TMP/out"
	sed 's/^/# stderr: /' "$TMP/err"
fi
# bytes of a path that could drive a terminal (an escape, a C1 control,
# bytes that are not UTF-8) print as '?'; UTF-8 text stays as it is
run examine "$TMP/x$(printf '\033[31m\302\233\377\300\257')y"
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
   grep -qF "$TMP/x?[31m?????y: does not exist" "$TMP/err" &&
   ! LC_ALL=C grep -q "$(printf '[\200-\377\033]')" "$TMP/err"; then
	ok "a path with an escape, a C1 control and bytes that are not UTF-8: each byte printed as '?'"
else
	not_ok "a path with an escape, a C1 control and bytes that are not UTF-8 (exit $rc)"
	sed 's/^/# stderr: /' "$TMP/err" | od -c | head -5 | sed 's/^/# /'
fi
expect 1 "^stripectl: $TMP/caf$(printf '\303\251')/disk: does not exist" examine "$TMP/caf$(printf '\303\251')/disk"
expect 1 "^stripectl: $TMP/nonexistent: does not exist" assemble "$TMP/nonexistent"
expect 1 "^stripectl: $TMP/regular: not a block device but a regular file" assemble "$TMP/regular"
expect 1 "^stripectl: /dev/null: not a block device but a character device" zero-superblock /dev/null
expect 1 "^stripectl: $TMP: not a block device but a directory" create "$TMP"
expect 1 "^stripectl: $TMP/regular: not a block device" create --chunk 64K --name db "$TMP/regular" /dev/null

# Block device nodes of major 60 (local/experimental: no driver behind
# them).  The duplicate is found from st_rdev before anything is opened.
if [ "$(id -u)" -eq 0 ] && mknod "$TMP/blk0" b 60 0 2>/dev/null &&
   mknod "$TMP/blk1" b 60 1 2>/dev/null; then
	ln -s blk0 "$TMP/link0"
	expect 1 "^stripectl: $TMP/link0: the same device as $TMP/blk0 \(given twice\)" create "$TMP/blk0" "$TMP/blk1" "$TMP/link0"
	expect 1 "^stripectl: $TMP/blk1: given twice" create "$TMP/blk1" "$TMP/blk0" "$TMP/blk1"
	if [ -e /sys/dev/block/60:0 ]; then
		skip "60:0 has a driver here" "member without a disk"
	else
		expect 1 "^stripectl: $TMP/blk0: no disk behind the device node" create "$TMP/blk0" "$TMP/blk1"
	fi
else
	skip "needs root for mknod" "duplicate member via symlink"
	skip "needs root for mknod" "duplicate member by path"
	skip "needs root for mknod" "member without a disk"
fi

# An unbound loop device opens fine and has 0 bytes: too small.
loop=
for s in /sys/block/loop*; do
	[ -e "$s" ] || break
	if [ "$(cat "$s/size" 2>/dev/null)" = 0 ] && [ ! -e "$s/loop" ] &&
	   [ -b "/dev/${s##*/}" ]; then
		loop=/dev/${s##*/}
		break
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	skip "needs root" "member too small (unbound loop device)"
elif [ -z "$loop" ]; then
	skip "no unbound loop device" "member too small (unbound loop device)"
else
	expect 1 "^stripectl: $loop: member is too small: needs at least data offset \+ one chunk \(1572864 bytes\), has 0 bytes" create "$loop"
fi

# --- no module: the control device is missing ---
if [ -e /dev/mqstripe-control ] || [ -e /sys/class/misc/mqstripe-control ]; then
	for c in list status stop; do
		skip "the module is loaded" "$c without the module"
	done
else
	msg="^stripectl: /dev/mqstripe-control not found: load the module with 'modprobe mqstripe'\$"
	expect 1 "$msg" list
	expect 1 "$msg" list --json
	expect 1 "$msg" status mqstripe0
	expect 1 "$msg" status --json /dev/mqstripe0
	expect 1 "$msg" stop /dev/mqstripe0
	expect 1 "$msg" stop db
fi

# --- help and version: exit 0, on stdout ---
expect 0 "" --help
if grep -q '^Usage: stripectl ' "$TMP/out"; then
	ok "--help prints the usage"
else
	not_ok "--help prints the usage"
fi
expect 0 "" -h
expect 0 "" help
for c in create stop rename list status monitor help; do
	expect 0 "" "$c" --help
	if grep -q "^Usage: stripectl $c" "$TMP/out" &&
	   [ "$(awk 'length > 80' "$TMP/out" | wc -l)" -eq 0 ]; then
		ok "$c --help: usage on stdout, lines of at most 80 columns"
	else
		not_ok "$c --help: usage on stdout, lines of at most 80 columns"
	fi
	expect 0 "" help "$c"
done
expect 0 "" create --chunk 64K --help
expect 0 "" create --data-offset 1T --help
# every command with a SIZE option says what SIZE is, with the suffixes
# the parser takes (K, M, G, T)
for c in $("$STRIPECTL" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	"$STRIPECTL" "$c" --help >"$TMP/help" 2>&1
	grep -qE '^ +(-[a-z], )?--[a-z-]+ SIZE ' "$TMP/help" || continue
	if tr '\n' ' ' <"$TMP/help" | tr -s ' ' |
	   grep -qF 'SIZE is a number of bytes, or a number with a K, M, G or T suffix (also KiB, MiB, GiB, TiB; powers of 1024, any case)'; then
		ok "$c --help says what SIZE is: K, M, G or T"
	else
		not_ok "$c --help says what SIZE is: K, M, G or T"
		grep -i 'suffix' "$TMP/help" | sed 's/^/# /'
	fi
done

expect 0 "" --version
version=$(sed -n 's/^PACKAGE_VERSION="*\([^"]*\)"*$/\1/p' "$TOP/dkms.conf")
first=$(head -n 1 "$TMP/out")
if [ "$first" = "stripectl $version" ]; then
	ok "--version prints 'stripectl $version' (dkms.conf)"
else
	not_ok "--version prints 'stripectl $version' (dkms.conf), got '$first'"
fi

# stdout that cannot be written (a full disk: /dev/full) is a failure,
# said on stderr, not exit 0 with the output lost
full() {	# full DESC ARGS...: stdout to /dev/full: exit 1, the reason
	local desc=$1
	shift
	"$STRIPECTL" "$@" >/dev/full 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
	   grep -q '^stripectl: cannot write to standard output: No space left on device$' "$TMP/err"; then
		ok "$desc > /dev/full: exit 1, saying why"
	else
		not_ok "$desc > /dev/full: exit 1, saying why (got exit $rc)"
		sed 's/^/# stderr: /' "$TMP/err"
	fi
}
full "--help" --help
full "--version" --version
full "create --help" create --help
full "help status" help status

ktap_done
