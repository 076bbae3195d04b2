// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: failslab and fail_page_alloc aimed at one process, and
 * reads whose text is checked whole.
 */
#include "proctest.h"

#define FAULT_TEXT (4 << 20)
static char *fault_text;	/* allocated and touched before injection */

void fault_attr(const char *attr, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "%s/%s", attr, file);
	write_file(path, val);
}

/*
 * Aim @attr (failslab, fail_page_alloc) at the processes marked with
 * make_it_fail(), GFP_KERNEL allocations included, failing @percent of
 * their allocations from now on, without a report each.
 */
void fault_aim(const char *attr, int percent)
{
	char p[8];

	fault_attr(attr, "task-filter", "Y");
	fault_attr(attr, "ignore-gfp-wait", "N");
	fault_attr(attr, "verbose", "0");
	fault_attr(attr, "interval", "1");
	fault_attr(attr, "times", "-1");
	snprintf(p, sizeof(p), "%d", percent);
	fault_attr(attr, "probability", p);
}

/*
 * A fragmented machine for the processes marked with make_it_fail():
 * fail_page_alloc fails all their allocations of order 1 and up (@on),
 * or none again.
 */
void fragment_memory(int on)
{
	const char *attr = "fail_page_alloc";

	if (on) {
		fault_attr(attr, "min-order", "1");
		fault_aim(attr, 100);
	} else {
		fault_attr(attr, "probability", "0");
		fault_attr(attr, "min-order", "0");
	}
}

/* Writes that themselves may meet an injected failure are retried. */
void make_it_fail(int on)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		int fd = open("/proc/self/make-it-fail", O_WRONLY);
		int ok = fd >= 0 && write(fd, on ? "1" : "0", 1) == 1;

		if (fd >= 0)
			close(fd);
		if (ok)
			return;
	}
	_exit(3);
}

/*
 * One full read of @path into fault_text in reads of @rsize bytes: the
 * length, or -errno.
 */
ssize_t fault_read(const char *path, size_t rsize)
{
	return read_file(path, rsize, fault_text, FAULT_TEXT);
}

/*
 * A read that succeeded must be whole: the shape of the text before
 * injection (so a false EOF fails), every row as wide as the header.
 */
void fault_check(struct fault_counts *c, const char *path, const char *ref,
			ssize_t r)
{
	char *shape, why[128] = "";

	if (r < 0) {
		if (r == -ENOMEM) {
			c->enomem++;
		} else {
			c->other++;
			c->other_errno = -r;
		}
		return;
	}
	c->reads++;
	shape = normalize(fault_text, is_padded(path));
	if (strcmp(shape, ref)) {
		if (!c->bad++)
			snprintf(c->why, sizeof(c->why), "%s: %zd bytes, not the text before",
				 path, r);
	} else if (is_padded(path) && !check_columns(path, fault_text, why, sizeof(why))) {
		if (!c->bad++)
			snprintf(c->why, sizeof(c->why), "%s", why);
	}
	free(shape);
}

void fault_text_alloc(void)
{
	if (!fault_text) {
		fault_text = malloc(FAULT_TEXT + 1);
		if (!fault_text)
			die("malloc");
	}
	memset(fault_text, 1, FAULT_TEXT + 1);	/* no page faults under injection */
}

/* The shapes of the three files now. */
void fault_refs(char **ref)
{
	unsigned int i;
	size_t len;

	for (i = 0; i < NR_FILES; i++) {
		char *t = slurp(files[i], &len);

		ref[i] = normalize(t, is_padded(files[i]));
		free(t);
	}
}
