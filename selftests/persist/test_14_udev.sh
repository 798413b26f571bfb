#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-reboot
# mqs-needs: persist/test_01_create
#
# The udev rule: installed in the guest's udevd, an "add"
# event for each member (in random order) imports "stripectl examine
# --export", runs "stripectl assemble --incremental", and the array gets
# /dev/stripe/NAME.  The members are tagged as mqstripe members in udev's
# database; the array's filesystem and its partitions get the
# /dev/disk/by-uuid, by-label, by-partuuid and by-partlabel links and
# lsblk -f sees them; a rename moves /dev/stripe/NAME and
# disk/by-id/mqstripe-name-NAME; a stop removes the link and does not start the
# array again (its superblock writes make "change" events); a leg of an md
# mirror (metadata at the end) that shows a member's superblock never
# starts the array: the md device is the member, and its change event when
# it runs starts the array, as a device-mapper map's activation does; a
# device that multipath-tools' rules mark as a path of a multipath map
# (DM_MULTIPATH_DEVICE_PATH=1 or ID_FS_TYPE=mpath_member) is taken as a
# member neither by its add event nor by assemble --scan.  What other
# tools see on a member: of a running array, mkfs.ext4, mkfs.xfs and
# wipefs -a fail busy and leave the superblock; of a stopped one, udev's
# database and lsblk -f say mqstripe_member while blkid -p and wipefs see
# nothing (no libblkid prober) and wipefs -a leaves the superblock;
# mkfs.ext4 without -F writes over it, and then assemble and examine name
# the device and the ext4 filesystem on it; zero-superblock removes it.
# Two arrays of one name both start, the first with /dev/stripe/NAME, the
# second without the name.
# Catches: a rule that never matches, a name link missing or left behind
# (also after a rename), the second array of one name left stopped,
# an array's filesystem without by-uuid link (fstab's UUID= never
# mounted at boot), an array restarted by the events of its own stop, an
# array started on a multipath path (the map could then never form), a
# member written over that assemble reports only as "no superblock".
# With GROW auto in mqstripe.conf a member's resize event (losetup -c)
# grows its running array to the room every member has; without it
# nothing grows.  Catches: a rule that misses RESIZE=1, a grow past the
# smallest member, an array grown without the line.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
read_record
pidof systemd-udevd >/dev/null 2>&1 || mqs_skip "no udevd in this guest (run-vm.sh --udev)"
RULE_SRC=$MQS_REPO/tools/udev/64-mqstripe.rules
RULE=/etc/udev/rules.d/64-mqstripe.rules
[ -r "$RULE_SRC" ] || mqs_die "$RULE_SRC exists"

need_members "$UUID" 4
check_no_arrays "no array before the events"

mkdir -p /etc/udev/rules.d
install_rule() {
	sed "s|/usr/sbin/stripectl|$STRIPECTL|g" "$RULE_SRC" >"$RULE"
	udevadm control --reload
}
install_rule
cleanup_rule() {
	rm -f "$RULE"
	udevadm control --reload >/dev/null 2>&1
}
trap 'cleanup_rule; mqs_cleanup' EXIT
check_cmd "udevadm control --reload" udevadm control --reload
check_cmd "udevadm test parses the rule" bash -c \
	"udevadm test --action=change /sys/class/block/$(blk_name "${M[0]}") 2>&1 | grep -q 64-mqstripe.rules"

mark=$(klog_mark "persist udev")
for d in $(printf '%s\n' "${M[@]}" | shuf); do
	udevadm trigger --action=add "/sys/class/block/$(blk_name "$d")"
done
udevadm settle --timeout=60
A=$(array_by_uuid "$UUID")
if [ -n "$A" ]; then
	pass "the add events started the array ($A)"
	track_array "$A"
else
	mqs_die "the add events started the array" "$(journalctl 2>/dev/null | tail -n 5)"
fi
check_eq "/dev/stripe/$NAME points at $A" "$A" "$(readlink -f "/dev/stripe/$NAME")"
check_eq "/dev/disk/by-id/mqstripe-uuid-$UUID points at $A" "$A" \
	"$(readlink -f "/dev/disk/by-id/mqstripe-uuid-$UUID")"
