#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An NVMe over Fabrics (nvme-tcp) test bed inside the guest, for the
# fabric tests.  Sourced after lib.sh.  Each target "host" is the kernel's
# nvmet with its own subsystem, namespaces backed by sparse files, and its
# own nvme-tcp port on 127.0.0.1; the initiator connects to each with
# nvme-cli.  A cut link is an nftables table dropping every packet to or
# from the target's port (the host then sees a real path loss: keep-alive
# timeout, error recovery, reconnect attempts); fab_restore deletes it.
# With FAB_NETNS=1 (set before fab_ready; the bench's setup e) each target
# lives in a network namespace of its own (mqsfab<T>) joined to the
# initiator's by a veth pair, 10.77.<T>.1 here, 10.77.<T>.2 there: nvmet's
# ports are not per namespace, but nvmet-tcp opens a port's listening
# socket in the network namespace of the task that enables the port (the
# link of a subsystem into it), so fab_in_target makes that link inside
# the target's namespace.  fab_cut and fab_restore are for 127.0.0.1.
# fab_cleanup (the EXIT trap) disconnects, removes the nft tables, the
# nvmet configuration and the modules loaded here: nothing is left.

# shellcheck disable=SC2034,SC2317	# used by the sourcing scripts; called indirectly

FAB_CFG=/sys/kernel/config/nvmet
FAB_PORT0=4430		# target T listens on FAB_PORT0 + T
FAB_NQN=nqn.2014-08.org.mqstripe:fab-t	# subsystem of target T: FAB_NQN<T>
FAB_TARGETS=0		# targets set up
FAB_DEVS=()		# /dev/nvmeXnY of every namespace, target by target
# --ctrl-loss-tmo and --reconnect-delay of the connections.  The host
# gives up after tmo / delay reconnect attempts, and an attempt on a cut
# link waits for its SYN to time out (seconds under TCG): 5 attempts
FAB_LOSS_TMO=${MQS_FAB_LOSS_TMO:-10}
FAB_RECONNECT=2
FAB_MODS=()		# modules loaded here, unloaded at cleanup
FAB_DIR=		# tmpfs of the backing files (nvmet sees a size of 0
			# through the overlay root; buffered_io: 6.1's tmpfs
			# has no O_DIRECT)
# Transparent huge pages while the bed is up, and the setting to restore.
# 6.1's nvme-tcp host sends a multi-page bvec as one fragment starting at
# its first page; on loopback the target receives that very fragment, and
# one starting in a huge page and running on into the next (physically
# adjacent) page fails hardened usercopy's check of the copy against its
# folio: "kernel BUG at mm/usercopy.c:101" in nvmet_tcp_io_work.  Over a
# network the receiver copies from its own buffers.  From 6.5 on the host
# sends page by page, so only 6.1 runs the fabric tests without them.
FAB_THP=/sys/kernel/mm/transparent_hugepage/enabled
FAB_THP_WAS=
FAB_NETNS=${FAB_NETNS:-0}	# 1: each target in its own netns, over veth

# fab_addr T: the address target T listens on
fab_addr() {
	if [ "$FAB_NETNS" = 1 ]; then echo "10.77.$1.2"; else echo 127.0.0.1; fi
}

# fab_in_target T CMD...: run CMD in target T's network namespace (as it
# is without FAB_NETNS)
fab_in_target() {
	local t=$1
	shift
	if [ "$FAB_NETNS" = 1 ]; then
		nsenter --net="/run/netns/mqsfab$t" "$@"
	else
		"$@"
	fi
}

# fab_veth T: network namespace mqsfab<T>, joined to this one by the veth
# pair mqsfab<T> (here) and eth0 (there)
fab_veth() {
	local t=$1 ns=mqsfab$1
	ip netns add "$ns" &&
		ip link add "$ns" type veth peer name eth0 netns "$ns" &&
		ip addr add "10.77.$t.1/24" dev "$ns" &&
		ip link set "$ns" up &&
		ip -n "$ns" addr add "$(fab_addr "$t")/24" dev eth0 &&
		ip -n "$ns" link set eth0 up &&
		ip -n "$ns" link set lo up
}

