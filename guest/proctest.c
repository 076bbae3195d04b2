// SPDX-License-Identifier: GPL-2.0
/*
 * proctest - guest side of the rig: reads the per-CPU procfs files and
 * reports in KTAP on stdout (line buffered, the serial console).
 *
 *   proctest SUITE[,SUITE...] KERNEL   runs the suites in order:
 *     measure    bytes, largest seq_file (kvmalloc) buffer, vmalloc calls
 *                and read time of each file
 *     check      the bound on seq_file's buffer, header and rows naming
 *                the same number of CPUs, every read size and pread(), the
 *                files' text (each line prefixed, for the host to compare
 *                stock with patched) and the series' KUnit results
 *     read       the three files read whole, with every read size and
 *                pread(), rows as wide as the header (part of check)
 *     hotplug    CPUs go offline and online for 30 s under four readers
 *     irqchurn   the irq_churn module makes interrupts come and go for
 *                30 s under four readers
 *     parsers    mpstat, vmstat, top and irqbalance from Debian, and the
 *                kernel's selftests proc/read and timens/procfs
 *     failslab   reads under failslab and fail_page_alloc injection
 *     kmemleak   no leak reported (the list is cleared before the first
 *                suite)
 *     probe      passes: tells the host that the guest booted
 *     broken     a test that always fails: proves the host notices a
 *                failure and names it
 *     faults     loads rig_fault with the reports named by rig.faults= on
 *                the command line: proves the host finds kernel reports
 *                of any level and names them
 *   proctest normalize [stat] < TEXT   the shape of /proc text (numbers
 *                reduced), as the tests compare it; also built for the host
 *
 * KERNEL is the name the host booted ("stock", "patched", "debug"); the
 * promises of the series are asserted on every kernel but "stock", where
 * a broken promise is reported as SKIP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

#define TRACEFS "/sys/kernel/tracing/"
#define READ_SIZE (128 * 1024)	/* what cat and most parsers use */
#define PAGE_BYTES 4096

static const char *const files[] = {
	"/proc/interrupts", "/proc/softirqs", "/proc/stat",
};
#define NR_FILES (sizeof(files) / sizeof(files[0]))

static int test_nr;
static int nr_pass, nr_fail, nr_skip;
static char readbuf[READ_SIZE];

static void result(int ok, const char *skip, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", ok ? "" : "not ", ++test_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (skip) {
		printf(" # SKIP %s", skip);
		nr_skip++;
	} else if (ok) {
		nr_pass++;
	} else {
		nr_fail++;
	}
	putchar('\n');
}

static int finish(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       nr_pass, nr_fail, nr_skip);
	return nr_fail ? 1 : 0;
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(2);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Read a whole file with reads of @rsize bytes into a malloc'ed buffer;
 * then a read past the end must give 0 and one after lseek() to 0 data,
 * or the length is 0.
 */
static char *slurp_sized(const char *path, size_t rsize, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf)
		die(path);
	for (;;) {
		while (cap - n < rsize + 1) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				die("realloc");
		}
		r = read(fd, buf + n, rsize);
		if (r < 0)
			die(path);
		if (!r)
			break;
		n += r;
	}
	/* past the end, and back to the start */
	if (read(fd, readbuf, 1) != 0 || lseek(fd, 0, SEEK_SET) != 0 ||
	    read(fd, readbuf, 1) != 1)
		n = 0;
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	return slurp_sized(path, READ_SIZE, len);
}

/* One full read, discarding the data: what the timing measures. */
static size_t read_through(const char *path)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		die(path);
	while ((r = read(fd, readbuf, sizeof(readbuf))) > 0)
		n += r;
	if (r < 0)
		die(path);
	close(fd);
	return n;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

/*
 * kprobe events on the two allocators seq_file can reach: every seq_file
 * buffer comes from kvmalloc(), which falls back to vmalloc(). Both are
 * filtered to this process, or to the readers (trace_pids()).
 */
static void trace_pids(const pid_t *pids, unsigned int n);

static void trace_setup(void)
{
	static int done;
	pid_t self = getpid();
	int fd;
	static const char probes[] =
		"p:rig/kvmalloc __kvmalloc_node_noprof size=%di:u64\n"
		"p:rig/vmalloc __vmalloc_node_range_noprof size=%di:u64\n";

	if (!done++) {
		fd = open(TRACEFS "kprobe_events", O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, probes, strlen(probes)) < 0)
			die(TRACEFS "kprobe_events");
		close(fd);
		write_file(TRACEFS "tracing_on", "0");
		write_file(TRACEFS "events/rig/enable", "1");
	}
	trace_pids(&self, 1);
}

/*
 * Trace these processes from now on (this one, or the readers of the
 * churn and injection suites). A filter, not set_event_pid: that turns
 * scheduler tracepoints on and off, and patching their call sites while
 * CPUs go on- and offline crashed a TCG guest (int3 in ttwu_do_wakeup).
 */
static void trace_pids(const pid_t *pids, unsigned int n)
{
	char filter[256] = "";
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += snprintf(filter + len, sizeof(filter) - len, "%scommon_pid == %d",
				i ? " || " : "", pids[i]);
	write_file(TRACEFS "events/rig/filter", filter);
}

struct allocs {
	long long largest;	/* bytes, largest kvmalloc() */
	int kvmallocs;
	int vmallocs;
	long long lost;		/* events overwritten in the full buffer */
};

/* Start tracing the allocations of this process. */
static void trace_on(void)
{
	write_file(TRACEFS "trace", "");
	write_file(TRACEFS "tracing_on", "1");
}

/* Stop tracing and sum up the allocations since trace_on(). */
static struct allocs trace_off(void)
{
	struct allocs a = { 0, 0, 0, 0 };
	char *trace, *line, *save, *h;
	size_t len;

