// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl monitor: the events of the arrays to the admin, as mdadm
 * --monitor does for md.  The module sends a change uevent of the array
 * for each member that fails (MQSTRIPE_EVENT=member_faulty, member_gone),
 * for an array that fails (array_failed) and for a member cleared
 * (member_cleared), for a rename (renamed) and for a member whose latency
 * stands out and when it no longer does (member_slow, member_slow_cleared,
 * with the member's latency and the median member's); the array's disk
 * coming and going makes
 * array_started and array_stopped; --test makes a "test" event per array.
 * Each event goes to the program (PROGRAM EVENT DEVICE [SLOT MEMBER], the
 * event's fields also in its environment), to a mail (sendmail -t) and to
 * syslog, and one line on stdout (stdout alone when none is given: the
 * monitor runs anyway, for the fault records below).
 *
 * The events come from the kernel's uevent socket (libudev's "kernel"
 * monitor), not from udevd's: the monitor needs nothing but the event's
 * properties, and works in a system without udevd too.  So it records a
 * member's fault in the superblocks too (record_faults_of(): nothing when
 * the udev rule's record-fault did already), at the event and for the
 * faults it finds when it starts.  Arrays are matched
 * on each event, never opened: the monitor goes on over arrays stopping
 * and new ones starting.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <libudev.h>

#include "common.h"
#include "conf.h"
#include "fault.h"
#include "monitor.h"
#include "opts.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

/* What the arguments watch: a device index, a name or a UUID each. */
struct mon_filter {
	bool has_index;
	uint32_t index;
	bool has_uuid;
	char uuid[37];
	char name[MQSTRIPE_NAME_LEN];
};

/* The name and UUID of an array seen, for its array_stopped event. */
struct mon_known {
	char kname[32];
	char name[MQS_SB_SHOWN_NAME_LEN];
	char uuid[40];
};

/**
 * struct mon - the monitor's state
 * @program: PROGRAM or --program, NULL for none.
 * @mailaddr: MAILADDR or --mail, NULL for none.
 * @mailfrom: MAILFROM, NULL for the default sender.
 * @sendmail: the sendmail run for a mail ($MQSTRIPE_SENDMAIL).
 * @syslog: --syslog.
 * @filters: the DEVICE arguments; none: every array.
 * @nr_filters: entries in @filters.
 * @known: the arrays seen, for the name and UUID of array_stopped.
 * @nr_known: entries in @known.
 * @oldmask: the signal mask before the monitor blocked its signals, for
 *	the children.
 * @sfd: the signalfd of SIGTERM, SIGINT and SIGHUP; -1 with --oneshot
 *	(the signals are not blocked then).
 * @stop: the signal that ended the monitor while it waited for a child,
 *	0 while it goes on.
 * @failed: a program or a mail failed (--oneshot's exit status 1).
 * @host: this host's name, for the mails.
 */
struct mon {
	const char *program;
	const char *mailaddr;
	const char *mailfrom;
	const char *sendmail;
	bool syslog;
	struct mon_filter *filters;
	size_t nr_filters;
	struct mon_known *known;
	size_t nr_known;
	sigset_t oldmask;
	int sfd;
	int stop;
	bool failed;
	char host[256];
};

/* ---- the arrays ----------------------------------------------------- */

static bool mon_watches(const struct mon *m, const struct mqs_mon_event *ev)
{
	uint32_t index;
	size_t i;

	if (!m->nr_filters)
		return true;
	for (i = 0; i < m->nr_filters; i++) {
		const struct mon_filter *f = &m->filters[i];

		if (f->has_index) {
			if (mqs_parse_dev_index(ev->device, &index) &&
			    index == f->index)
				return true;
		} else if (f->has_uuid) {
			if (!strcmp(f->uuid, ev->uuid))
				return true;
		} else if (ev->name[0] && !strcmp(f->name, ev->name)) {
			return true;
		}
	}
	return false;
}

