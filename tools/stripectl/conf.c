// SPDX-License-Identifier: GPL-2.0
/*
 * /etc/mqstripe.conf ($MQSTRIPE_CONF): which arrays the automatic
 * assembly (assemble --scan, assemble --incremental from udev) may start,
 * so that disks moved in from another machine, or a guest's disks seen on
 * its host, are not started unless the admin allows it.  The keywords
 * follow mdadm.conf(5):
 *
 *	# comment
 *	AUTO yes|no
 *	ARRAY uuid=UUID [name=NAME]
 *	ARRAY name=NAME
 *	MAILADDR ADDRESS
 *	MAILFROM SENDER...
 *	PROGRAM PATH
 *	GROW auto|manual
 *
 * AUTO yes (the default, also without the file): every array may start.
 * AUTO no: only the arrays an ARRAY line names (every key given must
 * match the superblock).  MAILADDR, MAILFROM and PROGRAM are for
 * stripectl monitor --scan: where it sends the events (the assembly
 * ignores them).  GROW auto lets the udev rule grow a running array when
 * its members report a new size (stripectl grow --on-resize); GROW manual
 * (the default) leaves growing to the admin.
 *
 * A line the parser does not take is an issue naming the file and line
 * (struct mqs_conf_issue), and only what the line was for stops on it,
 * so that a typo never keeps the root array from starting for a reason
 * the assembly does not care about:
 *   - a bad AUTO line, or an unknown keyword that could be a misspelt
 *     AUTO (its keyword begins with AU, or its only value is yes or no):
 *     the automatic assembly starts nothing (ignoring "AUTO no" would
 *     let every array start); the monitor warns and goes on;
 *   - a bad MAILADDR, MAILFROM or PROGRAM line: the monitor refuses to
 *     start; the assembly warns and goes on;
 *   - a bad GROW line: no array grows by itself (as GROW manual); the
 *     assembly and the monitor warn and go on;
 *   - a bad ARRAY line: warned and ignored whole (an ARRAY line only ever
 *     allows an array: leaving one out starts no array it did not name);
 *   - any other unknown keyword: warned and ignored, as mdadm does with
 *     mdadm.conf (a keyword of a newer stripectl, or of mdadm's).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "parse.h"

/* $MQSTRIPE_CONF, else /etc/mqstripe.conf */
const char *mqs_conf_path(void)
{
	const char *p = getenv("MQSTRIPE_CONF");

	return p && *p ? p : MQS_CONF_PATH;
}

/* @kw @on|@off (AUTO yes|no): @set when @on, @kw_line its line. */
static int parse_choice(struct mqs_conf *conf, char **tok, size_t ntok,
			unsigned int line, const char *kw, const char *on,
			const char *off, bool *set, unsigned int *kw_line,
			char *err, size_t len)
{
	if (*kw_line) {
		mqs_set_err(err, len, "%s:%u: %s given again (first on line %u): keep one",
			    conf->path, line, kw, *kw_line);
		return -EINVAL;
	}
	if (ntok != 2 || (strcasecmp(tok[1], on) && strcasecmp(tok[1], off))) {
		mqs_set_err(err, len, "%s:%u: %s takes one word, %s or %s%s%s%s",
			    conf->path, line, kw, on, off,
			    ntok > 1 ? " (not '" : "", ntok > 1 ? tok[1] : "",
			    ntok > 1 ? "')" : "");
		return -EINVAL;
	}
	*set = !strcasecmp(tok[1], on);
	*kw_line = line;
	return 0;
}