	write_file(TRACEFS "tracing_on", "0");
	trace = slurp(TRACEFS "trace", &len);
	h = strstr(trace, "entries-in-buffer/entries-written: ");
	if (h) {
		long long in, written;

		if (sscanf(h + 35, "%lld/%lld", &in, &written) == 2)
			a.lost = written - in;
	} else {
		a.lost = -1;	/* no header: nothing known */
	}
	for (line = strtok_r(trace, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *size = strstr(line, "size=");
		long long v;

		if (line[0] == '#' || !size)
			continue;
		v = atoll(size + 5);
		if (strstr(line, " kvmalloc:")) {
			a.kvmallocs++;
			if (v > a.largest)
				a.largest = v;
		} else if (strstr(line, " vmalloc:")) {
			a.vmallocs++;
		}
	}
	free(trace);
	return a;
}

/* Trace one full read of @path and sum up its allocations. */
static struct allocs trace_read(const char *path)
{
	trace_on();
	read_through(path);
	return trace_off();
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

#define MAX_SAMPLES 201

/*
 * Median time of a full read: at least 11 reads, more until 0.5 s of
 * guest time is spent (the clock is instruction-driven under -icount).
 */
static void time_reads(const char *path, long long *median, long long *lo,
		       long long *hi, int *reads)
{
	static long long t[MAX_SAMPLES];
	long long start = now_ns();
	int n = 0;

	read_through(path);	/* warm up */
	while (n < MAX_SAMPLES && (n < 11 || now_ns() - start < 500000000LL)) {
		long long t0 = now_ns();

		read_through(path);
		t[n++] = now_ns() - t0;
	}
	qsort(t, n, sizeof(t[0]), cmp_ll);
	*median = t[n / 2];
	*lo = t[0];
	*hi = t[n - 1];
	*reads = n;
}

static int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * The bound the series promises, asserted on the patched kernel. The
 * trace must have seen the reads' kvmalloc() calls and lost none, or the
 * bound proves nothing. From 64 CPUs, stock's buffers pass a page: that
 * is asserted too, so the check is known to tell the two apart.
 */
static void result_bounded(int patched, const char *f, const struct allocs *a)
{
	int seen = a->kvmallocs > 0 && a->lost == 0;

	if (patched)
		result(seen && a->largest <= PAGE_BYTES && a->vmallocs == 0, NULL,
		       "bounded %s largest=%lld vmallocs=%d (traced %d kvmalloc calls, lost %lld)",
		       f, a->largest, a->vmallocs, a->kvmallocs, a->lost);
	else if (online_cpus() >= 64)
		result(seen && a->largest > PAGE_BYTES, NULL,
		       "stock passes a page: %s largest=%lld vmallocs=%d (traced %d kvmalloc calls, lost %lld)",
		       f, a->largest, a->vmallocs, a->kvmallocs, a->lost);
	else
		result(seen, seen ? "stock kernel makes no bound" : NULL,
		       "bounded %s largest=%lld vmallocs=%d (traced %d kvmalloc calls, lost %lld)",
		       f, a->largest, a->vmallocs, a->kvmallocs, a->lost);
}

static void kunit_figures(void);
static void test_fragmented(int patched);

static int suite_measure(int patched)
{
	unsigned int i;

	trace_setup();
	for (i = 0; i < NR_FILES; i++) {
		const char *f = files[i];
		struct allocs a = trace_read(f);
		long long med, lo, hi;
		size_t bytes;
		char *text = slurp(f, &bytes);
		int reads;

		free(text);
		/* timed with the probes off: a probe hit costs as much as a record */
		write_file(TRACEFS "events/rig/enable", "0");
		time_reads(f, &med, &lo, &hi, &reads);
		write_file(TRACEFS "events/rig/enable", "1");
		printf("# measure file=%s cpus=%d bytes=%zu largest_alloc=%lld kvmallocs=%d vmallocs=%d read_ns=%lld min_ns=%lld max_ns=%lld reads=%d\n",
		       f, online_cpus(), bytes, a.largest, a.kvmallocs,
		       a.vmallocs, med, lo, hi, reads);
		/* The trace must have seen seq_file's own buffer. */
		result(bytes > 0 && a.kvmallocs > 0, NULL, "measure %s", f);
		result_bounded(patched, f, &a);
	}
	if (patched)
		kunit_figures();
	return 0;
}

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

/* Count "CPUn" names in a header line. */
static int header_cpus(const char *line)
{
	int n = 0;

	while ((line = strstr(line, "CPU"))) {
		n++;
		line += 3;
	}
	return n;
}

/*
 * Counter columns of a row: the numbers after "name:" up to the first
 * field that is not a number (chip name, description). Rows with a
 * single value (ERR, MIS) are reported as 1.
 */
static int row_columns(const char *line)
{
	const char *p = strchr(line, ':');
	int n = 0;

	if (!p)
		return -1;
	p++;
	for (;;) {
		const char *q;

		while (*p == ' ')
			p++;
		q = p;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q == p || (*q != ' ' && *q != 0))
			break;
		n++;
		p = q;
	}
	return n;
}

/* Every row of one read names as many CPUs as the header. */
static int check_columns(const char *path, char *text, char *why, size_t whylen)
{
	char *line, *save;
	int cpus = -1, nr = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), nr++) {
		int cols;

		if (cpus < 0) {
			cpus = header_cpus(line);
			continue;
		}
		cols = row_columns(line);
		if (cols == cpus)
			continue;
		/* ERR: and MIS: carry one global count */
		if (cols == 1 && (strstr(line, "ERR:") || strstr(line, "MIS:")))
			continue;
		snprintf(why, whylen, "%s line %d has %d columns, header %d",
			 path, nr + 1, cols, cpus);
		return 0;
	}
	return cpus > 0;
}

static void test_columns(void)
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

/*
 * The shape of /proc text, so that two reads compare equal although
 * counters moved: a number right-aligned in a column (two or more spaces
 * before it) becomes <width of spaces and digits>, any other number N.
 * With @padded 0 (/proc/stat has no columns) every number becomes N.
 * "proctest normalize" applies this to stdin for the host as well.
 */
static char *normalize(const char *in, int padded)
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

static int is_padded(const char *path)
{
	return strcmp(path, "/proc/stat") != 0;
}

static const size_t read_sizes[] = {
	1, 3, 64, 1000, 4095, 4096, 65536, 1 << 20,
};
#define NR_READ_SIZES (sizeof(read_sizes) / sizeof(read_sizes[0]))

