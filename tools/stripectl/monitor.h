/* SPDX-License-Identifier: GPL-2.0 */
/*
 * monitor.c: stripectl monitor, the events of the arrays (the module's
 * MQSTRIPE_EVENT uevents, arrays starting and stopping) to a program, a
 * mail and syslog.
 */
#ifndef STRIPECTL_MONITOR_H
#define STRIPECTL_MONITOR_H

#include <stdbool.h>

#include "mqstripe.h"
#include "stripectl.h"
#include "superblock.h"

/* What sendmail is run, unless $MQSTRIPE_SENDMAIL names another. */
#define MQS_SENDMAIL	"/usr/sbin/sendmail"

/**
 * struct mqs_mon_event - one event, as the program, the mail and syslog
 *	get it
 * @event: member_faulty, member_gone, array_failed, member_cleared,
 *	member_slow, member_slow_cleared (the module's MQSTRIPE_EVENT),
 *	array_started, array_stopped, test.
 * @device: the array's node, /dev/mqstripeN.
 * @name: the array's name as mqs_sb_shown_name() shows it (bytes other
 *	than printable ASCII escaped: not trusted to be the valid name the
 *	module takes), "" when unknown.
 * @uuid: the array's UUID, "" when unknown.
 * @state: active or failed, "" when unknown.
 * @slot: the member's slot, "" for an array event.
 * @member: the member's major:minor, "" for an array event.
 * @member_dev: the member's node (/dev/...), else its major:minor.
 * @error: the member's first error ("-EIO"), "" when none is known.
 * @latency: member_slow, member_slow_cleared: the member's mean latency
 *	of its last window, in us; "" for other events.
 * @median: ... and the median member's then.
 */
struct mqs_mon_event {
	char event[32];
	char device[48];
	char name[MQS_SB_SHOWN_NAME_LEN];
	char uuid[40];
	char state[16];
	char slot[16];
	char member[24];
	char member_dev[96];
	char error[32];
	char latency[16];
	char median[16];
};

int cmd_monitor(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_MONITOR_H */
