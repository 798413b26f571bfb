/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /etc/mqstripe.conf: which arrays assemble --scan and --incremental may
 * start, where stripectl monitor --scan reports, and whether arrays grow
 * by themselves (mqstripe.conf(5)).
 */
#ifndef STRIPECTL_CONF_H
#define STRIPECTL_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mqstripe.h"

#define MQS_CONF_PATH	"/etc/mqstripe.conf"

/**
 * struct mqs_conf_array - one ARRAY line
 * @has_uuid: the line gives uuid=.
 * @uuid: the array UUID it names.
 * @name: the array name it names, "" when the line gives none.
 * @line: its line number in the file.
 */
struct mqs_conf_array {
	bool has_uuid;
	uint8_t uuid[16];
	char name[MQSTRIPE_NAME_LEN];
	unsigned int line;
};

/* What a line the parser did not take was meant to be. */
enum mqs_conf_bad {
	MQS_CONF_BAD_AUTO,	/* an AUTO line: which arrays may start */
	MQS_CONF_MISSPELT_AUTO,	/* unknown, but could be a misspelt AUTO */
	MQS_CONF_BAD_ARRAY,	/* an ARRAY line */
	MQS_CONF_BAD_MONITOR,	/* MAILADDR, MAILFROM, PROGRAM: the monitor's */
	MQS_CONF_BAD_GROW,	/* a GROW line: whether arrays grow by themselves */
	MQS_CONF_UNKNOWN,	/* an unknown keyword */
};

/**
 * struct mqs_conf_issue - a line the parser did not take
 * @msg: "PATH:LINE: what is wrong".
 * @bad: what the line was meant to be.
 */
struct mqs_conf_issue {
	char *msg;
	enum mqs_conf_bad bad;
};

/**
 * struct mqs_conf - what the file says
 * @path: the file read.
 * @present: the file exists; without it every array may start.
 * @auto_start: AUTO yes (also when the file has no AUTO line).
 * @auto_line: the AUTO line's number, 0 without one.
 * @arrays: the ARRAY lines, in file order.
 * @nr_arrays: entries in @arrays.
 * @mailaddr: MAILADDR's address, NULL without the line.
 * @mailfrom: MAILFROM's sender (the rest of the line), NULL without it.
 * @program: PROGRAM's path, NULL without the line.
 * @mailaddr_line: line numbers of those lines, 0 without them.
 * @mailfrom_line: see @mailaddr_line.
 * @program_line: see @mailaddr_line.
 * @grow_auto: GROW auto: the udev rule grows a running array whose
 *	members report a new size (false without the line).
 * @grow_line: the GROW line's number, 0 without one.
 * @issues: the lines not taken, in file order (mqs_conf_blocks()).
 * @nr_issues: entries in @issues.
 */
struct mqs_conf {
	const char *path;
	bool present;
	bool auto_start;
	unsigned int auto_line;
	struct mqs_conf_array *arrays;
	size_t nr_arrays;
	char *mailaddr;
	char *mailfrom;
	char *program;
	unsigned int mailaddr_line;
	unsigned int mailfrom_line;
	unsigned int program_line;
	bool grow_auto;
	unsigned int grow_line;
	struct mqs_conf_issue *issues;
	size_t nr_issues;
};

const char *mqs_conf_path(void);
int mqs_conf_parse(FILE *f, const char *path, struct mqs_conf *conf,
		   char *err, size_t len);
int mqs_conf_load(struct mqs_conf *conf, char *err, size_t len);
bool mqs_conf_blocks(const struct mqs_conf_issue *issue, bool monitor);
void mqs_conf_issue_text(const struct mqs_conf_issue *issue, bool monitor,
			 char *buf, size_t len);
bool mqs_conf_allows(const struct mqs_conf *conf, const uint8_t uuid[16],
		     const char *name, char *why, size_t len);
void mqs_conf_free(struct mqs_conf *conf);

#endif /* STRIPECTL_CONF_H */