static int parse_array(struct mqs_conf *conf, char **tok, size_t ntok,
		       unsigned int line, char *err, size_t len)
{
	struct mqs_conf_array a = { .line = line }, *grown;
	char why[MQS_ERR_LEN];
	bool has_name = false;
	size_t i;

	if (ntok < 2) {
		mqs_set_err(err, len, "%s:%u: ARRAY without uuid= or name=: say which array (stripectl examine --scan --brief prints the lines)",
			    conf->path, line);
		return -EINVAL;
	}
	for (i = 1; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');

		if (!eq) {
			mqs_set_err(err, len, "%s:%u: ARRAY: '%s' is not KEY=VALUE (uuid= or name=)",
				    conf->path, line, tok[i]);
			return -EINVAL;
		}
		*eq = '\0';
		if (!strcasecmp(tok[i], "uuid")) {
			if (a.has_uuid)
				goto twice;
			if (mqs_parse_uuid(eq + 1, a.uuid, why, sizeof(why))) {
				mqs_set_err(err, len, "%s:%u: ARRAY uuid=: %s",
					    conf->path, line, why);
				return -EINVAL;
			}
			a.has_uuid = true;
		} else if (!strcasecmp(tok[i], "name")) {
			if (has_name)
				goto twice;
			if (mqs_check_name(eq + 1, why, sizeof(why))) {
				mqs_set_err(err, len, "%s:%u: ARRAY name=: %s",
					    conf->path, line, why);
				return -EINVAL;
			}
			strcpy(a.name, eq + 1);
			has_name = true;
		} else {
			mqs_set_err(err, len, "%s:%u: ARRAY: unknown key '%s' (known: uuid, name)",
				    conf->path, line, tok[i]);
			return -EINVAL;
		}
	}
	grown = realloc(conf->arrays, (conf->nr_arrays + 1) * sizeof(*grown));
	if (!grown) {
		mqs_set_err(err, len, "out of memory");
		return -ENOMEM;
	}
	conf->arrays = grown;
	conf->arrays[conf->nr_arrays++] = a;
	return 0;
twice:
	mqs_set_err(err, len, "%s:%u: ARRAY: %s= given twice", conf->path,
		    line, tok[i]);
	return -EINVAL;
}

/*
 * MAILADDR ADDRESS, PROGRAM PATH: one word; MAILFROM: the rest of the
 * line ("MAILFROM mqstripe monitor <root@host>").  Each at most once.
 */
static int parse_word(char **val, unsigned int *val_line, char **tok,
		      size_t ntok, unsigned int line, const char *path,
		      char *err, size_t len)
{
	const char *kw = tok[0];
	size_t i, n = 0;
	char *s;

	if (*val_line) {
		mqs_set_err(err, len, "%s:%u: %s given again (first on line %u): keep one",
			    path, line, kw, *val_line);
		return -EINVAL;
	}
	if (!strcasecmp(kw, "MAILFROM") && ntok < 2) {
		mqs_set_err(err, len, "%s:%u: MAILFROM without a sender: give the From: of the mails, or remove the line",
			    path, line);
		return -EINVAL;
	}
	if (strcasecmp(kw, "MAILFROM") && ntok != 2) {
		mqs_set_err(err, len, "%s:%u: %s takes one word, %s",
			    path, line, kw,
			    !strcasecmp(kw, "PROGRAM") ? "the program's absolute path" :
			    "the address to mail the events to");
		return -EINVAL;
	}
	if (!strcasecmp(kw, "PROGRAM") && tok[1][0] != '/') {
		mqs_set_err(err, len, "%s:%u: PROGRAM '%s' is not an absolute path: give the program's path from /",
			    path, line, tok[1]);
		return -EINVAL;
	}
	for (i = 1; i < ntok; i++)
		n += strlen(tok[i]) + 1;
	s = malloc(n);
	if (!s) {
		mqs_set_err(err, len, "out of memory");
		return -ENOMEM;
	}
	s[0] = '\0';
	for (i = 1; i < ntok; i++) {
		if (i > 1)
			strcat(s, " ");
		strcat(s, tok[i]);
	}
	*val = s;
	*val_line = line;
	return 0;
}

/* What a line with keyword @kw was meant to be, when it is not taken. */
static enum mqs_conf_bad meant(const char *kw, char **tok, size_t ntok)
{
	if (!strcasecmp(kw, "AUTO"))
		return MQS_CONF_BAD_AUTO;
	if (!strcasecmp(kw, "ARRAY"))
		return MQS_CONF_BAD_ARRAY;
	if (!strcasecmp(kw, "MAILADDR") || !strcasecmp(kw, "MAILFROM") ||
	    !strcasecmp(kw, "PROGRAM"))
		return MQS_CONF_BAD_MONITOR;
	if (!strcasecmp(kw, "GROW"))
		return MQS_CONF_BAD_GROW;
	if (!strncasecmp(kw, "AU", 2) ||
	    (ntok == 2 && (!strcasecmp(tok[1], "yes") ||
			   !strcasecmp(tok[1], "no"))))
		return MQS_CONF_MISSPELT_AUTO;
	return MQS_CONF_UNKNOWN;
}

static int add_issue(struct mqs_conf *conf, enum mqs_conf_bad bad,
		     const char *msg, char *err, size_t len)
{
	struct mqs_conf_issue *grown;
	char *m = strdup(msg);

	grown = m ? realloc(conf->issues,
			    (conf->nr_issues + 1) * sizeof(*grown)) : NULL;
	if (!grown) {
		free(m);
		mqs_set_err(err, len, "out of memory");
		return -ENOMEM;
	}
	conf->issues = grown;
	conf->issues[conf->nr_issues++] = (struct mqs_conf_issue){
		.msg = m, .bad = bad,
	};
	return 0;
}

