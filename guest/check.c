// SPDX-License-Identifier: GPL-2.0
/*
 * check: what make check asks of every boot: the bound, columns, every
 * read size and pread(), one read() of the whole file, the values, the text
 * for the host to compare, fragmented memory and the KUnit results.
 * read: the columns and read patterns alone.
 */
#include "proctest.h"

static void test_fragmented(int patched);

static void test_dump(void)
{
	unsigned int i;

	for (i = 0; i < NR_FILES; i++) {
		size_t len;
		char *text = slurp(files[i], &len), *line, *save;
		int lines = 0;

		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save), lines++)
			printf("=%s=%s\n", files[i] + 6, line);
		free(text);
		result(lines > 0, NULL, "dump %s lines=%d", files[i], lines);
	}
}

void test_columns(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		char why[128] = "no header";
		int pass, ok = 1;

		for (pass = 0; pass < 20 && ok; pass++) {
			size_t len;
			char *text = slurp(files[i], &len);

			ok = check_columns(files[i], text, why, sizeof(why));
			free(text);
		}
		if (!ok)
			printf("# %s\n", why);
		result(ok, NULL, "columns %s", files[i]);
	}
}

/* Past the end a read() gives 0; after lseek() to 0, the text again. */
static void test_eof_lseek(const char *f)
{
	int fd = open(f, O_RDONLY), ok;
	ssize_t r;

	if (fd < 0)
		die(f);
	while ((r = read(fd, readbuf, sizeof(readbuf))) > 0)
		;
	ok = r == 0 && read(fd, readbuf, 1) == 0 &&
	     lseek(fd, 0, SEEK_SET) == 0 && read(fd, readbuf, 1) == 1;
	close(fd);
	result(ok, NULL, "past EOF, then lseek 0 %s", f);
}

/*
 * Every read size gives the text of one large read, and so does reading
 * /proc/interrupts and /proc/softirqs (fixed-width columns, so offsets
 * stay put while counters move) with pread() at shuffled offsets.
 */
void test_read_patterns(void)
{
	unsigned int i, j;

	for (i = 0; i < NR_FILES; i++) {
		const char *f = files[i];
		size_t len;
		char *text = slurp(f, &len);
		char *ref = normalize(text, is_padded(f));
		int ok = 1;

		free(text);
		for (j = 0; j < NR_READ_SIZES; j++) {
			char *t = slurp_sized(f, read_sizes[j], &len);
			char *shape = normalize(t, is_padded(f));

			if (strcmp(shape, ref)) {
				printf("# %s: read size %zu differs\n", f, read_sizes[j]);
				ok = 0;
			}
			free(shape);
			free(t);
		}
		result(ok, NULL, "read sizes %s", f);
		test_eof_lseek(f);

		if (is_padded(f)) {
			enum { PIECE = 333 };
			int fd = open(f, O_RDONLY), pieces;
			char *t = slurp(f, &len), *shape;
			int *order;

			pieces = len / PIECE + 2;	/* one past the end */
			order = malloc(pieces * sizeof(*order));
			if (fd < 0 || !order)
				die(f);
			for (j = 0; j < (unsigned int)pieces; j++)
				order[j] = j;
			for (j = pieces - 1; j > 0; j--) {
				int k = rand() % (j + 1), x = order[j];

				order[j] = order[k];
				order[k] = x;
			}
			memset(t, 0, len + 1);
			ok = 1;
			for (j = 0; j < (unsigned int)pieces; j++) {
				size_t off = (size_t)order[j] * PIECE;
				ssize_t r = pread(fd, readbuf, PIECE, off);
				size_t want = off >= len ? 0 : len - off < PIECE ? len - off : PIECE;

				if (r != (ssize_t)want) {
					printf("# %s: pread at %zu gave %zd, not %zu\n", f, off, r, want);
					ok = 0;
				} else {
					memcpy(t + off, readbuf, r);
				}
			}
			close(fd);
			shape = normalize(t, 1);
			if (ok && strcmp(shape, ref)) {
				printf("# %s: text from shuffled pread() differs\n", f);
				ok = 0;
			}
			result(ok, NULL, "pread shuffled %s", f);
			free(shape);
			free(order);
			free(t);
		}
		free(ref);
	}
}