# The kernel option of each module the bed loads.
declare -A FAB_KCONFIG=([nvmet]=CONFIG_NVME_TARGET [nvmet_tcp]=CONFIG_NVME_TARGET_TCP
	[nvme_tcp]=CONFIG_NVME_TCP [nf_tables]=CONFIG_NF_TABLES [veth]=CONFIG_VETH)
# Which kernels have them (the skip reason): Debian's, and the debug
# kernel when built from tools/vm/debug.config.
FAB_KHINT="the fabric tests need nvmet, nvmet_tcp, nvme_tcp and nf_tables with the inet family; a debug kernel built from tools/vm/debug.config (make debug-kernel) has them"

# fab_loadable: the modules loaded now (not the built-in ones), sorted
fab_loadable() {
	local d
	for d in /sys/module/*/initstate; do
		[ -e "$d" ] || continue
		d=${d%/initstate}
		echo "${d##*/}"
	done | sort
}

# fab_ready: nvme-cli, nft and the nvmet/nvme-tcp modules.  Returns 1 when
# a prerequisite is missing (the test skips), 2 when the bed cannot be set
# up on a kernel that has them (the test fails); prints why.
fab_ready() {
	local m before out mods
	command -v nvme >/dev/null || { echo "needs nvme-cli (tools/deps.sh)"; return 1; }
	command -v nft >/dev/null || { echo "needs nft (nftables, tools/deps.sh)"; return 1; }
	mods=(nvmet nvmet_tcp nvme_tcp nf_tables)
	if [ "$FAB_NETNS" = 1 ]; then
		command -v nsenter >/dev/null || { echo "needs nsenter (util-linux)"; return 1; }
		mods+=(veth)
	fi
	before=$(fab_loadable)
	for m in "${mods[@]}"; do
		[ -d "/sys/module/$m" ] && continue
		if ! modinfo -n "$m" >/dev/null 2>&1; then
			echo "kernel $(uname -r) has no module $m (${FAB_KCONFIG[$m]}): $FAB_KHINT"
			return 1
		fi
		modprobe "$m" 2>&1 || { echo "modprobe $m failed"; return 2; }
	done
	# what the modprobes loaded, dependencies included: unloaded at cleanup
	mapfile -t FAB_MODS < <(comm -13 <(echo "$before") <(fab_loadable))
	if ! out=$(nft add table inet mqsfabprobe 2>&1); then
		echo "nf_tables without the inet family (CONFIG_NF_TABLES_INET; nft: ${out//$'\n'/ }): $FAB_KHINT"
		return 1
	fi
	nft delete table inet mqsfabprobe
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config 2>/dev/null
	[ -d "$FAB_CFG" ] || { echo "no $FAB_CFG (nvmet loaded, configfs not mounted)"; return 2; }
	ip link set lo up
	case $(uname -r) in
	6.1.*)
		if [ -w "$FAB_THP" ]; then
			FAB_THP_WAS=$(sed 's/.*\[\(.*\)\].*/\1/' "$FAB_THP")
			echo never >"$FAB_THP"
		fi
		;;
	esac
	FAB_DIR=$MQS_TMP/fab
	mkdir -p "$FAB_DIR"
	if ! mount -t tmpfs -o mode=0700 mqsfab "$FAB_DIR"; then
		echo "cannot mount a tmpfs on $FAB_DIR"
		FAB_DIR=
		return 2
	fi
	return 0
}

# fab_require: fab_ready in a test (needs lib.sh): the test skips when a
# prerequisite is missing, fails when the bed cannot be set up on a
# kernel that has them
fab_require() {
	fab_ready >"$MQS_TMP/fab.out" 2>&1
	case $? in
	0) ;;
	1) mqs_skip "$(cat "$MQS_TMP/fab.out")" ;;
	*) mqs_die "the fabric test bed's kernel side" "$(cat "$MQS_TMP/fab.out")" ;;
	esac
}

