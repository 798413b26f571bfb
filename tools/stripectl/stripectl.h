/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STRIPECTL_H
#define STRIPECTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "libmqs.h"

/* Exit status, documented in "stripectl --help". */
enum {
	MQS_EXIT_OK = 0,
	MQS_EXIT_FAIL = 1,
	MQS_EXIT_USAGE = 2,
};

struct cmd;
typedef int (*cmd_fn)(const struct cmd *cmd, int argc, char **argv);

/**
 * struct cmd - one stripectl command
 * @name: the word after "stripectl".
 * @fn: handler; gets argv[0] == @name; returns the exit status.
 * @args: synopsis of the arguments after the options.
 * @summary: one line for "stripectl --help".
 * @description: paragraph for "stripectl @name --help".
 * @min_args: fewest positional arguments.
 * @max_args: most positional arguments, -1 for no limit.
 * @missing: message when fewer than @min_args are given.
 */
struct cmd {
	const char *name;
	cmd_fn fn;
	const char *args;
	const char *summary;
	const char *description;
	int min_args;
	int max_args;
	const char *missing;
};

enum opt_type {
	OPT_FLAG,	/* bool */
	OPT_SIZE,	/* uint64_t, mqs_parse_size() */
	OPT_UINT,	/* uint64_t, plain decimal */
	OPT_STR,	/* const char * */
};

/**
 * struct opt - one option of a command, declared by the handler next to
 *	the variable it sets (the nvme-cli argconfig way); the same table makes
 *	the help text.  A table ends with an entry whose @name is NULL.
 * @name: long name, without "--".
 * @short_name: short letter, 0 for none.
 * @type: what @val points to.
 * @val: where the value goes.
 * @given: set to true when the option is on the command line; may be NULL.
 * @argname: "SIZE", "N"... for the help text.
 * @help: one sentence, with the default.
 */
struct opt {
	const char *name;
	int short_name;
	enum opt_type type;
	void *val;
	bool *given;
	const char *argname;
	const char *help;
};

int opts_parse_exit(const struct cmd *cmd, const struct opt *opts, int argc,
		    char **argv, int *first_arg);
void print_cmd_help(const struct cmd *cmd, const struct opt *opts);

void mqs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_open_or_report(struct mqs_ctl *ctl);
void report_find_error(const char *arg, int rc, uint32_t kernel_abi);
void report_ctl_error(const char *what, int rc, uint32_t kernel_abi);
int find_array_or_report(struct mqs_ctl *ctl, const char *arg,
			 uint32_t *index, struct mqstripe_info *info,
			 struct mqstripe_member_info **members, uint32_t *nr);
void mqs_sleep_ms(unsigned int ms);
const char *mqs_run_dir(void);
void mqs_array_node(uint32_t index, char *buf, size_t len);
int mqs_meta_lock(void);
void mqs_meta_unlock(int fd);
const char *array_state_name(uint32_t state);
const char *member_state_name(uint32_t state);

struct mqs_wipe_log;

/**
 * struct sbw - one member whose superblock is being written (start.c)
 * @path: the device.
 * @excl: exclusive read-write descriptor while claimed, else -1.
 * @dfd: O_DIRECT read-write descriptor for the superblock area, else -1.
 * @old: the superblock area as it was (restored if starting the array
 *	fails).
 * @new: the area to write.
 * @copies: copies of @new to write: 1 (byte 4096 only) or 2.
 * @second_first: write the copy at 8192 first (the copy at 4096 is the one
 *	in use on the device: it stays until its successor is durable).
 * @written: @new is on the device.
 * @wiped: what "create --force" wiped on it (put back if the array does not
 *	start), or NULL.
 */
struct sbw {
	const char *path;
	int excl;
	int dfd;
	uint8_t *old;
	uint8_t *new;
	unsigned int copies;
	bool second_first;
	bool written;
	struct mqs_wipe_log *wiped;
};

int check_member_path(struct mqs_member_dev *m);
void report_open_error(const char *path, int err);
void report_duplicate(const char *first, const char *second, const char *tail);
int check_distinct(const struct mqs_member_dev *members, size_t nr);
void sbw_init(struct sbw *w, const char *path);
int sbw_claim(struct sbw *w);
int sbw_reread(struct sbw *w);
int sbw_write_all(struct sbw *w, size_t n);
int sbw_verify_all(struct sbw *w, size_t n);
void sbw_restore_all(struct sbw *w, size_t n);
void sbw_unwipe_all(struct sbw *w, size_t n);
void sbw_release(struct sbw *w, size_t n);
void sbw_free(struct sbw *w, size_t n);
int sb_update_member(const char *path, const uint8_t uuid[16], uint32_t slot,
		     uint32_t state, char *why, size_t len);
int start_array(struct mqs_ctl *ctl, const struct mqs_create_req *req,
		const uint8_t uuid[16], uint32_t *index);
int announce_array(struct mqs_ctl *ctl, uint32_t index);
void incr_forget(const uint8_t uuid[16]);

int cmd_create(const struct cmd *cmd, int argc, char **argv);
int cmd_stop(const struct cmd *cmd, int argc, char **argv);
int cmd_list(const struct cmd *cmd, int argc, char **argv);
int cmd_status(const struct cmd *cmd, int argc, char **argv);
int cmd_assemble(const struct cmd *cmd, int argc, char **argv);
int cmd_examine(const struct cmd *cmd, int argc, char **argv);
int cmd_zero_superblock(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_H */