/*
 * One read() with a buffer larger than the file returns all of it: the
 * next read() gives EOF. Single-read parsers (collectd reads /proc/stat
 * with one read() of 64 KiB) rely on this for /proc/stat and
 * /proc/softirqs, which stock shows as one record; stock's
 * /proc/interrupts returns one seq_file buffer of rows per read().
 */
static void test_single_read(int patched)
{
	unsigned int i;

	for (i = 0; i < NR_FILES; i++) {
		const char *f = files[i];
		size_t len, size;
		char *text = slurp(f, &len), *buf;
		const char *skip;
		ssize_t r, rest;
		int fd = open(f, O_RDONLY);

		size = 2 * len + 65536;
		buf = malloc(size);
		if (fd < 0 || !buf)
			die(f);
		r = read(fd, buf, size);
		rest = read(fd, buf, size);
		close(fd);
		skip = !patched && i == 0 && rest ?
			"stock returns one buffer of rows per read()" : NULL;
		result(r > 0 && (rest == 0 || skip), skip,
		       "one read() %s: %zd of %zu bytes, then %zd", f, r, len, rest);
		free(buf);
		free(text);
	}
}

/* The header names exactly the CPUs of @list, in order. */
static void test_header_cpus(const char *path, const char *list)
{
	struct table t = parse_table(path);
	int n, *ids = cpu_list(list, &n), i, ok = t.ncpus == n;

	for (i = 0; ok && i < n; i++)
		ok = t.cpu[i] == ids[i];
	if (!ok)
		printf("# %s header names %d CPUs (column %d is CPU%d), %s lists %d (CPU%d)\n",
		       path, t.ncpus, i, i && i <= t.ncpus ? t.cpu[i - 1] : -1,
		       list, n, i && i <= n ? ids[i - 1] : -1);
	result(ok, NULL, "values: %s header names the CPUs of %s", path, list);
	free(ids);
	free_table(&t);
}

/* The cpuN lines of /proc/stat are the online CPUs, in order. */
static void test_stat_cpus(void)
{
	size_t len;
	char *text = slurp("/proc/stat", &len), *line, *save;
	int n, *ids = cpu_list("/sys/devices/system/cpu/online", &n), i = 0, ok = 1;

	for (line = strtok_r(text, "\n", &save); line && ok;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		ok = i < n && atoi(line + 3) == ids[i];
		if (!ok)
			printf("# /proc/stat line %.20s where CPU%d was due\n",
			       line, i < n ? ids[i] : -1);
		i++;
	}
	ok = ok && i == n;
	result(ok, NULL, "values: /proc/stat has a cpuN line for each online CPU, in order (%d)", i);
	free(ids);
	free(text);
}

/* Numbered rows ascending without duplicates; named rows not repeated. */
static void test_row_order(const char *path)
{
	struct table t = parse_table(path);
	int i, j, ok = t.nrows > 0;
	long last = -1;

	for (i = 0; ok && i < t.nrows; i++) {
		if (t.rows[i].irq >= 0) {
			ok = t.rows[i].irq > last;
			last = t.rows[i].irq;
		}
		for (j = 0; ok && j < i; j++)
			ok = strcmp(t.rows[i].label, t.rows[j].label) != 0;
		if (!ok)
			printf("# %s row %d \"%s\" out of order or repeated\n",
			       path, i, t.rows[i].label);
	}
	result(ok, NULL, "values: %s rows in order, none repeated (%d rows)", path, t.nrows);
	free_table(&t);
}

/* /sys/kernel/irq/N/per_cpu_count of every interrupt, by possible CPU. */
struct irq_counts {
	int nr;			/* interrupts: 0 .. nr - 1 */
	unsigned long long **v;	/* v[irq][cpu] or NULL */
};

static struct irq_counts read_irq_counts(int nr, int ncpus)
{
	struct irq_counts c = { nr, calloc(nr, sizeof(unsigned long long *)) };
	char path[64];
	int irq;

