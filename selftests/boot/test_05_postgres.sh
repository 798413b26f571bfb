# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A database server's boot: /var/lib/postgresql on an XFS on an array
# named "pgdata" (fstab by UUID, defaults,nofail), mounted before the
# cluster is made on it (pg_createcluster 15 main), a table written; after
# a reboot with the NVMe drives in another order systemd has mounted the
# array and started the cluster after the mount (Debian's
# postgresql@.service: RequiresMountsFor=/var/lib/postgresql/%I), the
# table reads back and pg_amcheck finds nothing wrong.
# Catches: a cluster started before its data's mount (on the empty
# directory of the root file system: a fresh-looking server without the
# table, or a failed unit), an array not assembled at boot or assembled
# from the drives in the wrong order (pg_amcheck, the table's digest).

boot_test() {
	drives 4 256M
	step <<'GUEST'
modprobe mqstripe
new_xfs_array pgdata /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1
echo "UUID=$U /var/lib/postgresql xfs defaults,nofail 0 0" >>/etc/fstab
systemctl daemon-reload
# the data's file system first, then the cluster on it
mount /var/lib/postgresql
chown postgres:postgres /var/lib/postgresql
check "pg_createcluster 15 main on the array" pg_createcluster 15 main
check "postgresql@15-main started" systemctl start postgresql@15-main
psql() { runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 "$@"; }
psql -c "CREATE DATABASE mqs"
psql -d mqs -c "CREATE EXTENSION amcheck" \
	-c "CREATE TABLE t (id int PRIMARY KEY, v text)" \
	-c "INSERT INTO t SELECT g, md5(g::text) FROM generate_series(1, 20000) g" \
	-c "CREATE INDEX t_v ON t (v)"
psql -d mqs -At -c "SELECT count(*), md5(string_agg(v, ',' ORDER BY id)) FROM t" >/root/t.sum
check "table t written" grep -q '^20000|' /root/t.sum
systemctl stop postgresql@15-main
umount /var/lib/postgresql
save_slots pgdata
$STRIPECTL stop pgdata
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]}" "create, mkfs, fstab, pg_createcluster" || return
	step <<'GUEST'
# not waited for by multi-user.target (postgresql.service wants it)
wait_for 120 systemctl is-active postgresql@15-main
check "postgresql@15-main active" systemctl is-active postgresql@15-main
check_eq "/var/lib/postgresql is the array's XFS" "xfs /dev/mqstripe0" \
	"$(findmnt -n -o FSTYPE,SOURCE /var/lib/postgresql | awk '{print $1, $2}')"
check "postgresql@15-main is ordered after var-lib-postgresql.mount" \
	grep -qw var-lib-postgresql.mount <<<"$(systemctl show -p After --value postgresql@15-main)"
psql() { runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 "$@"; }
check_eq "table t read back" "$(cat /root/t.sum)" \
	"$(psql -d mqs -At -c "SELECT count(*), md5(string_agg(v, ',' ORDER BY id)) FROM t")"
check "pg_amcheck --all --heapallindexed: clean" runuser -u postgres -- \
	/usr/lib/postgresql/15/bin/pg_amcheck --all --install-missing --heapallindexed
check_slots pgdata
check_no_failed_unit
GUEST
	boot "${D[3]},${D[0]},${D[2]},${D[1]}" "reboot, drives reordered"
}