# fab_target T NS SIZE: target T exporting NS namespaces of SIZE bytes
# (sparse files in FAB_DIR) on port FAB_PORT0 + T (with FAB_NETNS in its
# own network namespace)
fab_target() {
	local t=$1 nns=$2 size=$3 s n p
	s=$FAB_CFG/subsystems/$FAB_NQN$t
	p=$FAB_CFG/ports/$t
	if [ "$FAB_NETNS" = 1 ]; then
		fab_veth "$t" || return 1
	fi
	FAB_TARGETS=$t	# fab_teardown removes what was made of it
	mkdir "$s" || return 1
	echo 1 >"$s/attr_allow_any_host" || return 1
	for n in $(seq "$nns"); do
		truncate -s "$size" "$FAB_DIR/t$t-ns$n" || return 1
		mkdir "$s/namespaces/$n" &&
			echo "$FAB_DIR/t$t-ns$n" >"$s/namespaces/$n/device_path" &&
			echo 1 >"$s/namespaces/$n/buffered_io" &&
			echo 1 >"$s/namespaces/$n/enable" || return 1
	done
	mkdir "$p" &&
		echo tcp >"$p/addr_trtype" &&
		echo ipv4 >"$p/addr_adrfam" &&
		fab_addr "$t" >"$p/addr_traddr" &&
		echo $((FAB_PORT0 + t)) >"$p/addr_trsvcid" &&
		fab_in_target "$t" ln -s "$s" "$p/subsystems/"
}

# fab_connect T [P]: connect to target T through its port P (default T;
# reconnect every FAB_RECONNECT seconds, at most FAB_LOSS_TMO /
# FAB_RECONNECT times)
fab_connect() {
	nvme connect -t tcp -a "$(fab_addr "$1")" -s $((FAB_PORT0 + ${2:-$1})) -n "$FAB_NQN$1" \
		--reconnect-delay "$FAB_RECONNECT" --ctrl-loss-tmo "$FAB_LOSS_TMO" >/dev/null
}

# fab_second_path T P: a second port P (on FAB_PORT0 + P) exporting target
# T's subsystem, connected: a second path to each of its namespaces
fab_second_path() {
	local p=$FAB_CFG/ports/$2
	mkdir "$p" &&
		echo tcp >"$p/addr_trtype" &&
		echo ipv4 >"$p/addr_adrfam" &&
		fab_addr "$1" >"$p/addr_traddr" &&
		echo $((FAB_PORT0 + $2)) >"$p/addr_trsvcid" &&
		fab_in_target "$1" ln -s "$FAB_CFG/subsystems/$FAB_NQN$1" "$p/subsystems/" &&
		fab_connect "$1" "$2"
}

# fab_disks T: the block devices of target T's namespaces (the multipath
# heads, or the namespaces of a controller without multipath), sorted
fab_disks() {
	local d nqn hidden
	for d in /sys/block/nvme*; do
		# read, not cat: a fork per file is slow under TCG
		nqn='' hidden=0
		read -r nqn 2>/dev/null <"$d/device/subsysnqn"
		[ "$nqn" = "$FAB_NQN$1" ] || continue
		[ -r "$d/hidden" ] && read -r hidden <"$d/hidden"
		[ "$hidden" = 1 ] || echo "/dev/${d##*/}"
	done | sort -V
}

# fab_path_disks T P: the block devices of target T's namespaces through
# its controller on port P (with nvme_core.multipath=N each controller
# shows its own: two paths of a namespace are two disks), sorted
fab_path_disks() {
	local c d
	c=$(fab_ctrl "$1" "$2") || return 1
	for d in /sys/class/nvme/"$c"/nvme*n*; do
		[ -e "$d/dev" ] && echo "/dev/${d##*/}"
	done | sort -V
}

