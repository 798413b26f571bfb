// SPDX-License-Identifier: GPL-2.0
/*
 * The list of dm-crypt maps that are array members,
 * /etc/mqstripe/crypt-members ($MQSTRIPE_CRYPT_MEMBERS), which the
 * package's systemd generator (tools/systemd/mqstripe-generator) reads at
 * boot and at each daemon-reload: it orders the systemd-cryptsetup unit
 * of each map listed before mqstripe-stop.service, so that at shutdown
 * the arrays stop before their members' maps are detached.  A generator
 * must not touch devices; this file says which maps are members.
 *
 * One line per map: "NAME ARRAY-UUID DM-UUID", the map's name (the
 * crypttab name), the UUID of the array it is a member of and the map's
 * device-mapper UUID (CRYPT-LUKS2-<LUKS UUID without dashes>-NAME), with
 * which the generator tells a map whose crypttab line names another LUKS
 * volume now.  Every start of an array (create, each kind of assemble)
 * replaces that array's lines by its dm-crypt members (a map that is now
 * a member of this array loses its line of another), and so does
 * assemble --scan for every array running then, writing only when that
 * changes the file; zero-superblock drops the lines of the maps it
 * erased.  Commands that call these hold the metadata lock.  The file is
 * best effort: a read-only /etc (the initramfs, early boot) writes
 * nothing, silently; any other failure is a warning, never a failure of
 * the command.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common.h"
#include "cryptlist.h"
#include "parse.h"
#include "sysfs.h"

#define MQS_CRYPT_LIST "/etc/mqstripe/crypt-members"

static const char list_header[] =
	"# dm-crypt maps that are mqstripe array members: NAME ARRAY-UUID DM-UUID.\n"
	"# Kept by stripectl (create, assemble, zero-superblock); read by\n"
	"# mqstripe-generator, which orders each map's systemd-cryptsetup unit\n"
	"# before mqstripe-stop.service.  A line may be removed by hand.\n";

const char *mqs_crypt_list_path(void)
{
	const char *p = getenv("MQSTRIPE_CRYPT_MEMBERS");

	return p && *p ? p : MQS_CRYPT_LIST;
}

/*
 * The map name and dm UUID of an open member when it is a dm-crypt map
 * (dm UUID "CRYPT-..."), whose name a crypttab line can carry (no blank,
 * no control byte).  Return: true for such a map.
 */
static bool crypt_map_of(dev_t dev, char *name, size_t nlen, char *dmuuid,
			 size_t ulen)
{
	char path[96];
	const char *p;

	if (!dev)
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/uuid",
		 major(dev), minor(dev));
	if (mqs_sysfs_read(path, dmuuid, ulen) ||
	    strncmp(dmuuid, "CRYPT-", 6))
		return false;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/name",
		 major(dev), minor(dev));
	if (mqs_sysfs_read(path, name, nlen) || !*name)
		return false;
	for (p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	for (p = dmuuid; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

/* The file's text, or NULL (none, unreadable: an empty list). */
static char *read_list(void)
{
	FILE *f = fopen(mqs_crypt_list_path(), "re");
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (!f)
		return NULL;
	m = open_memstream(&text, &len);
	if (m) {
		char buf[4096];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, m);
		fclose(m);
	}
	fclose(f);
	return text;
}

static bool name_in(const char *name, size_t len, char names[][128],
		    uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], name, len))
			return true;
	return false;
}

/*
 * Write @text as the list (a temporary file renamed over it), unless it
 * is what the file holds; the directory is made when missing.
 */
static void write_list(const char *old, const char *text)
{
	const char *path = mqs_crypt_list_path();
	char tmp[4096], dir[4096], *slash;
	FILE *f;
	int fd, err;

	if (old ? !strcmp(old, text) : !strcmp(text, list_header))
		return;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			goto fail;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		goto fail;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		goto fail;
	}
	fputs(text, f);
	if (fflush(f) || fsync(fileno(f))) {
		err = errno;
		fclose(f);
		unlink(tmp);
		errno = err;
		goto fail;
	}
	if (fclose(f) || rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		errno = err;
		goto fail;
	}
	return;
fail:
	if (errno != EROFS)
		mqs_error("warning: cannot update %s: %s; at shutdown a dm-crypt member's map may be detached before its array stops (stripectl(8), FILES)",
			  path, strerror(errno));
}