/* Remember (or forget, with @gone) the name and UUID of an array. */
static void mon_remember(struct mon *m, const char *kname, const char *name,
			 const char *uuid, bool gone)
{
	struct mon_known *k;
	size_t i;

	for (i = 0; i < m->nr_known; i++)
		if (!strcmp(m->known[i].kname, kname))
			break;
	if (gone) {
		if (i < m->nr_known)
			m->known[i] = m->known[--m->nr_known];
		return;
	}
	if (i == m->nr_known) {
		k = realloc(m->known, (m->nr_known + 1) * sizeof(*k));
		if (!k)
			return;	/* only array_stopped loses the name */
		m->known = k;
		m->nr_known++;
	}
	k = &m->known[i];
	snprintf(k->kname, sizeof(k->kname), "%s", kname);
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->uuid, sizeof(k->uuid), "%s", uuid);
}

static const struct mon_known *mon_recall(const struct mon *m,
					  const char *kname)
{
	size_t i;

	for (i = 0; i < m->nr_known; i++)
		if (!strcmp(m->known[i].kname, kname))
			return &m->known[i];
	return NULL;
}

/* /sys/block/mqstripeN/mqstripe/ATTR of array @index, "" when unreadable. */
static void read_attr(uint32_t index, const char *attr, char *buf, size_t len)
{
	char file[64], path[PATH_MAX];

	snprintf(file, sizeof(file), "mqstripe/%s", attr);
	mqs_array_sysfs(index, file, path, sizeof(path));
	if (mqs_sysfs_read(path, buf, len))
		buf[0] = '\0';
}

/*
 * The array's name into the event, escaped: it goes into the headers of a
 * mail, into syslog and onto a terminal, where a newline or an escape
 * sequence must not arrive raw.
 */
static void set_name(struct mqs_mon_event *ev, const char *name)
{
	mqs_sb_shown_name(name, ev->name);
}

/* The array's own fields, from sysfs. */
static void array_event(struct mqs_mon_event *ev, const char *what,
			uint32_t index)
{
	char name[MQSTRIPE_NAME_LEN + 1];

	*ev = (struct mqs_mon_event){ 0 };
	snprintf(ev->event, sizeof(ev->event), "%s", what);
	mqs_array_node(index, ev->device, sizeof(ev->device));
	read_attr(index, "name", name, sizeof(name));
	set_name(ev, name);
	read_attr(index, "uuid", ev->uuid, sizeof(ev->uuid));
	read_attr(index, "state", ev->state, sizeof(ev->state));
}

/* The member's node from its device number, else the number itself. */
static void member_node(struct udev *udev, const char *majmin, char *buf,
			size_t len)
{
	unsigned int ma, mi;
	struct udev_device *d;
	const char *name;

	snprintf(buf, len, "%s", majmin);
	if (sscanf(majmin, "%u:%u", &ma, &mi) != 2)
		return;
	if (!mqs_devpath(ma, mi, buf, len))
		return;		/* a dm map by its /dev/mapper name */
	snprintf(buf, len, "%s", majmin);
	d = udev_device_new_from_devnum(udev, 'b', makedev(ma, mi));
	if (!d)
		return;
	name = udev_device_get_sysname(d);
	if (name)
		snprintf(buf, len, "/dev/%s", name);
	udev_device_unref(d);
}

/* ---- the reports ---------------------------------------------------- */

static void event_line(const struct mqs_mon_event *ev, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "%s %s", ev->event, ev->device);
	if (ev->name[0] || ev->uuid[0])
		n += snprintf(buf + n, len - n, " (array '%s', UUID %s)",
			      ev->name, ev->uuid[0] ? ev->uuid : "unknown");
	if (ev->slot[0] && n < (int)len)
		n += snprintf(buf + n, len - n, ": slot %s, member %s (%s)",
			      ev->slot, ev->member_dev, ev->member);
	if (ev->error[0] && n < (int)len)
		n += snprintf(buf + n, len - n, ", error %s", ev->error);
	if (ev->latency[0] && n < (int)len)
		n += snprintf(buf + n, len - n, ", latency %s us", ev->latency);
	if (ev->median[0] && n < (int)len)
		n += snprintf(buf + n, len - n, " (median member %s us)",
			      ev->median);
	if (ev->state[0] && n < (int)len)
		snprintf(buf + n, len - n, ", array %s", ev->state);
}

static bool is_failure(const char *event)
{
	return !strcmp(event, "member_faulty") ||
	       !strcmp(event, "member_gone") || !strcmp(event, "array_failed");
}