# fab_wait_disks T NS: wait (30 s) until target T shows NS namespaces
fab_wait_disks() {
	local i
	for ((i = 0; i < 60; i++)); do
		mapfile -t FAB_FOUND < <(fab_disks "$1")
		[ ${#FAB_FOUND[@]} -ge "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

# fab_setup TARGETS NS SIZE: TARGETS targets of NS namespaces each,
# connected; FAB_DEVS lists the namespaces, target by target
fab_setup() {
	local t
	FAB_DEVS=()
	for t in $(seq "$1"); do
		fab_target "$t" "$2" "$3" || { echo "nvmet configuration of target $t failed"; return 1; }
		echo "target $t configured [${SECONDS}s]"
		fab_connect "$t" || { echo "nvme connect to target $t failed"; return 1; }
		echo "target $t connected [${SECONDS}s]"
	done
	for t in $(seq "$1"); do
		fab_wait_disks "$t" "$2" || { echo "target $t: $2 namespaces did not appear: $(fab_disks "$t")"; return 1; }
		mapfile -t -O ${#FAB_DEVS[@]} FAB_DEVS < <(fab_disks "$t")
	done
	mqs_settle
}

# fab_ctrl T [P]: the controller name (nvmeN) of target T through its
# port P (default T)
fab_ctrl() {
	local c a
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$FAB_NQN$1" ] || continue
		a=$(cat "$c/address" 2>/dev/null)
		[[ $a == *"trsvcid=$((FAB_PORT0 + ${2:-$1}))"* ]] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

# fab_cut P / fab_restore P: drop every packet to or from port P (target
# P's first one; both directions pass the input hook on lo), then let them
# through again
fab_cut() {
	local port=$((FAB_PORT0 + $1))
	nft -f - <<EOF
table inet mqsfab$1 {
	chain in {
		type filter hook input priority 0;
		tcp dport $port drop
		tcp sport $port drop
	}
}
EOF
}
fab_restore() { nft delete table inet "mqsfab$1" 2>/dev/null; }

# fab_teardown: disconnect, remove the nft tables and the nvmet targets
fab_teardown() {
	local t s n p
	nft list tables 2>/dev/null | while read -r _ _ t; do
		[[ $t == mqsfab* ]] && nft delete table inet "$t"
	done
	for t in $(seq "$FAB_TARGETS"); do
		nvme disconnect -n "$FAB_NQN$t" >/dev/null 2>&1
	done
	for t in $(seq "$FAB_TARGETS"); do
		s=$FAB_CFG/subsystems/$FAB_NQN$t
		for p in "$FAB_CFG"/ports/*; do
			[ -L "$p/subsystems/$FAB_NQN$t" ] && rm -f "$p/subsystems/$FAB_NQN$t"
		done
		for p in "$FAB_CFG"/ports/*; do
			[ -d "$p" ] && [ -z "$(ls "$p/subsystems")" ] && rmdir "$p"
		done
		for n in "$s"/namespaces/*; do
			[ -d "$n" ] || continue
			echo 0 >"$n/enable"
			rmdir "$n"
		done
		[ -d "$s" ] && { rmdir "$s" || echo "# cleanup: rmdir $s failed"; }
		# the veth pair goes with the namespace
		[ -e "/run/netns/mqsfab$t" ] && ip netns delete "mqsfab$t"
	done
	FAB_TARGETS=0
	FAB_DEVS=()
}

# fab_unload: unload FAB_MODS, each once nothing uses it: passes over the
# list until it is empty, waiting 1 s after a pass that unloaded nothing
# (nvmet-tcp's ports go away in a work item after their configfs
# removal), at most 5 such waits
fab_unload() {
	local m left waits=0
	while [ ${#FAB_MODS[@]} -gt 0 ] && [ $waits -lt 5 ]; do
		left=()
		for m in "${FAB_MODS[@]}"; do
			rmmod "$m" 2>/dev/null || left+=("$m")
		done
		if [ ${#left[@]} -eq ${#FAB_MODS[@]} ]; then
			waits=$((waits + 1))
			sleep 1
		fi
		FAB_MODS=("${left[@]}")
	done
	# a dependency may stay because another user loaded since holds it
	# (6.1's xfs holds libcrc32c, which holds crc32c_intel): only the
	# bed's own modules (FAB_KCONFIG) are said
	for m in "${FAB_MODS[@]}"; do
		[ -n "${FAB_KCONFIG[$m]:-}" ] && echo "# cleanup: module $m left loaded"
	done
	FAB_MODS=()
}

# The EXIT trap of the fabric tests: arrays and mounts first, then the bed.
fab_cleanup() {
	local tmp=$MQS_TMP
	MQS_TMP=	# mqs_cleanup removes it; the backing files go last
	mqs_cleanup
	fab_teardown
	fab_unload
	[ -n "$FAB_DIR" ] && umount "$FAB_DIR"
	[ -n "$FAB_THP_WAS" ] && echo "$FAB_THP_WAS" >"$FAB_THP"
	[ -n "$tmp" ] && rm -rf "$tmp"
}