	for (irq = 0; irq < nr; irq++) {
		char *s, *p;
		size_t len;
		int cpu, fd;

		snprintf(path, sizeof(path), "/sys/kernel/irq/%d/per_cpu_count", irq);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		close(fd);
		s = slurp_sized(path, 1 << 16, &len);
		c.v[irq] = calloc(ncpus, sizeof(unsigned long long));
		for (p = s, cpu = 0; cpu < ncpus && *p; cpu++) {
			c.v[irq][cpu] = strtoull(p, &p, 10);
			if (*p == ',')
				p++;
		}
		free(s);
	}
	return c;
}

static void free_irq_counts(struct irq_counts *c)
{
	int irq;

	for (irq = 0; irq < c->nr; irq++)
		free(c->v[irq]);
	free(c->v);
}

/*
 * Every count of every numbered /proc/interrupts row lies between the
 * per_cpu_count values of its interrupt read just before and just after,
 * in the column of the CPU the header names. Possible CPUs are 0 .. n - 1.
 */
static void test_irq_counts(void)
{
	int npossible, *possible = cpu_list("/sys/devices/system/cpu/possible", &npossible);
	int nr = 4096, checked = 0, ok = 1, i, j;
	struct irq_counts before = read_irq_counts(nr, npossible), after;
	struct table t = parse_table("/proc/interrupts");

	after = read_irq_counts(nr, npossible);
	for (i = 0; ok && i < t.nrows; i++) {
		struct table_row *r = &t.rows[i];

		if (r->irq < 0 || r->irq >= nr || !before.v[r->irq] || !after.v[r->irq])
			continue;
		for (j = 0; ok && j < r->ncols && j < t.ncpus; j++) {
			int cpu = t.cpu[j];

			ok = cpu < npossible && before.v[r->irq][cpu] <= r->v[j] &&
			     r->v[j] <= after.v[r->irq][cpu];
			if (!ok)
				printf("# IRQ %ld column %d (CPU%d): %llu, per_cpu_count %llu before, %llu after\n",
				       r->irq, j, cpu, r->v[j],
				       cpu < npossible ? before.v[r->irq][cpu] : 0,
				       cpu < npossible ? after.v[r->irq][cpu] : 0);
			checked++;
		}
	}
	result(ok && checked > 0, NULL,
	       "values: /proc/interrupts counts within per_cpu_count before and after (%d counts)",
	       checked);
	free_table(&t);
	free_irq_counts(&before);
	free_irq_counts(&after);
	free(possible);
}

/* The sums of each row of /proc/softirqs, and of all. */
static void softirq_sums(unsigned long long *sums, int *n)
{
	struct table t = parse_table("/proc/softirqs");
	int i, j;

	*n = t.nrows;
	sums[0] = 0;
	for (i = 0; i < t.nrows && i < 15; i++) {
		sums[i + 1] = 0;
		for (j = 0; j < t.rows[i].ncols; j++)
			sums[i + 1] += t.rows[i].v[j];
		sums[0] += sums[i + 1];
	}
	free_table(&t);
}

/* The numbers of a /proc/stat line ("softirq", "intr") after its name. */
static int stat_line(const char *name, unsigned long long **v)
{
	size_t len, nl = strlen(name);
	char *text = slurp("/proc/stat", &len), *line, *save, *p;
	int n = 0;

	*v = NULL;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, name, nl) || line[nl] != ' ')
			continue;
		for (p = line + nl; *p == ' '; ) {
			*v = realloc(*v, (n + 1) * sizeof(**v));
			(*v)[n++] = strtoull(p, &p, 10);
		}
	}
	free(text);
	return n;
}

/*
 * The softirq line of /proc/stat against the row sums of /proc/softirqs
 * read before and after it; the intr line's counts against the row sums
 * of /proc/interrupts read before and after it (when every possible CPU
 * is online, as the intr counts are over all of them).
 */
