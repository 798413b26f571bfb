// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl status --prometheus: the arrays' state, their members' states
 * and error counters, and the IO counters of the arrays and of the
 * members (each a block device's /sys/dev/block/MAJ:MIN/stat) in the text
 * format of Prometheus, for node_exporter's textfile collector.
 *
 * The text format wants every sample of one metric after its one HELP and
 * TYPE line, so each metric is printed for every array in turn.  The
 * module's own figures of the members (memberio.c: the array's IO on each
 * member only, where the stat file counts all of the member's IO) are the
 * histogram mqstripe_member_io_latency_seconds, the gauges
 * mqstripe_member_io_array_in_flight and mqstripe_member_slow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "memberio.h"
#include "parse.h"
#include "prom.h"
#include "stripectl.h"
#include "sysfs.h"

/* One array as INFO described it, with its members' IO figures. */
struct prom_array {
	uint32_t index;
	struct mqstripe_info info;
	struct mqstripe_member_info *members;
	struct mqs_member_io *io;
	uint32_t nr;
};

static const char *const io_dirs[MQS_IO_DIRS] = { "read", "write" };

/* The fields of a block device's stat file (Documentation/block/stat.rst). */
enum {
	ST_READ_IOS, ST_READ_MERGES, ST_READ_SECTORS, ST_READ_TICKS,
	ST_WRITE_IOS, ST_WRITE_MERGES, ST_WRITE_SECTORS, ST_WRITE_TICKS,
	ST_IN_FLIGHT, ST_IO_TICKS, ST_TIME_IN_QUEUE,
	ST_DISCARD_IOS, ST_DISCARD_MERGES, ST_DISCARD_SECTORS, ST_DISCARD_TICKS,
	ST_FLUSH_IOS, ST_FLUSH_TICKS,
	ST_NR
};

/* What a stat field counts: the metrics are in IOs, bytes and seconds. */
enum st_unit { U_COUNT, U_SECTORS, U_MS };

/*
 * The IO metrics: the stat field, per op, and its unit; an entry without
 * a name is another op of the metric above it.
 */
static const struct {
	const char *suffix;
	const char *type;
	const char *help;
	const char *op;		/* the op label, NULL for none */
	int field;
	enum st_unit unit;
} io_metrics[] = {
	{ "io_completed_total", "counter", "IOs completed, by op",
	  "read", ST_READ_IOS, U_COUNT },
	{ NULL, NULL, NULL, "write", ST_WRITE_IOS, U_COUNT },
	{ NULL, NULL, NULL, "discard", ST_DISCARD_IOS, U_COUNT },
	{ NULL, NULL, NULL, "flush", ST_FLUSH_IOS, U_COUNT },
	{ "io_bytes_total", "counter", "bytes transferred, by op",
	  "read", ST_READ_SECTORS, U_SECTORS },
	{ NULL, NULL, NULL, "write", ST_WRITE_SECTORS, U_SECTORS },
	{ NULL, NULL, NULL, "discard", ST_DISCARD_SECTORS, U_SECTORS },
	{ "io_time_seconds_total", "counter",
	  "time spent on IOs (summed over IOs in flight), by op",
	  "read", ST_READ_TICKS, U_MS },
	{ NULL, NULL, NULL, "write", ST_WRITE_TICKS, U_MS },
	{ NULL, NULL, NULL, "discard", ST_DISCARD_TICKS, U_MS },
	{ NULL, NULL, NULL, "flush", ST_FLUSH_TICKS, U_MS },
	{ "io_in_flight", "gauge", "IOs in flight now",
	  NULL, ST_IN_FLIGHT, U_COUNT },
	{ "io_busy_seconds_total", "counter",
	  "time with at least one IO in flight",
	  NULL, ST_IO_TICKS, U_MS },
};

/* @v of @unit in IOs, bytes or seconds, exact ("0.030", not 0.0299...) */
static void print_value(uint64_t v, enum st_unit unit)
{
	switch (unit) {
	case U_COUNT:
		printf("%" PRIu64 "\n", v);
		break;
	case U_SECTORS:
		printf("%" PRIu64 "\n", v * 512);
		break;
	case U_MS:
		printf("%" PRIu64 ".%03" PRIu64 "\n", v / 1000, v % 1000);
		break;
	}
}

/*
 * The fields of a block device's stat file at @path; return how many it
 * has (older kernels have no discard or flush fields), 0 when unreadable.
 */
static int read_stat(const char *path, uint64_t st[ST_NR])
{
	char buf[512], *p, *end;
	int n;

	if (mqs_sysfs_read(path, buf, sizeof(buf)))
		return 0;
	p = buf;
	for (n = 0; n < ST_NR; n++) {
		errno = 0;
		st[n] = strtoull(p, &end, 10);
		if (end == p || errno)
			break;
		p = end;
	}
	return n;
}

/* A label value, escaped as the text format wants (\\, \", \n). */
static void print_label_value(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
	putchar('"');
}

static void header(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* NAME{array="mqstripeN"[,slot="S"] */
static void sample_start(const char *name, const struct prom_array *a,
			 const struct mqstripe_member_info *m)
{
	char kname[32];

	mqs_array_kname(a->index, kname, sizeof(kname));
	printf("%s{array=\"%s\"", name, kname);
	if (m)
		printf(",slot=\"%u\"", m->slot);
}

/*
 * The IO metrics of the arrays (@members false) or of their members, from
 * the stat files read into @st (ST_NR per device, arrays first, then each
 * array's members in slot order) with @have fields each.
 */
static void print_io(const struct prom_array *arr, size_t n, bool members,
		     const uint64_t (*st)[ST_NR], const int *have)
{
	char name[96];
	size_t i, k, dev;
	uint32_t s;

	for (k = 0; k < ARRAY_SIZE(io_metrics); k++) {
		size_t f = k;

		while (!io_metrics[f].suffix)
			f--;	/* the first op names the metric */
		snprintf(name, sizeof(name), "mqstripe_%s_%s",
			 members ? "member" : "array", io_metrics[f].suffix);
		if (f == k)
			header(name, io_metrics[k].type, io_metrics[k].help);
		for (i = 0, dev = n; i < n; i++) {
			for (s = 0; s < (members ? arr[i].nr : 1); s++) {
				const struct mqstripe_member_info *m = NULL;
				size_t d = i;

				if (members) {
					m = &arr[i].members[s];
					d = dev++;
				}
				if (have[d] <= io_metrics[k].field)
					continue;
				sample_start(name, &arr[i], m);
				if (io_metrics[k].op)
					printf(",op=\"%s\"", io_metrics[k].op);
				printf("} ");
				print_value(st[d][io_metrics[k].field],
					    io_metrics[k].unit);
			}
		}
	}
}

/* An array's or a member's states, one sample each, 1 for the current. */
static void print_states(const char *name, const struct prom_array *arr,
			 size_t n, bool members)
{
	static const char *const array_states[] = { "active", "failed" };
	static const char *const member_states[] = { "ok", "faulty", "gone" };
	const char *const *names = members ? member_states : array_states;
	size_t nnames = members ? ARRAY_SIZE(member_states) :
		       ARRAY_SIZE(array_states);
	size_t i, j;
	uint32_t s;

	header(name, "gauge", members ?
	       "the member's state: 1 for the one it is in (ok, faulty, gone)" :
	       "the array's state: 1 for the one it is in (active, failed)");
	for (i = 0; i < n; i++) {
		for (s = 0; s < (members ? arr[i].nr : 1); s++) {
			const struct mqstripe_member_info *m =
				members ? &arr[i].members[s] : NULL;
			const char *cur = m ? member_state_name(m->state) :
				array_state_name(arr[i].info.state);

			for (j = 0; j < nnames; j++) {
				sample_start(name, &arr[i], m);
				printf(",state=\"%s\"} %d\n", names[j],
				       !strcmp(cur, names[j]));
			}
		}
	}
}

static void print_errors(const struct prom_array *arr, size_t n)
{
	static const char *const ops[] = { "read", "write", "flush" };
	char name[64], help[96];
	size_t i, k;
	uint32_t s;

	for (k = 0; k < ARRAY_SIZE(ops); k++) {
		snprintf(name, sizeof(name), "mqstripe_member_%s_errors_total",
			 ops[k]);
		snprintf(help, sizeof(help),
			 "%s IOs of the array that the member failed", ops[k]);
		header(name, "counter", help);
		for (i = 0; i < n; i++) {
			for (s = 0; s < arr[i].nr; s++) {
				const struct mqstripe_member_info *m =
					&arr[i].members[s];
				uint64_t v = k == 0 ? m->read_errors :
					     k == 1 ? m->write_errors :
					     m->flush_errors;

				sample_start(name, &arr[i], m);
				printf("} %" PRIu64 "\n", v);
			}
		}
	}
}

/* ns as seconds, exact: "0.000016384" */
static void print_ns(uint64_t ns)
{
	printf("%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

/*
 * The module's figures: the latency histogram (cumulative buckets, the
 * last one +Inf), IOs in flight, the slow flag; members without figures
 * (a module without them) are left out.
 */
static void print_member_io(const struct prom_array *arr, size_t n)
{
	const char *hname = "mqstripe_member_io_latency_seconds";
	char bucket[64], sum_name[64], count[64];
	size_t i;
	uint32_t s;
	int d, b;

	snprintf(bucket, sizeof(bucket), "%s_bucket", hname);
	snprintf(sum_name, sizeof(sum_name), "%s_sum", hname);
	snprintf(count, sizeof(count), "%s_count", hname);
	header(hname, "histogram",
	       "completion latency of the array's IOs on the member, by op (read; write: also flush, discard, write-zeroes)");
	for (i = 0; i < n; i++) {
		for (s = 0; s < arr[i].nr; s++) {
			const struct mqs_member_io *io = &arr[i].io[s];

			for (d = 0; io->have_hist && d < MQS_IO_DIRS; d++) {
				uint64_t sum = 0;

				for (b = 0; b < MQSTRIPE_LAT_BUCKETS; b++) {
					uint64_t le = 1ULL <<
						(MQS_LAT_BUCKET_SHIFT + b);

					sum += io->hist[d][b];
					sample_start(bucket, &arr[i],
						     &arr[i].members[s]);
					printf(",op=\"%s\",le=\"", io_dirs[d]);
					if (b < MQSTRIPE_LAT_BUCKETS - 1)
						print_ns(le);
					else
						printf("+Inf");
					printf("\"} %" PRIu64 "\n", sum);
				}
				sample_start(sum_name, &arr[i],
					     &arr[i].members[s]);
				printf(",op=\"%s\"} ", io_dirs[d]);
				print_ns(io->lat_ns[d]);
				printf("\n");
				sample_start(count, &arr[i],
					     &arr[i].members[s]);
				printf(",op=\"%s\"} %" PRIu64 "\n", io_dirs[d],
				       io->done[d]);
			}
		}
	}
	header("mqstripe_member_io_array_in_flight", "gauge",
	       "the array's IOs in flight on the member, by op");
	for (i = 0; i < n; i++) {
		for (s = 0; s < arr[i].nr; s++) {
			for (d = 0; arr[i].io[s].have && d < MQS_IO_DIRS; d++) {
				sample_start("mqstripe_member_io_array_in_flight",
					     &arr[i], &arr[i].members[s]);
				printf(",op=\"%s\"} %" PRIu64 "\n", io_dirs[d],
				       arr[i].io[s].in_flight[d]);
			}
		}
	}
	header("mqstripe_member_slow", "gauge",
	       "1 while the member's latency stays well above the median member's (a healthy member: not a state)");
	for (i = 0; i < n; i++) {
		for (s = 0; s < arr[i].nr; s++) {
			sample_start("mqstripe_member_slow", &arr[i],
				     &arr[i].members[s]);
			printf("} %d\n", !!(arr[i].members[s].flags &
					     MQSTRIPE_MEMBER_F_SLOW));
		}
	}
}

static int print_all(const struct prom_array *arr, size_t n)
{
	char uuid[37], dev[256], path[64];
	uint64_t (*st)[ST_NR];
	size_t i, d, ndev = n;
	uint32_t s;
	int *have;

	for (i = 0; i < n; i++)
		ndev += arr[i].nr;
	st = calloc(ndev, sizeof(*st));
	have = calloc(ndev, sizeof(*have));
	if (!st || !have) {
		free(st);
		free(have);
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		mqs_array_sysfs(arr[i].index, "stat", path, sizeof(path));
		have[i] = read_stat(path, st[i]);
	}
	for (i = 0, d = n; i < n; i++) {
		for (s = 0; s < arr[i].nr; s++, d++) {
			snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/stat",
				 arr[i].members[s].major,
				 arr[i].members[s].minor);
			have[d] = read_stat(path, st[d]);
		}
	}

	header("mqstripe_arrays", "gauge", "arrays running");
	printf("mqstripe_arrays %zu\n", n);
	header("mqstripe_array_info", "gauge",
	       "an array: its name and UUID; always 1");
	for (i = 0; i < n; i++) {
		mqs_format_uuid(arr[i].info.uuid, uuid);
		sample_start("mqstripe_array_info", &arr[i], NULL);
		printf(",name=");
		print_label_value(arr[i].info.name);
		printf(",uuid=\"%s\"} 1\n", uuid);
	}
	print_states("mqstripe_array_state", arr, n, false);
	header("mqstripe_array_read_only", "gauge",
	       "1 when the array was assembled read-only");
	for (i = 0; i < n; i++) {
		sample_start("mqstripe_array_read_only", &arr[i], NULL);
		printf("} %d\n", mqs_array_readonly(arr[i].index));
	}
	header("mqstripe_array_capacity_bytes", "gauge",
	       "the array's size in bytes");
	for (i = 0; i < n; i++) {
		sample_start("mqstripe_array_capacity_bytes", &arr[i], NULL);
		printf("} %" PRIu64 "\n", (uint64_t)arr[i].info.capacity_bytes);
	}
	print_io(arr, n, false, (const uint64_t (*)[ST_NR])st, have);

	header("mqstripe_member_info", "gauge",
	       "a member: its device and major:minor; always 1");
	for (i = 0; i < n; i++) {
		for (s = 0; s < arr[i].nr; s++) {
			const struct mqstripe_member_info *m =
				&arr[i].members[s];

			if (mqs_devname(m->major, m->minor, dev, sizeof(dev)))
				dev[0] = '\0';
			sample_start("mqstripe_member_info", &arr[i], m);
			printf(",device=");
			print_label_value(strncmp(dev, "/dev/", 5) ? dev :
					  dev + 5);
			printf(",major_minor=\"%u:%u\"} 1\n", m->major,
			       m->minor);
		}
	}
	print_states("mqstripe_member_state", arr, n, true);
	print_errors(arr, n);
	print_io(arr, n, true, (const uint64_t (*)[ST_NR])st, have);
	print_member_io(arr, n);
	free(st);
	free(have);
	return fflush(stdout) ? MQS_EXIT_FAIL : MQS_EXIT_OK;
}

/* The members' IO figures of each array (none: left out). */
static int read_io(struct prom_array *arr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		arr[i].io = calloc(arr[i].nr ? arr[i].nr : 1,
				   sizeof(*arr[i].io));
		if (!arr[i].io) {
			mqs_error("out of memory");
			return MQS_EXIT_FAIL;
		}
		mqs_member_io_read(arr[i].index, arr[i].io, arr[i].nr);
	}
	return MQS_EXIT_OK;
}

/**
 * status_prometheus() - status --prometheus
 * @arg: the array (as for status), or NULL for every array.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL with a message printed.
 */
int status_prometheus(const char *arg)
{
	struct prom_array *arr = NULL;
	struct mqs_ctl ctl;
	uint32_t *idx = NULL, n = 0, i, got = 0;
	int rc;

	if (arg) {
		arr = calloc(1, sizeof(*arr));
		if (!arr) {
			mqs_error("out of memory");
			return MQS_EXIT_FAIL;
		}
		rc = find_array_or_report(&ctl, arg, &arr->index, &arr->info,
					  &arr->members, &arr->nr);
		if (rc) {
			free(arr);
			return MQS_EXIT_FAIL;
		}
		mqs_ctl_close(&ctl);
		got = 1;
		rc = read_io(arr, 1);
		if (!rc)
			rc = print_all(arr, 1);
		goto out;
	}
	if (ctl_list_or_report(&ctl, "status --prometheus", &idx, &n))
		return MQS_EXIT_FAIL;
	arr = calloc(n ? n : 1, sizeof(*arr));
	if (!arr) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto close;
	}
	for (i = 0; i < n; i++) {
		struct prom_array *a = &arr[got];

		a->index = idx[i];
		a->members = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*a->members));
		if (!a->members) {
			mqs_error("out of memory");
			rc = MQS_EXIT_FAIL;
			goto close;
		}
		rc = mqs_info(&ctl, idx[i], &a->info, a->members,
			      MQSTRIPE_MAX_MEMBERS);
		if (rc == -ENODEV) {	/* stopped meanwhile */
			free(a->members);
			a->members = NULL;
			continue;
		}
		if (rc) {
			char path[64];

			free(a->members);
			a->members = NULL;
			mqs_array_node(idx[i], path, sizeof(path));
			report_ctl_error(path, rc, ctl.kernel_abi);
			rc = MQS_EXIT_FAIL;
			goto close;
		}
		a->nr = a->info.nr_members < MQSTRIPE_MAX_MEMBERS ?
			a->info.nr_members : MQSTRIPE_MAX_MEMBERS;
		got++;
	}
	rc = read_io(arr, got);
	if (!rc)
		rc = print_all(arr, got);
close:
	mqs_ctl_close(&ctl);
out:
	for (i = 0; arr && i < got; i++) {
		free(arr[i].members);
		free(arr[i].io);
	}
	free(arr);
	free(idx);
	return rc;
}