/*
 * Rewrite the list: every line kept but those of array @uuid (when not
 * NULL) and those naming one of @names, then one line per entry of
 * @names with @dmuuids (array @uuid).
 */
static void rewrite(const char *uuid, char names[][128], char dmuuids[][160],
		    uint32_t n_new, char drop[][128], uint32_t n_drop)
{
	char *old = read_list(), *text = NULL, *line, *next;
	size_t len = 0;
	uint32_t i;
	FILE *m;

	m = open_memstream(&text, &len);
	if (!m) {
		free(old);
		return;
	}
	fputs(list_header, m);
	for (line = old; line && *line; line = next) {
		size_t l = strcspn(line, "\n"), nl, ul;
		const char *u;

		next = line[l] ? line + l + 1 : line + l;
		if (*line == '#' || l == 0)
			continue;
		nl = strcspn(line, " \t\n");
		u = line + nl + strspn(line + nl, " \t");
		ul = strcspn(u, " \t\n");
		if (uuid && ul == strlen(uuid) && !strncasecmp(u, uuid, ul))
			continue;
		if (name_in(line, nl, drop, n_drop))
			continue;
		fwrite(line, 1, l, m);
		fputc('\n', m);
	}
	for (i = 0; i < n_new; i++)
		fprintf(m, "%s %s %s\n", names[i], uuid, dmuuids[i]);
	if (fclose(m) == 0)
		write_list(old, text);
	free(text);
	free(old);
}

/* The block device an open fd is, or 0. */
static dev_t fd_dev(int fd)
{
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISBLK(st.st_mode))
		return 0;
	return st.st_rdev;
}

/* An array's lines from its members' devices. */
static void array_members(const uint8_t uuid[16], const dev_t *devs,
			  uint32_t nr)
{
	char (*names)[128] = calloc(nr ? nr : 1, sizeof(*names));
	char (*dmuuids)[160] = calloc(nr ? nr : 1, sizeof(*dmuuids));
	char u[37];
	uint32_t i, n = 0;

	if (!names || !dmuuids)
		goto out;
	for (i = 0; i < nr; i++)
		if (crypt_map_of(devs[i], names[n], sizeof(names[n]),
				 dmuuids[n], sizeof(dmuuids[n])))
			n++;
	mqs_format_uuid(uuid, u);
	rewrite(u, names, dmuuids, n, names, n);
out:
	free(names);
	free(dmuuids);
}

void mqs_crypt_list_started(const uint8_t uuid[16], const int *fds,
			    uint32_t nr)
{
	dev_t *devs = calloc(nr ? nr : 1, sizeof(*devs));
	uint32_t i;

	if (!devs)
		return;
	for (i = 0; i < nr; i++)
		devs[i] = fd_dev(fds[i]);
	array_members(uuid, devs, nr);
	free(devs);
}

/* assemble --scan: the lines of every running array without a failed member */
void mqs_crypt_list_running(void)
{
	struct mqstripe_member_info *members;
	struct mqstripe_info info;
	uint32_t *indexes = NULL, count = 0, i, s;
	dev_t devs[MQSTRIPE_MAX_MEMBERS];
	struct mqs_ctl ctl;

	if (mqs_ctl_open(&ctl))
		return;
	members = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*members));
	if (members && !mqs_list(&ctl, &indexes, &count)) {
		for (i = 0; i < count; i++) {
			if (mqs_info(&ctl, indexes[i], &info, members,
				     MQSTRIPE_MAX_MEMBERS))
				continue;
			for (s = 0; s < info.nr_members &&
			     s < MQSTRIPE_MAX_MEMBERS; s++) {
				if (member_failed(&members[s]))
					break;
				devs[s] = makedev(members[s].major,
						  members[s].minor);
			}
			/* a failed member's map may be gone: lines kept */
			if (s == info.nr_members)
				array_members(info.uuid, devs, s);
		}
	}
	free(indexes);
	free(members);
	mqs_ctl_close(&ctl);
}

void mqs_crypt_list_forget(const int *fds, uint32_t nr)
{
	char (*names)[128] = calloc(nr ? nr : 1, sizeof(*names));
	char dmuuid[160];
	uint32_t i, n = 0;

	if (!names)
		return;
	for (i = 0; i < nr; i++)
		if (crypt_map_of(fd_dev(fds[i]), names[n], sizeof(names[n]),
				 dmuuid, sizeof(dmuuid)))
			n++;
	if (n)
		rewrite(NULL, NULL, NULL, 0, names, n);
	free(names);
}