/**
 * mqs_conf_blocks() - does @issue keep a user of the file from going on
 * @issue: a line not taken.
 * @monitor: the user is stripectl monitor --scan, else the automatic
 *	assembly.
 *
 * Return: true when what the line was for is unknown to that user: which
 * arrays may start (a bad or misspelt AUTO) for the assembly, where to
 * report (a bad MAILADDR, MAILFROM or PROGRAM) for the monitor.
 */
bool mqs_conf_blocks(const struct mqs_conf_issue *issue, bool monitor)
{
	if (monitor)
		return issue->bad == MQS_CONF_BAD_MONITOR;
	return issue->bad == MQS_CONF_BAD_AUTO ||
	       issue->bad == MQS_CONF_MISSPELT_AUTO;
}

/**
 * mqs_conf_issue_text() - what to tell the admin of @issue
 * @issue: a line not taken.
 * @monitor: see mqs_conf_blocks().
 * @buf: "PATH:LINE: what is wrong" when it blocks that user (for the
 *	caller to say what it does not do), else "warning: PATH:LINE:
 *	what is wrong; what happens instead".
 * @len: room at @buf.
 */
void mqs_conf_issue_text(const struct mqs_conf_issue *issue, bool monitor,
			 char *buf, size_t len)
{
	const char *then = "the line is ignored";

	if (mqs_conf_blocks(issue, monitor)) {
		snprintf(buf, len, "%s", issue->msg);
		return;
	}
	switch (issue->bad) {
	case MQS_CONF_BAD_AUTO:
	case MQS_CONF_MISSPELT_AUTO:
		then = "the monitor does not use it; the automatic assembly starts nothing until it is fixed";
		break;
	case MQS_CONF_BAD_MONITOR:
		then = "the assembly does not use it and goes on; 'stripectl monitor --scan' refuses to start until it is fixed";
		break;
	case MQS_CONF_BAD_GROW:
		then = "the line is ignored: no array grows by itself until it is fixed (as with GROW manual)";
		break;
	case MQS_CONF_BAD_ARRAY:
		then = "the line is ignored (with AUTO no, the array it was to name starts only if another line names it)";
		break;
	case MQS_CONF_UNKNOWN:
		break;
	}
	snprintf(buf, len, "warning: %s; %s", issue->msg, then);
}

/**
 * mqs_conf_parse() - read a configuration file
 * @f: the open file.
 * @path: its name, for messages.
 * @conf: filled in (present, AUTO yes and no ARRAY lines before the
 *	first line); mqs_conf_free() it, also on failure.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * Keywords and keys are case-insensitive; '#' starts a comment; words
 * are separated by blanks.  Every line not taken becomes an entry of
 * @conf->issues, and the parse goes on.
 *
 * Return: 0 or -ENOMEM.
 */
int mqs_conf_parse(FILE *f, const char *path, struct mqs_conf *conf,
		   char *err, size_t len)
{
	char *buf = NULL, *tok[16], *save, *p, why[MQS_ERR_LEN];
	unsigned int line = 0;
	size_t cap = 0, ntok;
	int rc = 0;

	*conf = (struct mqs_conf){ .path = path, .present = true,
				   .auto_start = true };
	while (rc != -ENOMEM && getline(&buf, &cap, f) >= 0) {
		line++;
		rc = 0;
		p = strchr(buf, '#');
		if (p)
			*p = '\0';
		ntok = 0;
		for (p = strtok_r(buf, " \t\r\n", &save); p;
		     p = strtok_r(NULL, " \t\r\n", &save)) {
			if (ntok == sizeof(tok) / sizeof(tok[0])) {
				mqs_set_err(why, sizeof(why), "%s:%u: more than %zu words",
					    path, line, ntok);
				rc = add_issue(conf, meant(tok[0], tok, ntok),
					       why, err, len);
				ntok = 0;
				break;
			}
			tok[ntok++] = p;
		}
		if (!ntok)
			continue;
		if (!strcasecmp(tok[0], "AUTO")) {
			rc = parse_choice(conf, tok, ntok, line, "AUTO", "yes",
					  "no", &conf->auto_start,
					  &conf->auto_line, err, len);
		} else if (!strcasecmp(tok[0], "ARRAY")) {
			rc = parse_array(conf, tok, ntok, line, err, len);
		} else if (!strcasecmp(tok[0], "MAILADDR")) {
			rc = parse_word(&conf->mailaddr, &conf->mailaddr_line,
					tok, ntok, line, path, err, len);
		} else if (!strcasecmp(tok[0], "MAILFROM")) {
			rc = parse_word(&conf->mailfrom, &conf->mailfrom_line,
					tok, ntok, line, path, err, len);
		} else if (!strcasecmp(tok[0], "PROGRAM")) {
			rc = parse_word(&conf->program, &conf->program_line,
					tok, ntok, line, path, err, len);
		} else if (!strcasecmp(tok[0], "GROW")) {
			rc = parse_choice(conf, tok, ntok, line, "GROW", "auto",
					  "manual", &conf->grow_auto,
					  &conf->grow_line, err, len);
		} else if (meant(tok[0], tok, ntok) == MQS_CONF_MISSPELT_AUTO) {
			mqs_set_err(err, len, "%s:%u: unknown keyword '%s', a misspelt AUTO? (known: AUTO, ARRAY, MAILADDR, MAILFROM, PROGRAM, GROW; see mqstripe.conf(5))",
				    path, line, tok[0]);
			rc = -EINVAL;
		} else {
			mqs_set_err(err, len, "%s:%u: unknown keyword '%s' (known: AUTO, ARRAY, MAILADDR, MAILFROM, PROGRAM, GROW; see mqstripe.conf(5))",
				    path, line, tok[0]);
			rc = -EINVAL;
		}
		if (rc == -EINVAL)
			rc = add_issue(conf, meant(tok[0], tok, ntok), err,
				       err, len);
	}
	free(buf);
	return rc;
}