udevadm info --query=property "${M[0]}" >"$MQS_TMP/prop"
check_match "udev database: MQSTRIPE_ARRAY_UUID of ${M[0]}" "^MQSTRIPE_ARRAY_UUID=$UUID$" "$(cat "$MQS_TMP/prop")"
check_match "udev database: MQSTRIPE_SLOT of ${M[0]}" "^MQSTRIPE_SLOT=0$" "$(cat "$MQS_TMP/prop")"
check_match "udev database: ID_FS_TYPE=mqstripe_member" "^ID_FS_TYPE=mqstripe_member$" "$(cat "$MQS_TMP/prop")"
check_eq "lsblk -f: FSTYPE mqstripe_member" mqstripe_member "$(lsblk -dno FSTYPE "${M[0]}")"
udevadm trigger --action=add "/sys/class/block/$(blk_name "${M[2]}")"
udevadm settle --timeout=60
check_eq "another add of a member: still one array" 1 "$(mqs_arrays | wc -l)"
check_eq "/dev/disk/by-id/mqstripe-name-$NAME points at $A" "$A" \
	"$(readlink -f "/dev/disk/by-id/mqstripe-name-$NAME")"
# rename: the module's change uevent moves both name links, the old gone
links() {	# links NAME: where its two links point, "-" for none
	local l
	for l in "/dev/stripe/$1" "/dev/disk/by-id/mqstripe-name-$1"; do
		if [ -e "$l" ]; then printf '%s ' "$(readlink -f "$l")"; else printf -- '- '; fi
	done
}
MOVED=$NAME-moved
check_cmd "rename $NAME to $MOVED" "$STRIPECTL" rename "$A" "$MOVED"
udevadm settle --timeout=60
check_eq "after the rename: the links of $MOVED point at $A, those of $NAME are gone" \
	"$A $A - - " "$(links "$MOVED")$(links "$NAME")"
check_cmd "rename back to $NAME" "$STRIPECTL" rename "/dev/stripe/$MOVED" "$NAME"
udevadm settle --timeout=60
check_eq "after renaming back: the links of $NAME point at $A, those of $MOVED are gone" \
	"$A $A - - " "$(links "$NAME")$(links "$MOVED")"

# What is on the array, in udev's database and as /dev/disk links, the
# way /etc/fstab's UUID= and LABEL= find it at boot (the rule's watch
# makes mkfs's close a change event that probes it again).
check_cmd "mkfs.xfs -L dbdata on the array" mkfs.xfs -q -f -L dbdata "$A"
udevadm settle --timeout=60
fsuuid=$(blkid -p -s UUID -o value "$A")
check_eq "/dev/disk/by-uuid/$fsuuid (the filesystem's) points at $A" "$A" \
	"$(readlink -f "/dev/disk/by-uuid/$fsuuid")"
check_eq "/dev/disk/by-label/dbdata points at $A" "$A" "$(readlink -f /dev/disk/by-label/dbdata)"
check_eq "lsblk -f: FSTYPE xfs on the array" xfs "$(lsblk -dno FSTYPE "$A")"
check_eq "lsblk -f: LABEL dbdata on the array" dbdata "$(lsblk -dno LABEL "$A")"
# a partition table on the array: the partition's links
check_cmd "a GPT with one partition named dbpart on the array" bash -c \
	"wipefs -qa '$A' && printf 'label: gpt\\nsize=64M, type=L, name=dbpart\\n' | sfdisk -q '$A'"
udevadm settle --timeout=60
P=$(lsblk -lnpo NAME,TYPE "$A" | awk '$2 == "part" { print $1; exit }')
[ -b "$P" ] || fail "the partition of $A appeared" "lsblk: $(lsblk -lnpo NAME,TYPE "$A" | tr '\n' ' ')"
P=${P:-no-partition}
partuuid=$(blkid -p -s PART_ENTRY_UUID -o value "$P" 2>/dev/null)
check_eq "/dev/disk/by-partlabel/dbpart points at the partition ($P)" "$P" \
	"$(readlink -f /dev/disk/by-partlabel/dbpart)"
check_eq "/dev/disk/by-partuuid/$partuuid points at $P" "$P" \
	"$(readlink -f "/dev/disk/by-partuuid/$partuuid")"
check_cmd "mkfs.ext4 -L dbpartfs on the partition" mkfs.ext4 -q -F -L dbpartfs "$P"
udevadm settle --timeout=60
check_eq "/dev/disk/by-label/dbpartfs points at $P" "$P" "$(readlink -f /dev/disk/by-label/dbpartfs)"
wipefs -qa "$P" "$A" >/dev/null 2>&1
udevadm settle --timeout=60