/*
 * Every read size gives the text of one large read, and so does reading
 * /proc/interrupts and /proc/softirqs (fixed-width columns, so offsets
 * stay put while counters move) with pread() at shuffled offsets.
 */
static void test_read_patterns(void)
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

static int suite_normalize(int padded)
{
	size_t cap = 1 << 16, n = 0;
	char *in = malloc(cap), *out;
	ssize_t r;

	while (in && (r = read(0, in + n, cap - n - 1)) > 0) {
		n += r;
		if (cap - n < 2)
			in = realloc(in, cap *= 2);
	}
	if (!in)
		die("stdin");
	in[n] = 0;
	out = normalize(in, padded);
	fputs(out, stdout);
	return 0;
}

#define KUNIT_DEBUGFS "/sys/kernel/debug/kunit/"

/* The series' KUnit suites; the patched kernels run them at boot. */
static const char *const kunit_suites[] = {
	"seq_cpu_table", "irq_proc", "proc_softirqs", "proc_stat"
};

/*
 * The figures the KUnit suite gives for each synthetic table, as
 * "# kunit" lines for the host's CSV: the bound at 8192 CPUs.
 */
static void kunit_figures(void)
{
	FILE *f = fopen(KUNIT_DEBUGFS "seq_cpu_table/results", "r");
	char line[256], name[128];
	unsigned long long bytes, largest, longest;
	unsigned int records, cpus;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " # %127[^:]: %llu bytes in %u records, largest record %llu bytes, longest row %llu bytes, %u CPUs",
			   name, &bytes, &records, &largest, &longest, &cpus) == 6)
			printf("# kunit case=%s cpus=%u records=%u largest_record=%llu longest_row=%llu bytes=%llu\n",
			       name, cpus, records, largest, longest, bytes);
	fclose(f);
}

/*
 * A KUnit suite that ran at boot (patched kernels only): its cases become
 * tests of ours, a skipped case a skip. Returns how many it reported.
 */
static int test_kunit_suite(const char *suite)
{
	char path[128], line[512], name[128];
	int n = 0, nr;
	FILE *f;

	snprintf(path, sizeof(path), KUNIT_DEBUGFS "%s/results", suite);
	f = fopen(path, "r");
	if (!f) {
		printf("# %s: %s\n", path, strerror(errno));
		result(0, NULL, "kunit %s", suite);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *skip;
		int ok = !strncmp(p, "ok ", 3);

		if (line[0] == ' ' && (ok || !strncmp(p, "not ok ", 7)) &&
		    sscanf(p + (ok ? 3 : 7), "%d %127s", &nr, name) == 2) {
			skip = strstr(p, "# SKIP ");
			if (skip)
				skip[strcspn(skip, "\n")] = 0;
			result(ok, skip ? skip + 7 : NULL, "kunit %s.%s", suite, name);
			n++;
		} else if (!strncmp(line, "    # ", 6) || !strncmp(line, "        ", 8)) {
			/* diagnostics: sizes shown, and why a case failed */
			printf("# %s", line + strspn(line, " #"));
		}
	}
	fclose(f);
	if (!n)
		result(0, NULL, "kunit %s reported no case", suite);
	return n ? n : 1;
}

static void test_kunit(int patched)
{
	unsigned int i;

	for (i = 0; i < sizeof(kunit_suites) / sizeof(kunit_suites[0]); i++) {
		if (patched)
			test_kunit_suite(kunit_suites[i]);
		else
			result(1, "stock kernel has no such suite", "kunit %s",
			       kunit_suites[i]);
	}
}

/* What make check asks of every boot: bounds, columns, the text, KUnit. */
/*
 * Values, not just shapes. A table of /proc/interrupts or /proc/softirqs:
 * the CPU ids of the header, and for each row its label, its number (or
 * -1) and its counts.
 */
struct table_row {
	char label[24];
	long irq;		/* the row's interrupt number, or -1 */
	int ncols;
	unsigned long long *v;
};

struct table {
	int ncpus;
	int *cpu;		/* CPU id of each column */
	int nrows;
	struct table_row *rows;
};

static struct table parse_table(const char *path)
{
	struct table t = { 0, NULL, 0, NULL };
	size_t len;
	char *text = slurp(path, &len), *line, *save, *p;

	line = strtok_r(text, "\n", &save);
	for (p = line; p && (p = strstr(p, "CPU")); p += 3) {
		t.cpu = realloc(t.cpu, (t.ncpus + 1) * sizeof(int));
		t.cpu[t.ncpus++] = atoi(p + 3);
	}
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct table_row *r;
		char *colon = strchr(line, ':'), *q;

		if (!colon)
			continue;
		t.rows = realloc(t.rows, (t.nrows + 1) * sizeof(*t.rows));
		r = &t.rows[t.nrows++];
		*colon = 0;
		for (q = line; *q == ' '; q++)
			;
		snprintf(r->label, sizeof(r->label), "%s", q);
		r->irq = (*q >= '0' && *q <= '9') ? strtol(q, NULL, 10) : -1;
		r->v = calloc(t.ncpus + 1, sizeof(*r->v));
		r->ncols = 0;
		for (p = colon + 1; r->ncols < t.ncpus; ) {
			char *end;

			while (*p == ' ')
				p++;
			if (*p < '0' || *p > '9')
				break;
			r->v[r->ncols++] = strtoull(p, &end, 10);
			p = end;
			if (*p != ' ' && *p)
				break;
		}
	}
	free(text);
	return t;
}

static void free_table(struct table *t)
{
	int i;

	for (i = 0; i < t->nrows; i++)
		free(t->rows[i].v);
	free(t->rows);
	free(t->cpu);
}

/* The CPU ids of a list like /sys/devices/system/cpu/online ("0-3,5"). */
static int *cpu_list(const char *path, int *n)
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

static void test_values(void)
{
	test_header_cpus("/proc/interrupts", "/sys/devices/system/cpu/online");
	test_header_cpus("/proc/softirqs", "/sys/devices/system/cpu/possible");
	test_stat_cpus();
	test_row_order("/proc/interrupts");
	test_row_order("/proc/softirqs");
	test_irq_counts();
	test_sums();
}

static int suite_check(int patched)
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

