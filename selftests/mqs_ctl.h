/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mqs_ctl - what the control-ABI test programs share (mqs_ioctl, the
 * deterministic checks; mqs_fuzz, the fuzzer): the control device and its
 * ioctl wrapper, the driver's command numbers and random ones, the array
 * list and removal, the member devices given on the command line, memory
 * regions with unmapped and read-only pages, and a seeded random source.
 */
#ifndef MQS_CTL_H
#define MQS_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mqstripe.h"

#ifndef CTL_PATH
#define CTL_PATH	"/dev/" MQSTRIPE_CONTROL_NAME
#endif
#define MAX_REAL	16	/* member devices given as arguments */
#define MAX_WIDE	300	/* devices of a -w list, beyond MQSTRIPE_MAX_MEMBERS */

/* any command's struct, and room beyond the largest */
union mqs_any_cmd {
	struct mqstripe_version v;
	struct mqstripe_create c;
	struct mqstripe_remove r;
	struct mqstripe_info i;
	struct mqstripe_list l;
	struct mqstripe_clear x;
	struct mqstripe_rename n;
	unsigned char raw[512];
};

/* a command struct's header, version and size filled in */
#define HDR(s) { .version = MQSTRIPE_ABI_VERSION, .size = sizeof(s) }

extern long page_size;

/* ------------------------------------------------------- random */

/* splitmix64 state: seed it, and a run can be repeated */
extern uint64_t rnd_state;
uint64_t rnd(void);
/* in [0, @n), 0 for 0 */
uint32_t rndn(uint32_t n);
bool chance(unsigned int percent);

/* ---------------------------------------------------- the device */

/* the control device's fd (ctl_open()) */
extern int ctl;
/* open CTL_PATH read-write into ctl; -1 with errno on failure */
int ctl_open(void);
/* ioctl on ctl: 0, or the errno; a return other than 0 and -1 is 1000 */
int xioctl(unsigned long cmd, void *arg);

/* ---------------------------------------------- command numbers */

#define NR_VALID 8
extern const unsigned long valid_cmds[NR_VALID];
extern const size_t cmd_sizes[NR_VALID];
/* index of @cmd in valid_cmds, NR_VALID if it is not one */
unsigned int valid_index(unsigned long cmd);
/* whether the VFS takes ioctls of @cmd's type itself (do_vfs_ioctl) */
bool vfs_type(unsigned long cmd);
/* a command number of the driver's type with random nr, dir and size */
unsigned long type_random_cmd(void);
/* the valid command @vi's number with another size or direction */
unsigned long bad_size_cmd(int vi);
/* a random number that is none of the driver's and no VFS type */
unsigned long random_cmd(void);

/* ------------------------------------------------- list, remove */

/* indexes of the arrays that exist (at most @cap); the count or -errno */
int list_arrays(uint32_t *idx, uint32_t cap);
int count_arrays(void);
/* REMOVE array @index: 0 or the errno */
int remove_array(uint32_t index);
/*
 * Remove every array (stacked ones top first, retried until none goes);
 * @removed: how many went.  Returns the count left, or -errno.
 */
int remove_all(int *removed);
/* whether @path opens with O_EXCL (nothing holds it) */
bool claimable(const char *path);

/* ------------------------------------------------------ members */

extern int real_fd[MAX_REAL], nreal;
extern const char *real_path[MAX_REAL];
extern int wide_fd[MAX_WIDE], nwide;
extern const char *wide_path[MAX_WIDE];
/*
 * Open @argv[0..@argc-1] read-write as the real members (at most
 * MAX_REAL).  On failure prints a "not ok 1" line and returns -1.
 */
int open_members(int argc, char **argv);
/*
 * Open the devices listed in @file (one per line, at most MAX_WIDE) as
 * the wide members.  On failure prints a "not ok 1" line and returns -1.
 */
int read_list(const char *file);
/*
 * After ctl_open(): open the members @argv[0..@argc-1] and the devices of
 * @wide_file (NULL: none), and check that no array exists: the callers
 * create, count and remove arrays, and must never touch others'.  On
 * failure prints a "not ok 1" line (no array before @what) and returns -1.
 */
int ctl_prepare(int argc, char **argv, const char *wide_file,
		const char *what);

/* ---------------------------------------------- memory regions */

/*
 * A region: [RW page][RW page][unmapped page][RO page].  Objects go at the
 * start of page 1, flush against the unmapped page, straddling into it, in
 * the read-only page, or into the unmapped page itself.
 */
struct region {
	char *base;
};

enum place { PL_NORMAL, PL_FLUSH, PL_STRADDLE, PL_RO, PL_UNMAPPED, PL_NULL,
	     PL_KERNEL, PL_NONCANON, PL_LOW, NR_PLACES };

extern const char *const place_names[NR_PLACES];
/* map a region (exits with status 2 when mmap fails) */
void region_init(struct region *r);
/* unmap what is left of it */
void region_free(struct region *r);
/*
 * Where an object of @size bytes goes; copies @obj there (the read-only
 * page is made writable for the copy).  Returns the user address.
 */
void *place_obj(struct region *r, enum place pl, const void *obj,
		size_t size);

#endif
