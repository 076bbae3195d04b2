// SPDX-License-Identifier: GPL-2.0
/*
 * Readers that go over the files while CPUs or interrupts come and go,
 * and count passes whose rows disagree with their header.
 */
#include "proctest.h"

#define READER_TRACE_KB "4096"	/* per CPU: no event lost in 30 s */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The values of a pass that hold whatever churns: header CPUs and numbered
 * rows ascending, and every count of a named row (LOC, NET_RX, ...) at
 * least what the reader's previous pass showed for that row and CPU.
 * Numbered rows may be freed and their numbers reused, so their counts
 * may start again from zero. Counts are per CPU and survive its going
 * offline, so a count that goes back was shown in another CPU's column.
 */
static int values_hold(const struct table *t, const struct table *prev,
		       char *why, size_t whylen)
{
	int i, j, k, l;

	for (i = 1; i < t->ncpus; i++)
		if (t->cpu[i] <= t->cpu[i - 1]) {
			snprintf(why, whylen, "header CPU%d after CPU%d",
				 t->cpu[i], t->cpu[i - 1]);
			return 0;
		}
	for (i = 1, l = -1; i <= t->nrows; i++) {
		const struct table_row *r = &t->rows[i - 1];

		if (r->irq < 0)
			continue;
		if (l >= 0 && r->irq <= t->rows[l].irq) {
			snprintf(why, whylen, "row %ld after row %ld",
				 r->irq, t->rows[l].irq);
			return 0;
		}
		l = i - 1;
	}
	for (i = 0; prev && i < t->nrows; i++) {
		const struct table_row *r = &t->rows[i], *p = NULL;

		if (r->irq >= 0 || r->ncols != t->ncpus)
			continue;
		for (j = 0; j < prev->nrows && !p; j++)
			if (!strcmp(prev->rows[j].label, r->label) &&
			    prev->rows[j].ncols == prev->ncpus)
				p = &prev->rows[j];
		for (j = 0, k = 0; p && j < t->ncpus; j++) {
			while (k < prev->ncpus && prev->cpu[k] < t->cpu[j])
				k++;
			if (k < prev->ncpus && prev->cpu[k] == t->cpu[j] &&
			    r->v[j] < p->v[k]) {
				snprintf(why, whylen, "%s CPU%d went back from %llu to %llu",
					 r->label, t->cpu[j], p->v[k], r->v[j]);
				return 0;
			}
		}
	}
	return 1;
}

/*
 * A reader: passes over the three files with random read sizes, checking
 * rows against the header in /proc/interrupts and /proc/softirqs, and
 * their values (values_hold()).
 */
static void reader(int id, int out)
{
	struct reader_counts c = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 0 };
	struct table prev[2] = { { 0, NULL, 0, NULL }, { 0, NULL, 0, NULL } };
	int have_prev[2] = { 0, 0 };
	char why[128];
	unsigned int n;

	srand(id + 1);
	signal(SIGTERM, on_term);
	for (n = 0; !stop; n++) {
		unsigned int i = n % 3;
		size_t len, rsize = read_sizes[rand() % NR_READ_SIZES];
		char *text;

		if (rsize < 64)		/* keep passes short, seen often enough */
			rsize = 64;
		text = slurp_sized(files[i], rsize, &len);
		if (!len)
			c.errors++;
		if (i < 2 && len) {
			struct table t = parse_text(text);

			c.passes[i]++;
			/* a CPU id of 32 or more: more than 32 columns */
			c.crossed[i] += t.ncpus && t.cpu[t.ncpus - 1] >= 32;
			if (i == 0 && strstr(text, "churn"))
				c.churn++;
			if (!table_columns(&t, files[i], why, sizeof(why))) {
				if (!c.bad[i])
					printf("# reader %d: %s\n", id, why);
				c.bad[i]++;
			} else if (!values_hold(&t, have_prev[i] ? &prev[i] : NULL,
						why, sizeof(why))) {
				if (!c.values[i])
					printf("# reader %d: %s: %s\n", id, files[i], why);
				c.values[i]++;
			}
			if (have_prev[i])
				free_table(&prev[i]);
			prev[i] = t;
			have_prev[i] = 1;
		}
		free(text);
	}
	if (write(out, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	_exit(0);
}

/*
 * Fork the readers; they start once the trace follows them, so that every
 * seq_file buffer they get is traced.
 */
void readers_start(struct readers *r)
{
	unsigned int i;
	int go[2];
	char c;

	if (pipe(r->fds) || pipe(go))
		die("pipe");
	for (i = 0; i < NR_READERS; i++) {
		r->pids[i] = fork();
		if (r->pids[i] < 0)
			die("fork");
		if (!r->pids[i]) {
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			reader(i, r->fds[1]);
		}
	}
	close(go[0]);
	trace_setup();
	write_file(TRACEFS "buffer_size_kb", READER_TRACE_KB);
	trace_pids(r->pids, NR_READERS);
	trace_on();
	for (i = 0; i < NR_READERS; i++)
		if (write(go[1], "g", 1) != 1)
			die("go");
	close(go[1]);
}

struct reader_counts readers_stop(struct readers *r, int patched,
					 const char *what)
{
	struct reader_counts sum = { { 0, 0 }, { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 0 }, c;
	unsigned int i, j;
	struct allocs a;

	for (i = 0; i < NR_READERS; i++) {
		kill(r->pids[i], SIGTERM);
		if (read(r->fds[0], &c, sizeof(c)) != sizeof(c))
			die("reader result");
		waitpid(r->pids[i], NULL, 0);
		for (j = 0; j < 2; j++) {
			sum.passes[j] += c.passes[j];
			sum.bad[j] += c.bad[j];
			sum.crossed[j] += c.crossed[j];
			sum.values[j] += c.values[j];
		}
		sum.churn += c.churn;
		sum.errors += c.errors;
	}
	close(r->fds[0]);
	close(r->fds[1]);
	a = trace_off();
	trace_setup();	/* this process again */
	result_bounded(patched, what, &a);
	return sum;
}

/*
 * The promise under churn: every pass has as many columns as its header,
 * and its values hold (values_hold()). Asserted on the patched kernel;
 * what stock did is reported: its rows can name other CPUs than its
 * header, also when a CPU went offline and another came online, so that
 * the count of columns agrees and the values do not.
 */
void result_churn_columns(int patched, const char *what,
				 const struct reader_counts *c)
{
	unsigned int i;

	result(c->errors == 0, NULL, "%s: reads failed: %u", what, c->errors);
	for (i = 0; i < 2; i++) {
		if (patched)
			result(c->passes[i] > 0 && !c->bad[i], NULL,
			       "%s columns %s: %u of %u passes disagree, %u with more than 32 columns",
			       what, files[i], c->bad[i], c->passes[i], c->crossed[i]);
		else
			result(c->passes[i] > 0,
			       c->bad[i] ? "stock does not keep columns and header in step" : NULL,
			       "%s columns %s: %u of %u passes disagree, %u with more than 32 columns",
			       what, files[i], c->bad[i], c->passes[i], c->crossed[i]);
		result(c->passes[i] > c->bad[i] && (!c->values[i] || !patched),
		       !patched && c->values[i] ?
		       "stock's rows can name other CPUs than its header" : NULL,
		       "%s values %s: %u of %u passes out of order or going back",
		       what, files[i], c->values[i], c->passes[i] - c->bad[i]);
	}
}