#define NR_READERS 4

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* What the readers saw: passes over a file, and passes that were wrong. */
struct reader_counts {
	unsigned int passes[2];	/* /proc/interrupts, /proc/softirqs */
	unsigned int bad[2];	/* rows disagreeing with their header */
	unsigned int crossed[2];	/* passes with rows of several records */
	unsigned int churn;	/* /proc/interrupts passes with a churn row */
	unsigned int errors;	/* reads that failed (any file) */
};

/*
 * Whether the header names a CPU of id 32 or more: the patched kernel
 * then shows each row in several records of 32 CPU ids.
 */
static int header_crosses_chunk(const char *text)
{
	const char *end = strchrnul(text, '\n'), *p = text;
	int max = -1;

	while ((p = strstr(p, "CPU")) && p < end) {
		p += 3;
		max = atoi(p);
	}
	return max >= 32;
}

/*
 * A reader: passes over the three files with random read sizes, checking
 * rows against the header in /proc/interrupts and /proc/softirqs.
 */
static void reader(int id, int out)
{
	struct reader_counts c = { { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 0 };
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
			c.passes[i]++;
			c.crossed[i] += header_crosses_chunk(text);
			if (i == 0 && strstr(text, "churn"))
				c.churn++;
			if (!check_columns(files[i], text, why, sizeof(why))) {
				if (!c.bad[i])
					printf("# reader %d: %s\n", id, why);
				c.bad[i]++;
			}
		}
		free(text);
	}
	if (write(out, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	_exit(0);
}

struct readers {
	pid_t pids[NR_READERS];
	int fds[2];
};

#define READER_TRACE_KB "4096"	/* per CPU: no event lost in 30 s */

/*
 * Fork the readers; they start once the trace follows them, so that every
 * seq_file buffer they get is traced.
 */
static void readers_start(struct readers *r)
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

static struct reader_counts readers_stop(struct readers *r, int patched,
					 const char *what)
{
	struct reader_counts sum = { { 0, 0 }, { 0, 0 }, { 0, 0 }, 0, 0 }, c;
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
 * The promise under churn: every pass has as many columns as its header.
 * Asserted on the patched kernel; what stock did is reported.
 */
static void result_churn_columns(int patched, const char *what,
				 const struct reader_counts *c)
{
	unsigned int i;

	result(c->errors == 0, NULL, "%s: reads failed: %u", what, c->errors);
	for (i = 0; i < 2; i++) {
		if (patched)
			result(c->passes[i] > 0 && !c->bad[i], NULL,
			       "%s columns %s: %u of %u passes disagree, %u with rows of several records",
			       what, files[i], c->bad[i], c->passes[i], c->crossed[i]);
		else
			result(c->passes[i] > 0,
			       c->bad[i] ? "stock does not keep columns and header in step" : NULL,
			       "%s columns %s: %u of %u passes disagree, %u with rows of several records",
			       what, files[i], c->bad[i], c->passes[i], c->crossed[i]);
	}
}

static int set_online(int cpu, int on)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 0;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok;
}

#define CHURN_SECS 30

static int any_cpu(int cpu)
{
	return cpu >= 0;
}

static int even_cpu(int cpu)
{
	return cpu % 2 == 0;
}

static int cpu_below_33(int cpu)
{
	return cpu <= 32;
}

static const struct hotplug_phase {
	const char *name;
	int (*allowed)(int cpu);	/* may be online in this phase */
} hotplug_phases[] = {
	{ "any CPU", any_cpu },
	{ "odd CPUs offline", even_cpu },
	{ "CPUs above 32 offline", cpu_below_33 },
};
#define NR_PHASES (sizeof(hotplug_phases) / sizeof(hotplug_phases[0]))

/*
 * CPU hotplug churn under the readers, in phases of CHURN_SECS / 3: CPUs
 * the phase does not allow are offline (sparse masks, rows with a gap or
 * ending in the second record), and random allowed CPUs go offline and
 * online again.
 */
static int suite_hotplug(int patched)
{
	int ncpus = online_cpus(), toggles = 0, refused = 0, idle = 0, i;
	struct reader_counts c;
	struct readers r;
	unsigned int k;

	if (ncpus < 2)
		die("hotplug needs 2 CPUs");
	readers_start(&r);
	srand(42);
	for (k = 0; k < NR_PHASES; k++) {
		const struct hotplug_phase *ph = &hotplug_phases[k];
		int before = toggles;
		long long end;

		for (i = 1; i < ncpus; i++)
			set_online(i, ph->allowed(i));
		printf("# hotplug phase %s: %d CPUs online\n", ph->name, online_cpus());
		end = now_ns() + CHURN_SECS * 1000000000LL / NR_PHASES;
		while (now_ns() < end) {
			int cpu = 1 + rand() % (ncpus - 1);

			if (!ph->allowed(cpu))
				continue;
			if (set_online(cpu, 0))
				toggles++;
			else
				refused++;
			do
				cpu = 1 + rand() % (ncpus - 1);
			while (!ph->allowed(cpu));
			set_online(cpu, 1);
		}
		printf("# hotplug phase %s: %d CPUs taken offline\n", ph->name,
		       toggles - before);
		idle += toggles == before;
	}
	for (i = 1; i < ncpus; i++)
		set_online(i, 1);
	c = readers_stop(&r, patched, "readers under hotplug");
	printf("# hotplug: %d CPUs taken offline in %d s (%d refused), all back online: %d\n",
	       toggles, CHURN_SECS, refused, online_cpus());
	result(!idle && online_cpus() == ncpus, NULL,
	       "hotplug churn ran in every phase");
	result_churn_columns(patched, "hotplug", &c);
	return 0;
}

/* Run a command, its output in a malloc'ed string; returns exit status. */
static int run_capture(const char *cmd, char **out)
{
	size_t cap = 1 << 16, n = 0, r;
	FILE *p = popen(cmd, "r");
	char *buf = malloc(cap);
	int status;

	if (!p || !buf)
		die(cmd);
	while ((r = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += r;
		if (cap - n < 2) {
			buf = realloc(buf, cap *= 2);
			if (!buf)
				die("realloc");
		}
	}
	buf[n] = 0;
	status = pclose(p);
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_quiet(const char *cmd)
{
	char *out;
	int rc = run_capture(cmd, &out);

	if (rc)
		printf("# %s: exit %d: %.200s\n", cmd, rc, out);
	free(out);
	return rc;
}

static unsigned long read_ulong(const char *path)
{
	size_t len;
	char *s = slurp_sized(path, 64, &len);
	unsigned long v = strtoul(s, NULL, 10);

	free(s);
	return v;
}

#define IRQ_CHURN_ROUNDS "/sys/module/irq_churn/parameters/rounds"

/*
 * Interrupt churn: the irq_churn module (built for this kernel) allocates
 * and frees descriptors and handlers under the readers.
 */
/*
 * Load irq_churn, let it churn for @secs, unload it: the rounds it made,
 * or 0 if it did not load or unload.
 */
static unsigned long irq_churn_for(const char *kernel, int secs)
{
	unsigned long rounds;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "insmod /lib/modules/irq_churn-%s.ko 2>&1", kernel);
	if (run_quiet(cmd))
		return 0;
	sleep(secs);
	rounds = read_ulong(IRQ_CHURN_ROUNDS);
	return run_quiet("rmmod irq_churn 2>&1") ? 0 : rounds;
}

/*
 * Interrupt churn under the readers, half of the time with all CPUs
 * online and half with every other CPU offline (a sparse mask). The CPUs
 * go offline between two loads of the module, not under its kthread:
 * that made 6.12 warn "Dying CPU not properly vacated!" on stock and
 * patched alike.
 */
static int suite_irqchurn(int patched, const char *kernel)
{
	unsigned long dense, sparse;
	struct reader_counts c;
	struct readers r;
	int i, ncpus = online_cpus();

	readers_start(&r);
	dense = irq_churn_for(kernel, CHURN_SECS / 2);
	for (i = 1; i < ncpus; i += 2)
		set_online(i, 0);
	sparse = irq_churn_for(kernel, CHURN_SECS / 2);
	for (i = 1; i < ncpus; i++)
		set_online(i, 1);
	c = readers_stop(&r, patched, "readers under irqchurn");
	printf("# irqchurn: %lu rounds with %d CPUs, %lu with every other offline, in %d s; %u of %u passes showed a churn row\n",
	       dense, ncpus, sparse, CHURN_SECS, c.churn, c.passes[0]);
	result(dense > 0 && sparse > 0 && c.churn > 0, NULL,
	       "irqchurn module loads, churns under the readers, unloads");
	result_churn_columns(patched, "irqchurn", &c);
	return 0;
}

/* Lines of @text whose field @field (0-based) is a CPU number. */
static int count_cpu_rows(const char *text, int field, int *width)
{
	const char *line = text;
	int rows = 0;

	*width = -1;
	while (*line) {
		const char *end = strchrnul(line, '\n');
		char buf[4096], *tok, *save;
		int i = 0, cpu_row = 0;
		size_t len = end - line < (long)sizeof(buf) - 1 ? (size_t)(end - line) : sizeof(buf) - 1;

		memcpy(buf, line, len);
		buf[len] = 0;
		for (tok = strtok_r(buf, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save), i++)
			if (i == field && strspn(tok, "0123456789") == strlen(tok))
				cpu_row = 1;
		if (cpu_row) {
			rows++;
			if (*width >= 0 && *width != i)
				*width = -2;	/* rows disagree in width */
			else if (*width == -1)
				*width = i;
		}
		line = *end ? end + 1 : end;
	}
	return rows;
}

/* The number after "(" in mpstat's "... (N CPU)" banner. */
static int banner_cpus(const char *text)
{
	const char *p = strstr(text, " CPU)");

	while (p && p > text && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p ? atoi(p) : -1;
}

/* Fields of the first line containing @key. */
static int header_width(const char *text, const char *key)
{
	const char *line = strstr(text, key), *p;
	int n = 0, in = 0;

	if (!line)
		return -1;
	while (line > text && line[-1] != '\n')
		line--;
	for (p = line; *p && *p != '\n'; p++) {
		if (*p != ' ' && *p != '\t' && !in)
			n++;
		in = *p != ' ' && *p != '\t';
	}
	return n;
}

/* mpstat: the banner, one row per CPU, rows as wide as the header. */
static void test_mpstat(const char *args, const char *header_key)
{
	char cmd[128], *out;
	int rc, rows, width, header, ncpus = online_cpus();

	snprintf(cmd, sizeof(cmd), "/usr/bin/mpstat %s 2>&1", args);
	rc = run_capture(cmd, &out);
	rows = count_cpu_rows(out, 1, &width);
	header = header_width(out, header_key);
	if (rc || rows != ncpus || width != header || banner_cpus(out) != ncpus)
		printf("# mpstat %s: exit %d, banner %d CPUs, %d CPU rows of %d fields, header %d fields: %.300s\n",
		       args, rc, banner_cpus(out), rows, width, header, out);
	result(!rc && banner_cpus(out) == ncpus && rows == ncpus && width == header,
	       NULL, "mpstat %s: %d CPUs, %d rows of %d fields", args, ncpus, rows, width);
	free(out);
}

/* The value of "key N" (a /proc/stat line) or "N key" (vmstat -s). */
static unsigned long long stat_value(const char *text, const char *key, int after)
{
	const char *p = strstr(text, key);

	if (!p)
		return 0;
	if (after)
		return strtoull(p + strlen(key), NULL, 10);
	while (p > text && p[-1] == ' ')
		p--;
	while (p > text && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoull(p, NULL, 10);
}

/* Fields of the last line. */
static int last_line_width(const char *text)
{
	const char *end = text + strlen(text), *p;

	while (end > text && end[-1] == '\n')
		end--;
	for (p = end; p > text && p[-1] != '\n'; p--)
		;
	return header_width(p, "");
}

/* vmstat reads /proc/stat: its boot time and counters agree with ours. */
static void test_vmstat(void)
{
	unsigned long long btime, intr0, intr1, v_btime, v_intr;
	size_t len;
	char *out, *stat0, *stat1;
	int rc;

	stat0 = slurp("/proc/stat", &len);
	rc = run_capture("/usr/bin/vmstat -s 2>&1", &out);
	stat1 = slurp("/proc/stat", &len);
	btime = stat_value(stat0, "\nbtime ", 1);
	intr0 = stat_value(stat0, "\nintr ", 1);
	intr1 = stat_value(stat1, "\nintr ", 1);
	v_btime = stat_value(out, " boot time", 0);
	v_intr = stat_value(out, " interrupts", 0);
	result(!rc && btime && v_btime == btime && intr0 <= v_intr && v_intr <= intr1,
	       NULL, "vmstat -s: boot time %llu (stat %llu), interrupts %llu (stat %llu..%llu)",
	       v_btime, btime, v_intr, intr0, intr1);
	free(out);
	rc = run_capture("/usr/bin/vmstat 2>&1", &out);
	result(!rc && header_width(out, " in ") > 0 &&
	       header_width(out, " in ") == last_line_width(out),
	       NULL, "vmstat: exit %d, header %d fields, values %d", rc,
	       header_width(out, " in "), last_line_width(out));
	free(out);
}

/* top -1: a %Cpu line per CPU, from /proc/stat's cpu lines. */
static void test_top(void)
{
	char *out, *p;
	int rc, rows = 0, ncpus = online_cpus();

	rc = run_capture("/usr/bin/top -b -n 1 -1 -w 160 2>&1", &out);
	for (p = out; (p = strstr(p, "%Cpu")); p++)
		rows++;
	if (rc || rows != ncpus)
		printf("# top: %.400s\n", out);
	result(!rc && rows == ncpus, NULL, "top -b -n 1 -1: %d %%Cpu rows, %d CPUs", rows, ncpus);
	free(out);
}

/*
 * irqbalance parses /proc/interrupts: its debug output names every CPU it
 * placed and every interrupt it took into its database. Each numbered row
 * of /proc/interrupts must be among them (it also adds PCI interrupt lines
 * from sysfs that have no handler, hence no row: those are not checked).
 */
static void test_irqbalance(void)
{
	static char seen_cpu[8192], seen_irq[65536];
	char *out, *p, *text;
	int rc, cpus = 0, irqs = 0, rows = 0;
	long missing = -1;
	size_t len;

	/* it may dump its view more than once: count each CPU and IRQ once */
	memset(seen_cpu, 0, sizeof(seen_cpu));
	memset(seen_irq, 0, sizeof(seen_irq));
	rc = run_capture("/usr/sbin/irqbalance --oneshot --debug --foreground 2>&1", &out);
	text = slurp("/proc/interrupts", &len);
	for (p = out; (p = strstr(p, "CPU number ")); p++) {
		int cpu = atoi(p + 11);

		if (cpu >= 0 && cpu < (int)sizeof(seen_cpu) && !seen_cpu[cpu]++)
			cpus++;
	}
	/* "Adding IRQ N to database", or in its dump "Interrupt N node_num" */
	for (p = out; *p; p++) {
		int n = !strncmp(p, "Adding IRQ ", 11) ? 11 :
			!strncmp(p, "Interrupt ", 10) ? 10 : 0;
		int irq;

		if (!n || p[n] < '0' || p[n] > '9')
			continue;
		irq = atoi(p + n);
		if (irq < (int)sizeof(seen_irq) && !seen_irq[irq]++)
			irqs++;
	}
	/* the numbered rows: "   N:" at the start of a line */
	for (p = strchr(text, '\n'); p; p = strchr(p + 1, '\n')) {
		char *q = p + 1, *end;
		long irq;

		while (*q == ' ')
			q++;
		irq = strtol(q, &end, 10);
		if (end == q || *end != ':')
			continue;
		rows++;
		if (irq >= (long)sizeof(seen_irq) || !seen_irq[irq])
			missing = irq;
	}
	if (rc || cpus != online_cpus() || !rows || missing >= 0)
		printf("# irqbalance: %.600s\n", out);
	if (missing >= 0)
		printf("# irqbalance: the row of IRQ %ld is not among its IRQs\n", missing);
	result(!rc && cpus == online_cpus() && rows && missing < 0, NULL,
	       "irqbalance --oneshot: %d CPUs, %d IRQs, %d numbered rows%s",
	       cpus, irqs, rows, missing < 0 ? ", each among its IRQs" : "");
	free(text);
	free(out);
}

/* A kselftest binary: exit status 0, and its output on the console. */
static void test_selftest(const char *name, const char *cmd)
{
	char *out;
	int rc = run_capture(cmd, &out);
	char *line, *save;

	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("# %s: %s\n", name, line);
	result(!rc, NULL, "selftest %s: exit %d", name, rc);
	free(out);
}

/* Programs from Debian and upstream selftests read the files. */
static int suite_parsers(void)
{
	test_mpstat("-P ALL", "%usr");
	test_mpstat("-I CPU -P ALL", "/s");
	test_mpstat("-I SCPU -P ALL", "HI/s");
	test_mpstat("-I SUM -P ALL", "intr/s");
	test_vmstat();
	test_top();
	test_irqbalance();
	test_selftest("proc/read", "/bin/proc-read 2>&1");
	test_selftest("timens/procfs", "/bin/timens-procfs 2>&1");
	return 0;
}

#define DEBUGFS "/sys/kernel/debug/"

static void fault_attr(const char *attr, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DEBUGFS "%s/%s", attr, file);
	write_file(path, val);
}

static void print_first_difference(const char *what, const char *path,
				   const char *a, const char *b)
{
	size_t i = 0, line = 0;

	while (a[i] && a[i] == b[i])
		i++;
	while (i && a[i - 1] != '\n')
		i--;
	line = strchr(a + i, '\n') ? (size_t)(strchr(a + i, '\n') - a - i) : strlen(a + i);
	printf("# %s: %s differs from: %.*s\n", what, path, (int)line, a + i);
	line = strchr(b + i, '\n') ? (size_t)(strchr(b + i, '\n') - b - i) : strlen(b + i);
	printf("# %s: %s now:          %.*s\n", what, path, (int)line, b + i);
}

/* Writes that themselves may meet an injected failure are retried. */
static void make_it_fail(int on)
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

struct fault_counts {
	unsigned int reads;	/* full reads that succeeded */
	unsigned int enomem;	/* open() or read() failed with ENOMEM */
	unsigned int other;	/* failed otherwise */
	unsigned int bad;	/* succeeded, but the text is not whole */
	int other_errno;
	char why[160];		/* the first bad read */
};

#define FAULT_TEXT (4 << 20)
static char *fault_text;	/* allocated and touched before injection */

/*
 * One full read of @path into fault_text in reads of @rsize bytes: the
 * length, or -errno.
 */
static ssize_t fault_read(const char *path, size_t rsize)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	while (n + rsize < FAULT_TEXT && (r = read(fd, fault_text + n, rsize)) > 0)
		n += r;
	if (r < 0)
		r = -errno;
	close(fd);
	fault_text[n] = 0;
	return r < 0 ? r : (ssize_t)n;
}

/*
 * A read that succeeded must be whole: the shape of the text before
 * injection (so a false EOF fails), every row as wide as the header.
 */
static void fault_check(struct fault_counts *c, const char *path, const char *ref,
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

static void fault_text_alloc(void)
{
	if (!fault_text) {
		fault_text = malloc(FAULT_TEXT + 1);
		if (!fault_text)
			die("malloc");
	}
	memset(fault_text, 1, FAULT_TEXT + 1);	/* no page faults under injection */
}

/*
 * The child: once the trace follows it (a byte on @go), full reads with
 * random sizes, injected failures on.
 */
static void fault_reader(int go, int out, char **ref)
{
	struct fault_counts c = { 0 };
	unsigned int n;
	char g;

	if (read(go, &g, 1) != 1)
		_exit(1);
	make_it_fail(1);
	for (n = 0; n < 300; n++) {
		size_t rsize = read_sizes[rand() % NR_READ_SIZES];

		if (rsize > sizeof(readbuf))
			rsize = sizeof(readbuf);
		if (rsize < 64)
			rsize = 64;
		fault_check(&c, files[n % NR_FILES], ref[n % NR_FILES],
			    fault_read(files[n % NR_FILES], rsize));
	}
	make_it_fail(0);
	if (write(out, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	_exit(0);
}

/* The shapes of the three files now. */
static void fault_refs(char **ref)
{
	unsigned int i;
	size_t len;

	for (i = 0; i < NR_FILES; i++) {
		char *t = slurp(files[i], &len);

		ref[i] = normalize(t, is_padded(files[i]));
		free(t);
	}
}

#define FAULT_MIN_ENOMEM 10

/*
 * failslab: a child marked make-it-fail reads the three files while a
 * fifth of its slab allocations fail. At least FAULT_MIN_ENOMEM reads must
 * meet a failure; every read gives ENOMEM or the whole text; once
 * injection stops the text is what it was.
 */
static void test_failslab(int patched)
{
	const char *attr = "failslab";
	struct fault_counts c = { 0 };
	unsigned int i, same = 0;
	struct allocs a;
	int fds[2], go[2], status = -1;
	char *ref[NR_FILES];
	size_t len;
	pid_t pid;

	fault_refs(ref);
	fault_text_alloc();
	fault_attr(attr, "task-filter", "Y");
	fault_attr(attr, "ignore-gfp-wait", "N");
	fault_attr(attr, "verbose", "0");
	fault_attr(attr, "interval", "1");
	fault_attr(attr, "times", "-1");
	fault_attr(attr, "probability", "20");
	if (pipe(fds) || pipe(go))
		die("pipe");
	trace_setup();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		fault_reader(go[0], fds[1], ref);
	trace_pids(&pid, 1);
	trace_on();
	if (write(go[1], "g", 1) != 1)
		die("go");
	waitpid(pid, &status, 0);
	fault_attr(attr, "probability", "0");
	a = trace_off();
	trace_setup();	/* this process again */
	result_bounded(patched, "reads under failslab", &a);
	close(go[0]);
	close(go[1]);
	if (read(fds[0], &c, sizeof(c)) != sizeof(c))
		printf("# %s: reader ended with status %#x and no counts\n", attr, status);
	close(fds[0]);
	close(fds[1]);
	if (c.bad)
		printf("# %s: %u reads not whole, first: %s\n", attr, c.bad, c.why);
	result(WIFEXITED(status) && !WEXITSTATUS(status) && !c.other && !c.bad &&
	       c.reads && c.enomem >= FAULT_MIN_ENOMEM, NULL,
	       "%s: %u whole reads, %u not whole, %u ENOMEM (at least %d), %u other errors (last: %s)",
	       attr, c.reads, c.bad, c.enomem, FAULT_MIN_ENOMEM, c.other,
	       c.other ? strerror(c.other_errno) : "none");

	for (i = 0; i < NR_FILES; i++) {
		char *t = slurp(files[i], &len), *shape = normalize(t, is_padded(files[i]));

		if (!strcmp(shape, ref[i]))
			same++;
		else
			print_first_difference(attr, files[i], ref[i], shape);
		free(shape);
		free(t);
		free(ref[i]);
	}
	result(same == NR_FILES, NULL, "%s: text after injection as before", attr);
}

/*
 * Every allocation of an open() and full read, failed one at a time:
 * /proc/thread-self/fail-nth = n fails the n-th slab or page allocation
 * (failslab and fail_page_alloc, GFP_KERNEL included) of this thread, and
 * reads back 0 if it did. For n = 1, 2, ... until a read meets no failure,
 * each read must give ENOMEM or the whole text.
 */
static void test_fail_nth(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	char *ref[NR_FILES], val[16];
	unsigned int i, a;
	int fd = open("/proc/thread-self/fail-nth", O_RDWR);

	if (fd < 0)
		die("/proc/thread-self/fail-nth");
	fault_refs(ref);
	fault_text_alloc();
	for (a = 0; a < 2; a++) {
		fault_attr(attrs[a], "ignore-gfp-wait", "N");
		fault_attr(attrs[a], "verbose", "0");
	}
	fault_attr("fail_page_alloc", "min-order", "0");
	for (i = 0; i < NR_FILES; i++) {
		struct fault_counts c = { 0 };
		unsigned int n, injected = 0;
		ssize_t r;

		for (n = 1; n < 100000; n++) {
			snprintf(val, sizeof(val), "%u", n);
			if (pwrite(fd, val, strlen(val), 0) < 0)
				die("fail-nth");
			r = fault_read(files[i], READ_SIZE);
			memset(val, 0, sizeof(val));
			if (pread(fd, val, sizeof(val) - 1, 0) < 0 || pwrite(fd, "0", 1, 0) < 0)
				die("fail-nth");
			fault_check(&c, files[i], ref[i], r);
			if (atoi(val))
				break;	/* no n-th allocation: all were failed */
			injected++;
		}
		if (c.bad)
			printf("# fail-nth: %u reads not whole, first: %s\n", c.bad, c.why);
		/* the last read met no failure */
		result(injected > 0 && !c.bad && !c.other && c.reads > 0, NULL,
		       "fail-nth %s: %u allocations failed one at a time: %u ENOMEM, %u read whole anyway, %u not whole, %u other errors",
		       files[i], injected, c.enomem, c.reads - c.bad - !c.bad, c.bad, c.other);
		free(ref[i]);
	}
	close(fd);
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
	const char *attr = "fail_page_alloc";
	char *ref[NR_FILES];
	unsigned int i;

	fault_refs(ref);
	fault_text_alloc();
	fault_attr(attr, "task-filter", "Y");
	fault_attr(attr, "ignore-gfp-wait", "N");
	fault_attr(attr, "min-order", "1");
	fault_attr(attr, "verbose", "0");
	fault_attr(attr, "interval", "1");
	fault_attr(attr, "times", "-1");
	fault_attr(attr, "probability", "100");
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
			       (a.largest <= 8192 || a.vmallocs > 0),
			       a.largest <= 8192 && !a.vmallocs ? "buffer within kmalloc's caches" : NULL,
			       "fragmented %s: stock falls back to vmalloc: %d calls, largest kvmalloc %lld",
			       files[i], a.vmallocs, a.largest);
		free(ref[i]);
	}
	fault_attr(attr, "probability", "0");
	fault_attr(attr, "min-order", "0");
}

static int suite_failslab(int patched)
{
	test_failslab(patched);
	test_fail_nth();
	return 0;
}

#define KMEMLEAK DEBUGFS "kmemleak"

/*
 * kmemleak: main() cleared the list before the first suite; two scans
 * (an object must stay unreferenced for a while) and nothing reported.
 */
static int suite_kmemleak(void)
{
	size_t len;
	char *report, *p;
	int leaks = 0;

	write_file(KMEMLEAK, "scan");
	sleep(6);
	write_file(KMEMLEAK, "scan");
	report = slurp(KMEMLEAK, &len);
	for (p = report; (p = strstr(p, "unreferenced object")); p++)
		leaks++;
	if (leaks)
		printf("# kmemleak: %.1500s\n", report);
	result(leaks == 0, NULL, "kmemleak: %d unreferenced objects", leaks);
	free(report);
	return 0;
}

/*
 * faults: load rig_fault with report= the list given as rig.faults= on
 * the kernel command line, so that the kernel reports what the host must
 * catch; with "leak", let kmemleak scan. The guest's own test passes: the
 * host's verdict must fail the boot and name each report.
 */
static int suite_faults(const char *kernel)
{
	char cmd[256], *cmdline, *list;
	size_t len;

	cmdline = slurp("/proc/cmdline", &len);
	list = strstr(cmdline, "rig.faults=");
	if (!list) {
		result(0, NULL, "faults: no rig.faults= on the command line");
		free(cmdline);
		return 0;
	}
	list += strlen("rig.faults=");
	list[strcspn(list, " \n")] = '\0';
	snprintf(cmd, sizeof(cmd), "insmod /lib/modules/rig_fault-%s.ko report=%s 2>&1",
		 kernel, list);
	result(run_quiet(cmd) == 0, NULL, "faults: rig_fault loaded, report=%s", list);
	if (strstr(list, "leak")) {
		sleep(6);	/* kmemleak reports objects older than 5 s */
		write_file(KMEMLEAK, "scan");
		write_file(KMEMLEAK, "scan");
	}
	free(cmdline);
	return 0;
}

static int suite_broken(void)
{
	result(1, NULL, "control-passes");
	result(0, NULL, "deliberately-broken");
	return 0;
}

/*
 * proctest SUITE[,SUITE...] KERNEL: the suites run in order, one KTAP
 * report; the plan comes last (KTAP allows it), since the number of
 * KUnit subtests is only known when they are read.
 */
int main(int argc, char **argv)
{
	char *list = strdup(argc > 1 ? argv[1] : "measure"), *suite, *save;
	const char *kernel = argc > 2 ? argv[2] : "unknown";
	int patched = strcmp(kernel, "stock") != 0;

	if (!strcmp(list, "normalize"))
		return suite_normalize(argc < 3 || strcmp(argv[2], "stat"));
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n");
	if (strstr(list, "kmemleak"))
		write_file(KMEMLEAK, "clear");
	for (suite = strtok_r(list, ",", &save); suite; suite = strtok_r(NULL, ",", &save)) {
		printf("# suite %s\n", suite);
		if (!strcmp(suite, "measure"))
			suite_measure(patched);
		else if (!strcmp(suite, "check"))
			suite_check(patched);
		else if (!strcmp(suite, "read")) {
			test_columns();
			test_read_patterns();
		}
		else if (!strcmp(suite, "probe"))
			result(1, NULL, "probe");
		else if (!strcmp(suite, "hotplug"))
			suite_hotplug(patched);
		else if (!strcmp(suite, "irqchurn"))
			suite_irqchurn(patched, kernel);
		else if (!strcmp(suite, "parsers"))
			suite_parsers();
		else if (!strcmp(suite, "failslab"))
			suite_failslab(patched);
		else if (!strcmp(suite, "kmemleak"))
			suite_kmemleak();
		else if (!strcmp(suite, "faults"))
			suite_faults(kernel);
		else if (!strcmp(suite, "broken"))
			suite_broken();
		else
			result(0, NULL, "unknown suite %s", suite);
	}
	printf("1..%d\n", test_nr);
	return finish();
}