static void test_sums(void)
{
	unsigned long long lo[16], hi[16], *st, *intr;
	int nlo, nhi, n, i, ok, checked = 0, npossible, nonline;
	struct table tlo, thi;
	int *p = cpu_list("/sys/devices/system/cpu/possible", &npossible);
	int *o = cpu_list("/sys/devices/system/cpu/online", &nonline);

	softirq_sums(lo, &nlo);
	n = stat_line("softirq", &st);
	softirq_sums(hi, &nhi);
	ok = nlo == nhi && n == nlo + 1;
	for (i = 0; ok && i < n; i++)
		ok = lo[i] <= st[i] && st[i] <= hi[i];
	if (!ok)
		printf("# /proc/stat softirq field %d: %llu, /proc/softirqs sums %llu, %llu (%d, %d rows, %d fields)\n",
		       i - 1, i ? st[i - 1] : 0, i ? lo[i - 1] : 0, i ? hi[i - 1] : 0,
		       nlo, nhi, n);
	result(ok, NULL, "values: /proc/stat softirq line within /proc/softirqs row sums (%d fields)", n);
	free(st);

	if (npossible != nonline) {
		result(1, "CPUs offline: intr counts include them", "values: /proc/stat intr counts");
		free(p);
		free(o);
		return;
	}
	tlo = parse_table("/proc/interrupts");
	n = stat_line("intr", &intr);
	thi = parse_table("/proc/interrupts");
	ok = n > 1;
	for (i = 0; ok && i < tlo.nrows; i++) {
		unsigned long long a = 0, b = 0;
		struct table_row *r = &tlo.rows[i], *s;
		int j, k;

		if (r->irq < 0 || r->irq + 1 >= n)
			continue;
		for (k = 0; k < thi.nrows && thi.rows[k].irq != r->irq; k++)
			;
		if (k == thi.nrows)
			continue;	/* freed in between */
		s = &thi.rows[k];
		for (j = 0; j < r->ncols; j++)
			a += r->v[j];
		for (j = 0; j < s->ncols; j++)
			b += s->v[j];
		ok = a <= intr[r->irq + 1] && intr[r->irq + 1] <= b;
		if (!ok)
			printf("# /proc/stat intr IRQ %ld: %llu, /proc/interrupts sums %llu, %llu\n",
			       r->irq, intr[r->irq + 1], a, b);
		checked++;
	}
	result(ok && checked > 0, NULL,
	       "values: /proc/stat intr counts within /proc/interrupts row sums (%d interrupts)",
	       checked);
	free(intr);
	free_table(&tlo);
	free_table(&thi);
	free(p);
	free(o);
}

/*
 * /sys/kernel/irq/N/per_cpu_count: one count per possible CPU and a
 * newline, whole at any read size. Stock (6.12, 7.3) cuts the line at a page
 * (from about 2000 possible CPUs on). Read in 1, 7 and 4096-byte pieces
 * between two whole reads, the pieces must give the whole text when the
 * two whole reads agree (counts only grow, so none moved in between).
 */
static void test_per_cpu_count(void)
{
	static const size_t sizes[] = { 1, 7, 4096 };
	int npossible, *possible = cpu_list("/sys/devices/system/cpu/possible", &npossible);
	int irq, files = 0, bad = 0, compared = 0;
	char path[64];

	for (irq = 0; irq < 4096; irq++) {
		size_t len, plen, alen, i;
		char *whole, *piece, *after, *p;
		int fields = 1;

		snprintf(path, sizeof(path), "/sys/kernel/irq/%d/per_cpu_count", irq);
		if (access(path, R_OK))
			continue;
		files++;
		whole = slurp_sized(path, 1 << 16, &len);
		for (p = whole; *p; p++)
			fields += *p == ',';
		if ((!len || whole[len - 1] != '\n' || fields != npossible) && !bad++)
			printf("# %s: %zu bytes, %d counts for %d possible CPUs, %s\n",
			       path, len, fields, npossible,
			       len && whole[len - 1] == '\n' ? "newline at the end" : "no newline at the end");
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			piece = slurp_sized(path, sizes[i], &plen);
			after = slurp_sized(path, 1 << 16, &alen);
			if (alen == len && !memcmp(after, whole, len)) {
				compared++;
				if ((plen != len || memcmp(piece, whole, len)) && !bad++)
					printf("# %s read in %zu-byte pieces: %zu bytes, whole reads before and after %zu\n",
					       path, sizes[i], plen, len);
			}
			free(whole);
			whole = after;
			len = alen;
			free(piece);
		}
		free(whole);
	}
	free(possible);
	result(files && !bad, NULL,
	       "per_cpu_count: %d files, %d counts each (possible CPUs), with a newline; same text in 1, 7, 4096-byte reads (%d of %d compared, the others' counts moved)",
	       files, npossible, compared, files * 3);
}

