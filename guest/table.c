// SPDX-License-Identifier: GPL-2.0
/*
 * The text of the files as tables: the header's CPUs, each row's label
 * and counts, and the shape of a text with its numbers reduced.
 */
#include "proctest.h"

/*
 * The shape of /proc text, so that two reads compare equal although
 * counters moved: a number right-aligned in a column (two or more spaces
 * before it) becomes <width of spaces and digits>, any other number N.
 * With @padded 0 (/proc/stat has no columns) every number becomes N.
 * "proctest normalize" applies this to stdin for the host as well.
 */
char *normalize(const char *in, int padded)
{
	size_t len = strlen(in);
	char *out = malloc(4 * len + 16), *o = out;
	const char *p = in;

	if (!out)
		die("malloc");
	while (*p) {
		const char *q = p, *d;

		while (*q == ' ')
			q++;
		d = q;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q == d) {		/* no number here */
			o = mempcpy(o, p, d - p + (*d ? 1 : 0));
			p = d + (*d ? 1 : 0);
			continue;
		}
		if (padded && d - p >= 2) {
			o += sprintf(o, "<%d>", (int)(q - p));
		} else {
			o = mempcpy(o, p, d - p);
			*o++ = 'N';
		}
		p = q;
	}
	*o = 0;
	return out;
}

int is_padded(const char *path)
{
	return strcmp(path, "/proc/stat") != 0;
}

/*
 * powerpc shows two rows named LOC (the timer event device's and the
 * others'): the second occurrence of a name is called "LOC#2", so that
 * every row has a name of its own.
 */
static void number_label(const struct table *t, struct table_row *r)
{
	size_t len = strlen(r->label);
	int i, n = 1;

	for (i = 0; i < t->nrows - 1; i++)
		if (!strncmp(t->rows[i].label, r->label, len) &&
		    (!t->rows[i].label[len] || t->rows[i].label[len] == '#'))
			n++;
	if (n > 1)
		snprintf(r->label + len, sizeof(r->label) - len, "#%d", n);
}

/*
 * The one row parser. The header's "CPUn" names give the columns; every
 * other line is a row: its label (before ':'; a line without one is a row
 * labelled "?" with -1 columns), its number if the label is one, and the
 * counts after it, up to the first field that is not a number (chip,
 * description).
 */
struct table parse_text(const char *text)
{
	struct table t = { 0, NULL, 0, NULL };
	char *copy = strdup(text), *line, *save, *p;

	if (!copy)
		die("strdup");
	line = strtok_r(copy, "\n", &save);
	for (p = line; p && (p = strstr(p, "CPU")); p += 3) {
		t.cpu = realloc(t.cpu, (t.ncpus + 1) * sizeof(int));
		t.cpu[t.ncpus++] = atoi(p + 3);
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		char *colon = strchr(line, ':'), *q;
		struct table_row *r;
		int cap = 0;

		t.rows = realloc(t.rows, (t.nrows + 1) * sizeof(*t.rows));
		r = &t.rows[t.nrows++];
		memset(r, 0, sizeof(*r));
		if (!colon) {
			strcpy(r->label, "?");
			r->irq = -1;
			r->ncols = -1;
			continue;
		}
		*colon = 0;
		for (q = line; *q == ' '; q++)
			;
		snprintf(r->label, sizeof(r->label), "%s", q);
		r->irq = (*q >= '0' && *q <= '9') ? strtol(q, NULL, 10) : -1;
		if (r->irq < 0)
			number_label(&t, r);
		for (p = colon + 1; ; ) {
			char *end;

			while (*p == ' ')
				p++;
			if (*p < '0' || *p > '9')
				break;
			if (r->ncols == cap) {
				cap = cap ? 2 * cap : 64;
				r->v = realloc(r->v, cap * sizeof(*r->v));
			}
			r->v[r->ncols++] = strtoull(p, &end, 10);
			p = end;
			if (*p != ' ' && *p)
				break;
		}
	}
	free(copy);
	return t;
}

struct table parse_table(const char *path)
{
	size_t len;
	char *text = slurp(path, &len);
	struct table t = parse_text(text);

	free(text);
	return t;
}

/*
 * Every row names as many CPUs as the header; Err (arm64, arm) carries one
 * global count (x86's ERR and MIS are per-CPU rows since 7.2). 0 with the
 * reason in @why, or 1.
 */
int table_columns(const struct table *t, const char *path, char *why,
		  size_t whylen)
{
	int i;

	if (t->ncpus <= 0) {
		snprintf(why, whylen, "%s has no header", path);
		return 0;
	}
	for (i = 0; i < t->nrows; i++) {
		const struct table_row *r = &t->rows[i];

		if (r->ncols == t->ncpus)
			continue;
		if (r->ncols == 1 && !strcmp(r->label, "Err"))
			continue;
		snprintf(why, whylen, "%s line %d (%s) has %d columns, header %d",
			 path, i + 2, r->label, r->ncols, t->ncpus);
		return 0;
	}
	return 1;
}

int check_columns(const char *path, const char *text, char *why, size_t whylen)
{
	struct table t = parse_text(text);
	int ok = table_columns(&t, path, why, whylen);

	free_table(&t);
	return ok;
}

void free_table(struct table *t)
{
	int i;

	for (i = 0; i < t->nrows; i++)
		free(t->rows[i].v);
	free(t->rows);
	free(t->cpu);
}

/* The CPU ids of a list like /sys/devices/system/cpu/online ("0-3,5"). */
int *cpu_list(const char *path, int *n)
{
	size_t len;
	char *s = slurp_sized(path, 4096, &len), *p = s;
	int *ids = NULL;

	*n = 0;
	while (*p >= '0' && *p <= '9') {
		long a = strtol(p, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		for (; a <= b; a++) {
			ids = realloc(ids, (*n + 1) * sizeof(int));
			ids[(*n)++] = a;
		}
		if (*p == ',')
			p++;
	}
	free(s);
	return ids;
}