/**
 * mqs_conf_load() - read mqs_conf_path()
 * @conf: filled in; without the file: not present, AUTO yes.
 *	mqs_conf_free() it, also on failure.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * Return: 0 (the lines not taken are in @conf->issues), -ENOMEM, or the
 * negative errno of opening or reading the file (other than ENOENT).
 */
int mqs_conf_load(struct mqs_conf *conf, char *err, size_t len)
{
	const char *path = mqs_conf_path();
	FILE *f = fopen(path, "re");
	int rc;

	if (!f) {
		*conf = (struct mqs_conf){ .path = path, .auto_start = true };
		if (errno == ENOENT)
			return 0;
		rc = -errno;
		mqs_set_err(err, len, "cannot read %s: %s", path,
			    strerror(errno));
		return rc;
	}
	rc = mqs_conf_parse(f, path, conf, err, len);
	if (!rc && ferror(f)) {
		mqs_set_err(err, len, "cannot read %s", path);
		rc = -EIO;
	}
	fclose(f);
	return rc;
}

/**
 * mqs_conf_allows() - may the automatic assembly start this array
 * @conf: from mqs_conf_load().
 * @uuid: the array's UUID.
 * @name: its name ("" for none).
 * @why: when not: why, and the line that would allow it.
 * @len: room at @why.
 *
 * Return: true with AUTO yes or when an ARRAY line matches (each key it
 * gives equals the superblock's).
 */
bool mqs_conf_allows(const struct mqs_conf *conf, const uint8_t uuid[16],
		     const char *name, char *why, size_t len)
{
	const struct mqs_conf_array *near = NULL;
	char u[37];
	size_t i;

	if (conf->auto_start)
		return true;
	for (i = 0; i < conf->nr_arrays; i++) {
		const struct mqs_conf_array *a = &conf->arrays[i];
		bool uuid_ok = !a->has_uuid || !memcmp(a->uuid, uuid, 16);
		bool name_ok = !a->name[0] || !strcmp(a->name, name);

		if (uuid_ok && name_ok)
			return true;
		if (a->has_uuid && uuid_ok && !near)
			near = a;
	}
	mqs_format_uuid(uuid, u);
	if (near)
		mqs_set_err(why, len, "AUTO no in %s, and its ARRAY line (line %u) names '%s', not '%s'",
			    conf->path, near->line, near->name, name);
	else
		mqs_set_err(why, len, "AUTO no in %s (line %u) and no ARRAY line names it; to start it at boot add the line 'ARRAY uuid=%s%s%s'",
			    conf->path, conf->auto_line, u,
			    name[0] ? " name=" : "", name);
	return false;
}

/* Free what mqs_conf_parse() allocated. */
void mqs_conf_free(struct mqs_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->nr_issues; i++)
		free(conf->issues[i].msg);
	free(conf->issues);
	conf->issues = NULL;
	conf->nr_issues = 0;
	free(conf->arrays);
	free(conf->mailaddr);
	free(conf->mailfrom);
	free(conf->program);
	conf->arrays = NULL;
	conf->nr_arrays = 0;
	conf->mailaddr = NULL;
	conf->mailfrom = NULL;
	conf->program = NULL;
}