static void test_values(void)
{
	test_header_cpus("/proc/interrupts", "/sys/devices/system/cpu/online");
	test_header_cpus("/proc/softirqs", "/sys/devices/system/cpu/possible");
	test_stat_cpus();
	test_row_order("/proc/interrupts");
	test_row_order("/proc/softirqs");
	/* per_cpu_count is a file of CONFIG_SPARSE_IRQ (mips has none) */
	if (access("/sys/kernel/irq", F_OK)) {
		result(1, "no /sys/kernel/irq (kernel without CONFIG_SPARSE_IRQ)",
		       "values: /proc/interrupts counts within per_cpu_count before and after");
		result(1, "no /sys/kernel/irq (kernel without CONFIG_SPARSE_IRQ)",
		       "per_cpu_count: whole at any read size");
	} else {
		test_irq_counts();
		test_per_cpu_count();
	}
	test_sums();
}

/* What make check asks of every boot: bounds, columns, the text, KUnit. */
int suite_read(int patched, const char *kernel)
{
	test_columns();
	test_read_patterns();
	return 0;
}

int suite_check(int patched, const char *kernel)
{
	struct allocs a;
	unsigned int i;

	trace_setup();
	for (i = 0; i < NR_FILES; i++) {
		a = trace_read(files[i]);
		result_bounded(patched, files[i], &a);
	}
	test_columns();
	test_values();
	/* the bound holds for every read size and pread() too */
	trace_on();
	test_read_patterns();
	a = trace_off();
	result_bounded(patched, "every read size and pread", &a);
	trace_on();
	test_single_read(patched);
	a = trace_off();
	result_bounded(patched, "one read() of the whole file", &a);
	test_fragmented(patched);
	test_dump();
	test_kunit(patched);
	return 0;
}

/*
 * A fragmented machine: fail_page_alloc fails every allocation of order
 * 1 and up of this process. kvmalloc() then falls back to vmalloc(), which
 * the tracing counts. The patched kernel makes none and reads whole; on
 * stock, a file whose buffer passes KMALLOC_MAX_CACHE_SIZE (8 KiB, above
 * which kmalloc() asks the page allocator) must be seen falling back.
 */
static void test_fragmented(int patched)
{
	char *ref[NR_FILES];
	unsigned int i;

	fault_refs(ref);
	fault_text_alloc();
	fragment_memory(1);
	for (i = 0; i < NR_FILES; i++) {
		struct fault_counts c = { 0 };
		struct allocs a;
		ssize_t r;

		trace_on();
		make_it_fail(1);
		r = fault_read(files[i], READ_SIZE);
		make_it_fail(0);	/* reading the trace needs a large buffer */
		a = trace_off();
		fault_check(&c, files[i], ref[i], r);
		if (c.bad)
			printf("# fragmented: %s\n", c.why);
		if (patched)
			result(c.reads && !c.bad && a.kvmallocs && a.vmallocs == 0, NULL,
			       "fragmented %s: whole, %d kvmalloc calls, largest %lld, %d vmalloc",
			       files[i], a.kvmallocs, a.largest, a.vmallocs);
		else
			result(c.reads && !c.bad && a.kvmallocs &&
			       (a.largest <= 2 * PAGE_BYTES || a.vmallocs > 0),
			       a.largest <= 2 * PAGE_BYTES && !a.vmallocs ? "buffer within kmalloc's caches" : NULL,
			       "fragmented %s: stock falls back to vmalloc: %d calls, largest kvmalloc %lld",
			       files[i], a.vmallocs, a.largest);
		free(ref[i]);
	}
	fragment_memory(0);
}