check_cmd "stop by its /dev/stripe name" "$STRIPECTL" stop "/dev/stripe/$NAME"
MQS_ARRAYS=()
udevadm settle --timeout=60
if [ -e "/dev/stripe/$NAME" ]; then
	fail "/dev/stripe/$NAME gone after stop" "$(ls -l "/dev/stripe/$NAME")"
else
	pass "/dev/stripe/$NAME gone after stop"
fi
sleep 2
udevadm settle --timeout=60
check_no_arrays "the change events of the stop did not start it again"
check_eq "members clean after the stop" "clean clean clean clean" \
	"$(for d in "${M[@]}"; do ex "$d" MQSTRIPE_STATE; done | tr '\n' ' ' | sed 's/ $//')"

# Stacked members get their content at a "change" event, not at "add":
# an md array when it runs, a device-mapper map at its activation.  A
# leg of an md mirror with its metadata at the end (format 1.0) shows the
# superblock of the array on the mirror at the same place.  With md not
# assembling on its own (its rule shadowed, as AUTO -all in mdadm.conf
# would), the add events of a leg and of the other member must not start
# the array on the leg (that would split the mirror); the md array's
# change event when it runs starts the array on it.  After a stop, the
# change events of the stop's own writes start nothing; after a reboot
# (/run empty) the next activation starts the array again.
# check_runs UUID WHAT DEV...: the array UUID runs over exactly the DEVs
# (its slaves), as STARTED; check_started: the same, then it is stopped.
check_runs() {
	local uuid=$1 what=$2
	shift 2
	STARTED=$(array_by_uuid "$uuid")
	if [ -z "$STARTED" ]; then
		fail "$what" "$(ls -l "/run/mqstripe/$uuid" 2>&1)"
		return 1
	fi
	track_array "$STARTED"
	check_eq "$what: its members" \
		"$(for d in "$@"; do blk_name "$(readlink -f "$d")"; done | sort | xargs)" \
		"$(find "/sys/block/${STARTED#/dev/}/slaves/" -mindepth 1 -printf '%f\n' | sort | xargs)"
}
check_started() {
	check_runs "$@" && check_stop "$STARTED"
}
MDRULE=/etc/udev/rules.d/64-md-raid-assembly.rules
MDNAME=mqsleg
DMNAME=mqst-late
cleanup_stacked() {
	dmsetup remove --retry "$DMNAME" >/dev/null 2>&1
	mdadm --stop "/dev/md/$MDNAME" >/dev/null 2>&1
	rm -f "$MDRULE" /etc/udev/rules.d/56-mqs-*.rules
	cleanup_rule
}
trap 'cleanup_stacked; mqs_cleanup' EXIT
: >"$MDRULE"
udevadm control --reload
L=()
for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
	truncate -s 64M "$MQS_TMP/leg$i.img"
	mqs_loop_create "$MQS_TMP/leg$i.img" || mqs_die "losetup leg$i"
	L+=("$LOOP_DEV")
done
udevadm settle --timeout=60
check_cmd "md raid1 with its metadata at the end over ${L[0]} ${L[1]}" \
	mdadm --create "/dev/md/$MDNAME" --run --assume-clean --metadata=1.0 \
	--level=1 --raid-devices=2 "${L[0]}" "${L[1]}"
udevadm settle --timeout=60
MD=$(readlink -f "/dev/md/$MDNAME")
# md's superblock at the end leaves the mirror a little smaller than the
# loop device: create's note on its zones goes to stderr
A=$("$STRIPECTL" create --name mdleg --chunk 64K "$MD" "${L[2]}" 2>"$MQS_TMP/create.err")
[ -b "$A" ] || mqs_die "create over $MD and ${L[2]}" "$A $(cat "$MQS_TMP/create.err")"
LUUID=$(ex "$MD" MQSTRIPE_ARRAY_UUID)
check_cmd "stop the array over $MD" "$STRIPECTL" stop "$A"
udevadm settle --timeout=60
sleep 2
udevadm settle --timeout=60
check_eq "the change events of the stop (md is watched) did not start it again" "" \
	"$(array_by_uuid "$LUUID")"
check_cmd "stop $MD" mdadm --stop "$MD"
out=$("$STRIPECTL" assemble --scan --uuid "$LUUID" 2>&1)
check_eq "assemble --scan with the mirror stopped: not started on its leg" "" \
	"$(array_by_uuid "$LUUID")"
check_match "... slot 0 is missing (the leg is no member)" "slot 0 .* is missing" "$out"
rm -rf "/run/mqstripe/$LUUID"	# as a reboot empties /run
udevadm settle --timeout=60
check_eq "the leg ${L[0]} shows the superblock of slot 0" "$LUUID 0" \
	"$(ex "${L[0]}" MQSTRIPE_ARRAY_UUID) $(ex "${L[0]}" MQSTRIPE_SLOT)"
for d in "${L[0]}" "${L[2]}"; do
	udevadm trigger --action=add "/sys/class/block/$(blk_name "$d")"
done
udevadm settle --timeout=60
check_eq "add events of a mirror's leg and the other member: no array started" "" \
	"$(array_by_uuid "$LUUID")"
check_eq "udev database: the leg stays linux_raid_member" linux_raid_member \
	"$(udevadm info --query=property "${L[0]}" | sed -n 's/^ID_FS_TYPE=//p')"
check_eq "the leg is not recorded for slot 0" "" \
	"$(ls "/run/mqstripe/$LUUID/slot-0" 2>/dev/null)"
check_cmd "assemble the mirror again" mdadm --assemble "/dev/md/$MDNAME" "${L[0]}" "${L[1]}"
udevadm settle --timeout=60
MD=$(readlink -f "/dev/md/$MDNAME")
check_started "$LUUID" "the md array's change event started the array over it" "$MD" "${L[2]}"
udevadm settle --timeout=60
check_cmd "stop $MD" mdadm --stop "$MD"
rm -rf "/run/mqstripe/$LUUID"

# a device-mapper map that comes late: its activation starts the array
sz=$(blockdev --getsz "${L[3]}")
check_cmd "dmsetup create $DMNAME over ${L[3]}" dmsetup create "$DMNAME" --table "0 $sz linear ${L[3]} 0"
udevadm settle --timeout=60
DM=/dev/$(dmsetup info -c --noheadings -o blkdevname "$DMNAME" | tr -d ' ')
A=$("$STRIPECTL" create --name dmlate --chunk 64K "$DM" "${L[4]}" 2>&1)
[ -b "$A" ] || mqs_die "create over $DM and ${L[4]}" "$A"
DUUID=$(ex "$DM" MQSTRIPE_ARRAY_UUID)
check_cmd "stop the array over $DM" "$STRIPECTL" stop "$A"
udevadm settle --timeout=60
check_cmd "dmsetup remove $DMNAME" dmsetup remove --retry "$DMNAME"
rm -rf "/run/mqstripe/$DUUID"	# as a reboot empties /run
udevadm trigger --action=add "/sys/class/block/$(blk_name "${L[4]}")"
udevadm settle --timeout=60
check_eq "one member of two: not started" "" "$(array_by_uuid "$DUUID")"
check_cmd "dmsetup create $DMNAME again" dmsetup create "$DMNAME" --table "0 $sz linear ${L[3]} 0"
udevadm settle --timeout=60
DM=/dev/$(dmsetup info -c --noheadings -o blkdevname "$DMNAME" | tr -d ' ')
check_started "$DUUID" "the map's activation started the array over it" "$DM" "${L[4]}"
udevadm settle --timeout=60
cleanup_stacked
rm -rf "/run/mqstripe/$DUUID"

# Paths of a multipath map: multipath-tools' rules (56-multipath.rules)
# mark a path DM_MULTIPATH_DEVICE_PATH=1 and ID_FS_TYPE=mpath_member as it
# appears, before multipathd builds the map over it.  The map is the
# member: neither the add event nor assemble --scan may take a path.  A
# stand-in rule, one file loaded once, marks slot 0 one way and slot 1 the
# other; slot 2 is unmarked.
install_rule
A=$("$STRIPECTL" create --name mpath --chunk 64K "${L[9]}" "${L[10]}" "${L[11]}" 2>&1)
[ -b "$A" ] || mqs_die "create over ${L[9]}, ${L[10]} and ${L[11]}" "$A"
MUUID=$(ex "${L[9]}" MQSTRIPE_ARRAY_UUID)
check_cmd "stop the array over ${L[9]}, ${L[10]} and ${L[11]}" "$STRIPECTL" stop "$A"
udevadm settle --timeout=60
rm -rf "/run/mqstripe/$MUUID"	# as a reboot empties /run
MPRULE=/etc/udev/rules.d/56-mqs-mpath.rules
printf 'KERNEL=="%s", ENV{DM_MULTIPATH_DEVICE_PATH}="1"\nKERNEL=="%s", ENV{ID_FS_TYPE}="mpath_member"\n' \
	"$(blk_name "${L[9]}")" "$(blk_name "${L[10]}")" >"$MPRULE"
udevadm control --reload
udevadm settle --timeout=60
for d in "${L[9]}" "${L[10]}" "${L[11]}"; do
	udevadm trigger --action=add "/sys/class/block/$(blk_name "$d")"
done
udevadm settle --timeout=60
check_match "udev database: ${L[9]} has DM_MULTIPATH_DEVICE_PATH=1" "^DM_MULTIPATH_DEVICE_PATH=1$" \
	"$(udevadm info --query=property "${L[9]}")"
check_match "udev database: ${L[10]} has ID_FS_TYPE=mpath_member" "^ID_FS_TYPE=mpath_member$" \
	"$(udevadm info --query=property "${L[10]}")"
check_eq "add events of the two marked paths and the third member: not started" "" \
	"$(array_by_uuid "$MUUID")"
check_eq "... only slot 2 is recorded (neither path)" "slot-2" \
	"$(ls "/run/mqstripe/$MUUID" 2>/dev/null | grep '^slot-' | xargs)"
out=$("$STRIPECTL" assemble --scan --uuid "$MUUID" 2>&1)
check_eq "assemble --scan with the two paths marked: not started" "" "$(array_by_uuid "$MUUID")"
check_match "... slots 0 and 1 are missing (the paths are no members)" \
	"slot 0 .* and 1 more are missing: found 1 of 3" "$out"
a=$(array_by_uuid "$MUUID")
[ -z "$a" ] || "$STRIPECTL" stop "$a" >/dev/null 2>&1
rm -f "$MPRULE"
udevadm control --reload
udevadm settle --timeout=60
rm -rf "/run/mqstripe/$MUUID"
for d in "${L[9]}" "${L[10]}" "${L[11]}"; do
	udevadm trigger --action=add "/sys/class/block/$(blk_name "$d")"
done
udevadm settle --timeout=60
check_runs "$MUUID" "without the marks the add events start it" "${L[9]}" "${L[10]}" "${L[11]}"

# What other tools see on a member.  libblkid has no mqstripe prober
# (docs/LIBBLKID.md): blkid -p and wipefs see nothing on a member, and
# mkfs neither warns nor refuses.  udev's database (the rule) and
# stripectl examine are the checks; a running array's members are held
# exclusively, so mkfs and wipefs -a fail there; zero-superblock is what
# wipefs -a is not; assemble names a member written over and what is on
# it now.  The members of the array "mpath" above: L9 slot 0, L10 slot 1.
K0=${L[9]} K1=${L[10]}
# sbid DEV: array UUID and slot of DEV's valid superblock, one examine
sbid() {
	"$STRIPECTL" examine --export "$1" 2>/dev/null |
		sed -n 's/^MQSTRIPE_ARRAY_UUID=//p; s/^MQSTRIPE_SLOT=//p' | xargs
}
for c in "mkfs.ext4 -q -F" "mkfs.xfs -q -f" "wipefs -a"; do
	out=$($c "$K0" 2>&1 </dev/null)
	rc=$?
	if [ $rc -ne 0 ] && [[ $out == *busy* || $out == *"in use"* ]]; then
		pass "running array: $c $K0 fails, busy ($out)"
	else
		fail "running array: $c $K0 fails, busy" "exit status $rc" "output: $out"
	fi
done
check_eq "... the superblock is intact: examine reads slot 0 of $MUUID" "$MUUID 0" "$(sbid "$K0")"
[ -z "$STARTED" ] || check_stop "$STARTED"
udevadm settle --timeout=60
# stopped: udev's database and lsblk -f know the member, libblkid does not
check_eq "stopped array: lsblk -f of $K0 says mqstripe_member, format 2, the array UUID" \
	"mqstripe_member 2 $MUUID" "$(lsblk -dno FSTYPE,FSVER,UUID "$K0" | xargs)"
out=$(blkid -p "$K0" 2>&1)
check_eq "... blkid -p finds nothing (exit status 2; no libblkid prober)" "2 " "$? $out"
check_eq "... wipefs lists nothing" "" "$(wipefs "$K0" 2>&1)"
check_cmd "... wipefs -a $K0 exits 0" wipefs -a "$K0"
check_eq "... and leaves the superblock: examine reads slot 0 of $MUUID" "$MUUID 0" "$(sbid "$K0")"
# mkfs over a stopped member: no warning, no question, no -F needed
check_cmd "mkfs.ext4 (no -F, no terminal) over the stopped member $K1: exit 0" \
	bash -c "mkfs.ext4 -q '$K1' </dev/null"
udevadm settle --timeout=60
fsuuid=$(blkid -p -s UUID -o value "$K1")
check_eq "... lsblk -f of $K1 now says ext4" ext4 "$(lsblk -dno FSTYPE "$K1")"
check_fails "... assemble refuses, naming $K1 and the ext4 filesystem on it" 1 \
	"^stripectl: $K1: no mqstripe superblock: not a member of an array, or one written over since .*: it holds a filesystem \(ext4, UUID $fsuuid\) \(see " \
	"$STRIPECTL" assemble "${L[9]}" "${L[10]}" "${L[11]}"
check_fails "... examine $K1 says so" 1 \
	"^stripectl: $K1: no mqstripe superblock: it holds a filesystem \(ext4, UUID $fsuuid\)$" \
	"$STRIPECTL" examine "$K1"
check_no_arrays "... nothing started"
# zero-superblock: what wipefs -a does for other signatures
check_cmd "zero-superblock $K0 ${L[11]}" "$STRIPECTL" zero-superblock "$K0" "${L[11]}"
udevadm settle --timeout=60
check_eq "... examine finds no superblock, lsblk -f no FSTYPE on them" "1  " \
	"$("$STRIPECTL" examine --export "$K0" >/dev/null 2>&1; echo $?) $(lsblk -dno FSTYPE "$K0" | xargs) $(lsblk -dno FSTYPE "${L[11]}" | xargs)"
rm -rf "/run/mqstripe/$MUUID"

# GROW auto: a member's resize event (losetup -c: RESIZE=1) grows its
# running array once every member has room, to the smallest member's
# room; without the line nothing grows
CONF=/etc/mqstripe.conf
[ -e "$CONF" ] && cp "$CONF" "$MQS_TMP/conf.saved"
G=()
for i in 0 1; do
	truncate -s 32M "$MQS_TMP/grow$i.img"
	mqs_loop_create "$MQS_TMP/grow$i.img" || mqs_die "losetup grow$i"
	G+=("$LOOP_DEV")
done
A=$("$STRIPECTL" create --name autogrow --chunk 64K "${G[@]}" 2>&1)
[ -b "$A" ] || mqs_die "create over ${G[*]}" "$A"
MQS_ARRAYS+=("$A")
pattern fill "$A" 0 $((62 << 20)) 14 >/dev/null || fail "fill $A"
resized() {	# resized I MiB: member I's file grows, the loop device learns it
	truncate -s "$2M" "$MQS_TMP/grow$1.img" && losetup -c "${G[$1]}" &&
		udevadm settle --timeout=60
}
printf 'AUTO yes\n' >"$CONF"
resized 0 64
resized 1 64
check_eq "without GROW auto the members' resize events grow nothing" $((62 << 20)) "$(blk_bytes "$A")"
printf 'GROW auto\n' >"$CONF"
resized 0 96
check_eq "GROW auto, one member's resize event: grown to what the smallest member holds (2 x 63M)" \
	$((126 << 20)) "$(blk_bytes "$A")"
resized 1 96
check_eq "GROW auto, the other's: grown to 2 x 95M" $((190 << 20)) "$(blk_bytes "$A")"
check_eq "the superblocks record it" "$((95 << 20)) $((95 << 20))" \
	"$(ex "${G[0]}" MQSTRIPE_DATA_BYTES) $(ex "${G[1]}" MQSTRIPE_DATA_BYTES)"
pattern check "$A" 0 $((62 << 20)) 14 >/dev/null
check_eq "the data written before reads back" 0 $?
check_cmd "stop the grown array" "$STRIPECTL" stop "$A"
if [ -e "$MQS_TMP/conf.saved" ]; then
	cp "$MQS_TMP/conf.saved" "$CONF"
else
	rm -f "$CONF"
fi
udevadm settle --timeout=60

# An array on arrays: assemble --scan starts the lower ones, then, in a
# second round, the one over them (the rule out of the way: its add
# events of the lower arrays would start the upper one too).
cleanup_rule
A1=$("$STRIPECTL" create --name low1 --chunk 64K "${L[5]}" "${L[6]}" 2>&1)
A2=$("$STRIPECTL" create --name low2 --chunk 64K "${L[7]}" "${L[8]}" 2>&1)
AU=$("$STRIPECTL" create --name up --chunk 128K "$A1" "$A2" 2>&1)
[ -b "$AU" ] || mqs_die "an array over two arrays" "$A1 $A2 $AU"
UU=$(ex "$A1" MQSTRIPE_ARRAY_UUID)
check_cmd "stop --scan: the three arrays" "$STRIPECTL" stop --scan
udevadm settle --timeout=60
printf 'AUTO no\nARRAY name=low1\nARRAY name=low2\nARRAY name=up\n' >"$MQS_TMP/scan.conf"
out=$(MQSTRIPE_CONF=$MQS_TMP/scan.conf "$STRIPECTL" assemble --scan 2>&1)
rc=$?
diag "assemble --scan: $out"
check_eq "assemble --scan over an array on arrays: exit 0 (the upper one's missing slots are no error once a later round fills them)" \
	0 "$rc"
A1=$(array_by_uuid "$(cat "/sys/class/block/$(blk_name "${L[5]}")/holders/"*/mqstripe/uuid 2>/dev/null)")
A2=$(array_by_uuid "$(cat "/sys/class/block/$(blk_name "${L[7]}")/holders/"*/mqstripe/uuid 2>/dev/null)")
check_started "$UU" "assemble --scan started the array over two arrays" "$A1" "$A2"
check_cmd "stop --scan: the three arrays again" "$STRIPECTL" stop --scan
check_eq "no array left" "" "$(mqs_arrays)"
udevadm settle --timeout=60
rm -rf /run/mqstripe/*-*

# Two arrays of one name (different UUIDs, the second made with --force):
# the add events start both, the first complete one with the name
# (/dev/stripe/twin), the other without it: an empty sysfs name, linked
# by its UUID only, the name kept in its superblock.
T=$("$STRIPECTL" create --name twin --chunk 64K "${L[9]}" 2>&1) ||
	mqs_die "create twin over ${L[9]}" "$T"
"$STRIPECTL" stop "$T" >/dev/null || mqs_die "stop $T"
T=$("$STRIPECTL" create --force --name twin --chunk 64K "${L[11]}" 2>"$MQS_TMP/twin.err") ||
	mqs_die "create --force twin over ${L[11]}" "$(cat "$MQS_TMP/twin.err")"
"$STRIPECTL" stop "$T" >/dev/null || mqs_die "stop $T"
TU1=$(ex "${L[9]}" MQSTRIPE_ARRAY_UUID) TU2=$(ex "${L[11]}" MQSTRIPE_ARRAY_UUID)
install_rule
for d in "${L[9]}" "${L[11]}"; do
	udevadm trigger --action=add "/sys/class/block/$(blk_name "$d")"
	udevadm settle --timeout=60
done
T1=$(array_by_uuid "$TU1") T2=$(array_by_uuid "$TU2")
check_eq "two arrays named twin: the add events start both" "yes yes" \
	"$([ -b "$T1" ] && echo yes) $([ -b "$T2" ] && echo yes)"
check_eq "... /dev/stripe/twin is the first one's ($T1)" "$T1" "$(readlink -f /dev/stripe/twin)"
check_eq "... the second ($T2) has no name in the module, is linked by its UUID, and its superblock keeps the name" \
	"/$T2/twin" \
	"$(cat "/sys/class/block/$(blk_name "$T2")/mqstripe/name" 2>&1)/$(readlink -f "/dev/disk/by-id/mqstripe-uuid-$TU2")/$(ex "${L[11]}" MQSTRIPE_NAME)"
check_cmd "stop --scan: both" "$STRIPECTL" stop --scan
check_eq "no array left" "" "$(mqs_arrays)"
udevadm settle --timeout=60
rm -rf /run/mqstripe/*-*

check_klog "no kernel warning" "$mark"
mqs_finish
