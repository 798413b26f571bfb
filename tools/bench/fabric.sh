#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric.sh: the members of the bench's setup e (guest.py runs it), from
# the fabric tests' test bed (selftests/fabric_lib.sh) with each nvmet
# target in a network namespace of its own, joined to the initiator's by a
# veth pair (FAB_NETNS=1), its namespaces backed by sparse files on tmpfs.
#
#   fabric.sh up TARGETS NS SIZE   set up and connect; prints the block
#                                  devices, target by target, one a line
#   fabric.sh down TARGETS         disconnect, remove the targets and
#                                  their network namespaces, the tmpfs
# Exit 1 with the reason on stderr when the bed cannot be set up.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../selftests/lib.sh
. "$here/../../selftests/lib.sh"
# shellcheck source=SCRIPTDIR/../../selftests/fabric_lib.sh
. "$here/../../selftests/fabric_lib.sh"
FAB_NETNS=1
MQS_TMP=/tmp/bench-fabric
mkdir -p "$MQS_TMP"

case ${1:-} in
up)
	[ $# = 4 ] || { echo "usage: fabric.sh up TARGETS NS SIZE" >&2; exit 2; }
	fab_ready >&2 || exit 1
	fab_setup "$2" "$3" "$4" >&2 || exit 1
	printf '%s\n' "${FAB_DEVS[@]}"
	;;
down)
	[ $# = 2 ] || { echo "usage: fabric.sh down TARGETS" >&2; exit 2; }
	FAB_TARGETS=$2
	fab_teardown
	mountpoint -q "$MQS_TMP/fab" && umount "$MQS_TMP/fab"
	rm -rf "$MQS_TMP"
	;;
*)
	echo "usage: fabric.sh up TARGETS NS SIZE | down TARGETS" >&2
	exit 2
	;;
esac