/* A child runs with the signals the monitor had (not its blocked ones). */
static void child_setup(const struct mon *m)
{
	sigprocmask(SIG_SETMASK, &m->oldmask, NULL);
	signal(SIGPIPE, SIG_DFL);
}

/* wait_child()'s answer when a signal ended the wait */
#define MON_STOPPED	(-2)

static const char *signal_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" :
	       sig == SIGHUP ? "SIGHUP" : "a signal";
}

/*
 * The child's wait status, -1 when it cannot be waited for, MON_STOPPED
 * when SIGTERM, SIGINT or SIGHUP came first (@m->stop): a program that
 * hangs must not keep the monitor from ending.  The child is left to
 * finish.  Without pidfd_open() (before Linux 5.3) the wait is plain.
 */
static int wait_child(struct mon *m, pid_t pid)
{
	struct signalfd_siginfo si;
	struct pollfd pfd[2];
	int status, pidfd = -1;

	if (m->sfd >= 0)
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	while (pidfd >= 0) {
		pfd[0] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = m->sfd, .events = POLLIN };
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[1].revents &&
		    read(m->sfd, &si, sizeof(si)) == sizeof(si)) {
			m->stop = (int)si.ssi_signo;
			close(pidfd);
			return MON_STOPPED;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/*
 * How a child ended, when not well: one line naming the program (@what
 * @path) and the event it was for.
 */
static void child_status(struct mon *m, const struct mqs_mon_event *ev,
			 const char *what, const char *path, pid_t pid,
			 int status)
{
	if (status && status != MON_STOPPED)
		m->failed = true;
	if (status == MON_STOPPED)
		mqs_error("monitor: %s while %s %s (pid %d) runs: exiting without waiting for it",
			  signal_name(m->stop), what, path, (int)pid);
	else if (status < 0)
		mqs_error("monitor: %s %s, for %s of %s: cannot wait for it",
			  what, path, ev->event, ev->device);
	else if (WIFSIGNALED(status))
		mqs_error("monitor: %s %s, for %s of %s: killed by signal %d",
			  what, path, ev->event, ev->device, WTERMSIG(status));
	else if (WEXITSTATUS(status))
		mqs_error("monitor: %s %s, for %s of %s: exit status %d",
			  what, path, ev->event, ev->device,
			  WEXITSTATUS(status));
}

/*
 * PROGRAM EVENT DEVICE [SLOT MEMBER], the fields also as MQSTRIPE_*
 * variables; the monitor waits for it (events stay in order).
 */
static void run_program(struct mon *m, const struct mqs_mon_event *ev)
{
	char *argv[6] = { (char *)m->program, (char *)ev->event,
			  (char *)ev->device, NULL };
	pid_t pid;

	if (ev->slot[0]) {
		argv[3] = (char *)ev->slot;
		argv[4] = (char *)ev->member_dev;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		mqs_error("monitor: cannot run %s for %s of %s: %s",
			  m->program, ev->event, ev->device, strerror(errno));
		m->failed = true;
		return;
	}
	if (!pid) {
		child_setup(m);
		setenv("MQSTRIPE_EVENT", ev->event, 1);
		setenv("MQSTRIPE_DEVICE", ev->device, 1);
		setenv("MQSTRIPE_NAME", ev->name, 1);
		setenv("MQSTRIPE_ARRAY_UUID", ev->uuid, 1);
		setenv("MQSTRIPE_STATE", ev->state, 1);
		setenv("MQSTRIPE_SLOT", ev->slot, 1);
		setenv("MQSTRIPE_MEMBER", ev->member, 1);
		setenv("MQSTRIPE_MEMBER_DEVICE", ev->member_dev, 1);
		setenv("MQSTRIPE_ERROR", ev->error, 1);
		setenv("MQSTRIPE_LATENCY_US", ev->latency, 1);
		setenv("MQSTRIPE_MEDIAN_LATENCY_US", ev->median, 1);
		execv(m->program, argv);
		mqs_error("monitor: cannot run %s: %s", m->program,
			  strerror(errno));
		_exit(127);
	}
	child_status(m, ev, "program", m->program, pid, wait_child(m, pid));
}

static void write_mail(FILE *f, const struct mon *m,
		       const struct mqs_mon_event *ev)
{
	const char *array = ev->name[0] ? ev->name : ev->device;

	if (m->mailfrom)
		fprintf(f, "From: %s\n", m->mailfrom);
	else
		fprintf(f, "From: stripectl monitor <root>\n");
	fprintf(f, "To: %s\n", m->mailaddr);
	fprintf(f, "Subject: mqstripe %s event on %s: array %s (%s)\n",
		ev->event, m->host, array, ev->device);
	fprintf(f, "\nThis is a message from stripectl monitor on %s.\n\n",
		m->host);
	fprintf(f, "Event:   %s\n", ev->event);
	fprintf(f, "Array:   %s\n", ev->name[0] ? ev->name : "(no name)");
	fprintf(f, "UUID:    %s\n", ev->uuid[0] ? ev->uuid : "unknown");
	fprintf(f, "Device:  %s\n", ev->device);
	if (ev->state[0])
		fprintf(f, "State:   %s\n", ev->state);
	if (ev->slot[0]) {
		fprintf(f, "Slot:    %s\n", ev->slot);
		fprintf(f, "Member:  %s (%s)\n", ev->member_dev, ev->member);
	}
	if (ev->error[0])
		fprintf(f, "Error:   %s\n", ev->error);
	if (ev->latency[0])
		fprintf(f, "Latency: %s us\n", ev->latency);
	if (ev->median[0])
		fprintf(f, "Median:  %s us (the median member's)\n",
			ev->median);
	if (strcmp(ev->event, "array_stopped"))
		fprintf(f, "\n'stripectl status %s' shows the array.\n",
			ev->device);
}

/* The mail, through "sendmail -t" (it reads the recipients in To:). */
static void send_mail(struct mon *m, const struct mqs_mon_event *ev)
{
	char what[PATH_MAX + 32];
	int fd[2];
	pid_t pid;
	FILE *f;

	if (pipe2(fd, O_CLOEXEC)) {
		mqs_error("monitor: mail to %s, for %s of %s: %s", m->mailaddr,
			  ev->event, ev->device, strerror(errno));
		m->failed = true;
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		mqs_error("monitor: mail to %s, for %s of %s: %s", m->mailaddr,
			  ev->event, ev->device, strerror(errno));
		m->failed = true;
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (!pid) {
		child_setup(m);
		if (dup2(fd[0], STDIN_FILENO) < 0)
			_exit(127);
		execl(m->sendmail, "sendmail", "-t", (char *)NULL);
		mqs_error("monitor: mail to %s: cannot run %s: %s",
			  m->mailaddr, m->sendmail, strerror(errno));
		_exit(127);
	}
	close(fd[0]);
	f = fdopen(fd[1], "w");
	if (!f) {
		close(fd[1]);
	} else {
		write_mail(f, m, ev);
		fclose(f);
	}
	snprintf(what, sizeof(what), "mail to %s through", m->mailaddr);
	child_status(m, ev, what, m->sendmail, pid, wait_child(m, pid));
}

static void report(struct mon *m, const struct mqs_mon_event *ev)
{
	char line[512];

	if (m->stop || !mon_watches(m, ev))
		return;
	event_line(ev, line, sizeof(line));
	printf("%s\n", line);
	fflush(stdout);
	if (m->syslog)
		syslog(is_failure(ev->event) ? LOG_CRIT : LOG_INFO, "%s",
		       line);
	if (m->program)
		run_program(m, ev);
	if (m->mailaddr && !m->stop)
		send_mail(m, ev);
}

/* ---- the events ----------------------------------------------------- */

static const char *prop(struct udev_device *d, const char *key)
{
	const char *v = udev_device_get_property_value(d, key);

	return v ? v : "";
}

/* The module's MQSTRIPE_* properties of a change uevent. */
static void event_from_props(struct mqs_mon_event *ev, struct udev_device *d)
{
	const struct {
		const char *key;
		char *field;
		size_t len;
	} props[] = {
		{ "MQSTRIPE_EVENT", ev->event, sizeof(ev->event) },
		{ "MQSTRIPE_ARRAY_UUID", ev->uuid, sizeof(ev->uuid) },
		{ "MQSTRIPE_STATE", ev->state, sizeof(ev->state) },
		{ "MQSTRIPE_SLOT", ev->slot, sizeof(ev->slot) },
		{ "MQSTRIPE_MEMBER", ev->member, sizeof(ev->member) },
		{ "MQSTRIPE_ERROR", ev->error, sizeof(ev->error) },
		{ "MQSTRIPE_LATENCY_US", ev->latency, sizeof(ev->latency) },
		{ "MQSTRIPE_MEDIAN_LATENCY_US", ev->median,
		  sizeof(ev->median) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(props); i++)
		snprintf(props[i].field, props[i].len, "%s",
			 prop(d, props[i].key));
	set_name(ev, prop(d, "MQSTRIPE_NAME"));
}

/* One uevent of a disk: an event to report, or nothing. */
static void handle_uevent(struct mon *m, struct udev *udev,
			  struct udev_device *d)
{
	const char *kname = udev_device_get_sysname(d);
	const char *action = udev_device_get_action(d);
	const struct mon_known *k;
	struct mqs_mon_event ev;
	uint32_t index;

	if (!kname || !action || !mqs_parse_dev_index(kname, &index))
		return;
	if (!strcmp(action, "add")) {
		array_event(&ev, "array_started", index);
		mon_remember(m, kname, ev.name, ev.uuid, false);
		report(m, &ev);
	} else if (!strcmp(action, "remove")) {
		ev = (struct mqs_mon_event){ .event = "array_stopped" };
		mqs_array_node(index, ev.device, sizeof(ev.device));
		k = mon_recall(m, kname);
		if (k) {
			snprintf(ev.name, sizeof(ev.name), "%s", k->name);
			snprintf(ev.uuid, sizeof(ev.uuid), "%s", k->uuid);
		}
		mon_remember(m, kname, "", "", true);
		report(m, &ev);
	} else if (!strcmp(action, "change") && *prop(d, "MQSTRIPE_EVENT")) {
		ev = (struct mqs_mon_event){ 0 };
		mqs_array_node(index, ev.device, sizeof(ev.device));
		event_from_props(&ev, d);
		if (ev.member[0])
			member_node(udev, ev.member, ev.member_dev,
				    sizeof(ev.member_dev));
		mon_remember(m, kname, ev.name, ev.uuid, false);
		report(m, &ev);
		/* udev's record-fault, in case udev did not run it */
		if (is_failure(ev.event) && mon_watches(m, &ev))
			record_faults_of(index, true);
	}
}

/*
 * One running array: --test's event, then what is wrong with it (faulty,
 * gone or slow members, the array failed), as the events would have said.
 */
static void report_array(struct mon *m, struct udev *udev, bool test,
			 const struct mqstripe_info *info,
			 const struct mqstripe_member_info *members)
{
	struct mqs_mon_event ev = { .event = "test" };
	uint32_t s;

	mqs_array_node(info->index, ev.device, sizeof(ev.device));
	set_name(&ev, info->name);
	mqs_format_uuid(info->uuid, ev.uuid);
	snprintf(ev.state, sizeof(ev.state), "%s",
		 array_state_name(info->state));
	if (test)
		report(m, &ev);
	for (s = 0; s < info->nr_members && s < MQSTRIPE_MAX_MEMBERS; s++) {
		struct mqs_mon_event me = ev;
		uint32_t st = members[s].state;
		bool slow = members[s].flags & MQSTRIPE_MEMBER_F_SLOW;

		if (st != MQSTRIPE_MEMBER_FAULTY &&
		    st != MQSTRIPE_MEMBER_GONE && !slow)
			continue;
		snprintf(me.event, sizeof(me.event), "member_%s",
			 slow && st == MQSTRIPE_MEMBER_OK ? "slow" :
			 member_state_name(st));
		if (slow && st == MQSTRIPE_MEMBER_OK)
			snprintf(me.latency, sizeof(me.latency), "%u",
				 members[s].window_latency_us);
		snprintf(me.slot, sizeof(me.slot), "%u", s);
		snprintf(me.member, sizeof(me.member), "%u:%u",
			 members[s].major, members[s].minor);
		member_node(udev, me.member, me.member_dev,
			    sizeof(me.member_dev));
		report(m, &me);
	}
	if (info->state == MQSTRIPE_STATE_FAILED) {
		snprintf(ev.event, sizeof(ev.event), "array_failed");
		report(m, &ev);
	}
}

/*
 * The arrays running now (none while the module is not loaded), each
 * through report_array().  Returns how many the monitor watches, or -1
 * after a message.
 */
static int report_arrays(struct mon *m, struct udev *udev, bool test)
{
	struct mqstripe_member_info *members;
	struct mqstripe_info info;
	uint32_t *indexes = NULL, count = 0, i, s;
	struct mqs_ctl ctl;
	int rc, watched = 0;
	char kname[32];

	rc = mqs_ctl_open(&ctl);
	if (rc == -ENOENT || rc == -ENXIO || rc == -ENODEV)
		return 0;
	if (rc) {
		ctl_open_or_report(&ctl);
		return -1;
	}
	members = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*members));
	rc = members ? mqs_list(&ctl, &indexes, &count) : -ENOMEM;
	if (rc) {
		report_ctl_error("monitor: list", rc, ctl.kernel_abi);
		watched = -1;
		goto out;
	}
	for (i = 0; i < count && !m->stop; i++) {
		struct mqs_mon_event ev = { 0 };

		rc = mqs_info(&ctl, indexes[i], &info, members,
			      MQSTRIPE_MAX_MEMBERS);
		if (rc)		/* stopped meanwhile: its uevent tells */
			continue;
		mqs_array_kname(indexes[i], kname, sizeof(kname));
		mqs_array_node(indexes[i], ev.device, sizeof(ev.device));
		set_name(&ev, info.name);
		mqs_format_uuid(info.uuid, ev.uuid);
		mon_remember(m, kname, ev.name, ev.uuid, false);
		if (!mon_watches(m, &ev))
			continue;
		watched++;
		report_array(m, udev, test, &info, members);
		/* a fault from before the monitor, perhaps never recorded */
		for (s = 0; s < info.nr_members && s < MQSTRIPE_MAX_MEMBERS;
		     s++)
			if (member_failed(&members[s]))
				break;
		if (s < info.nr_members && s < MQSTRIPE_MAX_MEMBERS)
			record_faults_of(indexes[i], true);
	}
out:
	free(indexes);
	free(members);
	mqs_ctl_close(&ctl);
	return watched;
}

/* ---- the command ---------------------------------------------------- */

/* DEVICE...: each a device, a UUID or a name. */
static int parse_filters(struct mon *m, char **args, int nr)
{
	uint8_t uuid[16];
	char err[MQS_ERR_LEN], real[PATH_MAX];
	int i;

	m->filters = calloc(nr ? nr : 1, sizeof(*m->filters));
	if (!m->filters) {
		mqs_error("monitor: out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		struct mon_filter *f = &m->filters[i];
		const char *a = args[i];

		if (mqs_parse_dev_index(a, &f->index)) {
			f->has_index = true;
		} else if (!mqs_parse_uuid(a, uuid, err, sizeof(err))) {
			f->has_uuid = true;
			mqs_format_uuid(uuid, f->uuid);
		} else if (strchr(a, '/')) {
			/* a link to /dev/mqstripeN: the array it is now */
			if (!realpath(a, real) ||
			    !mqs_parse_dev_index(real, &f->index)) {
				mqs_error("monitor: %s: %s: give an array's device (/dev/mqstripeN), name or UUID",
					  a, realpath(a, real) ?
					  "not an mqstripe array" :
					  strerror(errno));
				return MQS_EXIT_USAGE;
			}
			f->has_index = true;
		} else if (mqs_check_name(a, err, sizeof(err))) {
			mqs_error("monitor: '%s' is not an array's device, name or UUID: %s",
				  a, err);
			return MQS_EXIT_USAGE;
		} else {
			snprintf(f->name, sizeof(f->name), "%s", a);
		}
	}
	m->nr_filters = (size_t)nr;
	return MQS_EXIT_OK;
}

/*
 * 0 when @path is a file execv() runs, else a negative errno: access()
 * alone lets a directory through (X_OK is search there).
 */
static int executable(const char *path)
{
	struct stat st;

	if (access(path, X_OK) || stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return S_ISREG(st.st_mode) ? 0 : -EACCES;
}

/* An address for To:, one header line: no blank, no control byte. */
static bool mail_addr_ok(const char *addr)
{
	const unsigned char *p = (const unsigned char *)addr;

	if (!*p)
		return false;
	for (; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

/* The program and sendmail must be there before the first event. */
static int check_destinations(const struct mon *m, const char *program_from)
{
	int rc;

	if (m->program && !strchr(m->program, '/')) {
		mqs_error("monitor: %s %s: give the program's path (it is run without a shell or PATH search)",
			  program_from, m->program);
		return MQS_EXIT_USAGE;
	}
	rc = m->program ? executable(m->program) : 0;
	if (rc) {
		mqs_error("monitor: %s %s: %s: give the path of an executable program",
			  program_from, m->program, strerror(-rc));
		return MQS_EXIT_FAIL;
	}
	if (m->mailaddr && !mail_addr_ok(m->mailaddr)) {
		mqs_error("monitor: mail address '%s' is empty or has blanks or control bytes: give one address (several: separated by commas, without blanks)",
			  m->mailaddr);
		return MQS_EXIT_USAGE;
	}
	rc = m->mailaddr ? executable(m->sendmail) : 0;
	if (rc) {
		mqs_error("monitor: mail to %s needs %s: %s (install a mail transfer agent, e.g. exim4-daemon-light or postfix, or give --program)",
			  m->mailaddr, m->sendmail, strerror(-rc));
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

static void log_exit(const struct mon *m, int sig)
{
	if (m->syslog)
		syslog(LOG_INFO, "%s: exiting", strsignal(sig));
}

static int monitor_loop(struct mon *m, struct udev_monitor *um,
			struct udev *udev)
{
	struct pollfd pfd[2] = {
		{ .fd = udev_monitor_get_fd(um), .events = POLLIN },
		{ .fd = m->sfd, .events = POLLIN },
	};
	struct signalfd_siginfo si;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			mqs_error("monitor: poll: %s", strerror(errno));
			return MQS_EXIT_FAIL;
		}
		if (pfd[1].revents) {
			if (read(m->sfd, &si, sizeof(si)) == sizeof(si))
				log_exit(m, (int)si.ssi_signo);
			return MQS_EXIT_OK;
		}
		if (pfd[0].revents) {
			struct udev_device *d = udev_monitor_receive_device(um);

			if (d) {
				handle_uevent(m, udev, d);
				udev_device_unref(d);
			}
			if (m->stop) {
				log_exit(m, m->stop);
				return MQS_EXIT_OK;
			}
		}
	}
}

int cmd_monitor(const struct cmd *cmd, int argc, char **argv)
{
	bool scan = false, do_syslog = false, oneshot = false, test = false;
	const char *program = NULL, *mailaddr = NULL, *from = "--program";
	const struct opt opts[] = {
		{ "scan", 0, OPT_FLAG, &scan, NULL, NULL,
		  "watch every array; take MAILADDR, MAILFROM and PROGRAM from /etc/mqstripe.conf" },
		{ "program", 0, OPT_STR, &program, NULL, "CMD",
		  "run CMD EVENT DEVICE [SLOT MEMBER] for each event" },
		{ "mail", 0, OPT_STR, &mailaddr, NULL, "ADDR",
		  "mail each event to ADDR (through sendmail -t)" },
		{ "syslog", 0, OPT_FLAG, &do_syslog, NULL, NULL,
		  "log each event to syslog (the journal)" },
		{ "oneshot", 0, OPT_FLAG, &oneshot, NULL, NULL,
		  "report what is wrong with the arrays now, then exit" },
		{ "test", 0, OPT_FLAG, &test, NULL, NULL,
		  "send a 'test' event for each array first" },
		{ 0 }
	};
	struct udev_monitor *um = NULL;
	struct mqs_conf conf = { 0 };
	struct udev *udev = NULL;
	struct mon m = { .sfd = -1 };
	char err[MQS_ERR_LEN], progfrom[PATH_MAX + 16];
	sigset_t mask;
	int first, rc, watched;
	size_t i;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (scan == (first < argc)) {
		mqs_error("monitor: give --scan (every array) or the arrays to watch, %s: see 'stripectl monitor --help'",
			  scan ? "not both" : "not neither");
		return MQS_EXIT_USAGE;
	}
	rc = parse_filters(&m, argv + first, argc - first);
	if (rc)
		goto out;
	if (scan) {
		if (mqs_conf_load(&conf, err, sizeof(err))) {
			mqs_error("monitor: %s", err);
			rc = MQS_EXIT_FAIL;
			goto out;
		}
		/* a line of its own not taken: where to report is unknown */
		for (i = 0; i < conf.nr_issues; i++) {
			mqs_conf_issue_text(&conf.issues[i], true, err,
					    sizeof(err));
			if (!mqs_conf_blocks(&conf.issues[i], true)) {
				mqs_error("monitor: %s", err);
			} else if (!rc) {
				mqs_error("monitor: %s", err);
				rc = MQS_EXIT_FAIL;
			}
		}
		if (rc)
			goto out;
		if (!program && conf.program) {
			program = conf.program;
			snprintf(progfrom, sizeof(progfrom), "PROGRAM (%s:%u)",
				 conf.path, conf.program_line);
			from = progfrom;
		}
		if (!mailaddr)
			mailaddr = conf.mailaddr;
		m.mailfrom = conf.mailfrom;
	}
	m.program = program;
	m.mailaddr = mailaddr;
	m.syslog = do_syslog;
	m.sendmail = getenv("MQSTRIPE_SENDMAIL");
	if (!m.sendmail || !*m.sendmail)
		m.sendmail = MQS_SENDMAIL;
	/*
	 * Without --program, --mail or --syslog (no MAILADDR or PROGRAM line
	 * either) the events go to stdout alone: the monitor still runs,
	 * since it records the faults in the superblocks (udev may not).
	 */
	rc = check_destinations(&m, from);
	if (rc)
		goto out;
	if (gethostname(m.host, sizeof(m.host) - 1))
		snprintf(m.host, sizeof(m.host), "localhost");
	if (m.syslog)
		openlog("stripectl-monitor", LOG_PID, LOG_DAEMON);
	signal(SIGPIPE, SIG_IGN);

	rc = MQS_EXIT_FAIL;
	udev = udev_new();
	if (!udev) {
		mqs_error("monitor: libudev: %s", strerror(errno));
		goto out;
	}
	/* listening before the arrays are looked at: no event falls between */
	if (!oneshot) {
		sigemptyset(&mask);
		sigaddset(&mask, SIGTERM);
		sigaddset(&mask, SIGINT);
		sigaddset(&mask, SIGHUP);
		sigprocmask(SIG_BLOCK, &mask, &m.oldmask);
		m.sfd = signalfd(-1, &mask, SFD_CLOEXEC);
		um = udev_monitor_new_from_netlink(udev, "kernel");
		if (m.sfd < 0 || !um ||
		    udev_monitor_filter_add_match_subsystem_devtype(um, "block", "disk") ||
		    udev_monitor_enable_receiving(um)) {
			mqs_error("monitor: cannot listen to the kernel's uevents: %s",
				  strerror(errno));
			goto out;
		}
		udev_monitor_set_receive_buffer_size(um, 4 << 20);
	}
	watched = report_arrays(&m, udev, test);
	if (watched < 0)
		goto out;
	if (test && !watched) {
		mqs_error("monitor: --test: no running array%s to send a test event for",
			  m.nr_filters ? " of those given" : "");
		goto out;
	}
	/* --oneshot (--test): whether every program and mail went out */
	rc = oneshot && m.failed ? MQS_EXIT_FAIL : MQS_EXIT_OK;
	if (m.stop)
		log_exit(&m, m.stop);
	else if (!oneshot)
		rc = monitor_loop(&m, um, udev);
out:
	if (um)
		udev_monitor_unref(um);
	if (udev)
		udev_unref(udev);
	if (m.sfd >= 0)
		close(m.sfd);
	if (m.syslog)
		closelog();
	free(m.filters);
	free(m.known);
	mqs_conf_free(&conf);
	return rc;
}
