// SPDX-License-Identifier: GPL-2.0
/*
 * proctest - guest side of the rig: reads the per-CPU procfs files and
 * reports in KTAP on stdout (line buffered, the serial console).
 *
 *   proctest measure KERNEL   bytes, largest seq_file (kvmalloc) buffer,
 *                             vmalloc calls and read time of each file
 *   proctest check KERNEL     the bound on seq_file's buffer, header and
 *                             rows naming the same number of CPUs, and the
 *                             files' text, each line prefixed, for the host
 *                             to compare stock with patched
 *   proctest normalize [stat] < TEXT   the shape of /proc text (numbers
 *                             reduced), as the tests compare it; also
 *                             built for the host
 *   proctest hotplug KERNEL   CPUs go offline and online for 30 s while
 *                             four readers check header against rows
 *   proctest probe            passes: tells the host that the guest booted
 *   proctest broken KERNEL    a test that always fails: proves the host
 *                             notices a failure and names it
 *
 * KERNEL is "stock" or "patched"; the bounds the series promises are only
 * asserted for "patched" and reported as SKIP for "stock".
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
 * filtered to this process.
 */
static void trace_setup(void)
{
	char filter[64];
	int fd = open(TRACEFS "kprobe_events", O_WRONLY | O_APPEND);
	static const char probes[] =
		"p:rig/kvmalloc __kvmalloc_node_noprof size=%di:u64\n"
		"p:rig/vmalloc __vmalloc_node_range_noprof size=%di:u64\n";

	if (fd < 0 || write(fd, probes, strlen(probes)) < 0)
		die(TRACEFS "kprobe_events");
	close(fd);
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	write_file(TRACEFS "events/rig/filter", filter);
	write_file(TRACEFS "tracing_on", "0");
	write_file(TRACEFS "events/rig/enable", "1");
}

struct allocs {
	long long largest;	/* bytes, largest kvmalloc() */
	int kvmallocs;
	int vmallocs;
};

/* Trace one full read of @path and sum up its allocations. */
static struct allocs trace_read(const char *path)
{
	struct allocs a = { 0, 0, 0 };
	int on = open(TRACEFS "tracing_on", O_WRONLY);
	char *trace, *line, *save;
	size_t len;

	if (on < 0)
		die(TRACEFS "tracing_on");
	write_file(TRACEFS "trace", "");
	if (write(on, "1", 1) != 1)
		die("tracing_on");
	read_through(path);
	if (write(on, "0", 1) != 1)
		die("tracing_on");
	close(on);

	trace = slurp(TRACEFS "trace", &len);
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

/* The bound the series promises, asserted on the patched kernel only. */
static void result_bounded(int patched, const char *f, const struct allocs *a)
{
	result(!patched || (a->largest <= PAGE_BYTES && a->vmallocs == 0),
	       patched ? NULL : "stock kernel makes no bound",
	       "bounded %s largest=%lld vmallocs=%d", f, a->largest,
	       a->vmallocs);
}

static int suite_measure(int patched)
{
	unsigned int i;

	printf("1..%zu\n", 2 * NR_FILES);
	trace_setup();
	for (i = 0; i < NR_FILES; i++) {
		const char *f = files[i];
		struct allocs a = trace_read(f);
		long long med, lo, hi;
		size_t bytes;
		char *text = slurp(f, &bytes);
		int reads;

		free(text);
		time_reads(f, &med, &lo, &hi, &reads);
		printf("# measure file=%s cpus=%d bytes=%zu largest_alloc=%lld kvmallocs=%d vmallocs=%d read_ns=%lld min_ns=%lld max_ns=%lld reads=%d\n",
		       f, online_cpus(), bytes, a.largest, a.kvmallocs,
		       a.vmallocs, med, lo, hi, reads);
		/* The trace must have seen seq_file's own buffer. */
		result(bytes > 0 && a.kvmallocs > 0, NULL, "measure %s", f);
		result_bounded(patched, f, &a);
	}
	return finish();
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

#define KUNIT_RESULTS "/sys/kernel/debug/kunit/seq_cpu_table/results"

/*
 * The series' KUnit suite ran at boot (patched kernel only): its subtests
 * become tests of ours. Returns how many results it reported.
 */
static int test_kunit(int patched)
{
	FILE *f = fopen(KUNIT_RESULTS, "r");
	char line[256], name[128];
	int n = 0, nr;

	if (!patched) {
		result(1, "stock kernel has no seq_cpu_table suite", "kunit seq_cpu_table");
		return 1;
	}
	if (!f) {
		printf("# %s: %s\n", KUNIT_RESULTS, strerror(errno));
		result(0, NULL, "kunit seq_cpu_table");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");
		int ok = !strncmp(p, "ok ", 3);

		if (line[0] == ' ' && (ok || !strncmp(p, "not ok ", 7)) &&
		    sscanf(p + (ok ? 3 : 7), "%d %127s", &nr, name) == 2) {
			result(ok, NULL, "kunit seq_cpu_table.%s", name);
			n++;
		} else if (!strncmp(line, "    # ", 6) || !strncmp(line, "        ", 8)) {
			/* diagnostics: sizes shown, and why a case failed */
			printf("# %s", line + strspn(line, " #"));
		}
	}
	fclose(f);
	if (!n)
		result(0, NULL, "kunit seq_cpu_table reported no subtest");
	return n ? n : 1;
}

/*
 * What make check asks of every boot: bounds, columns, the text and the
 * KUnit suite. The plan comes last (KTAP allows it), since the number of
 * KUnit subtests is only known when they are read.
 */
static int suite_check(int patched)
{
	unsigned int i;

	trace_setup();
	for (i = 0; i < NR_FILES; i++) {
		struct allocs a = trace_read(files[i]);

		result_bounded(patched, files[i], &a);
	}
	test_columns();
	test_read_patterns();
	test_dump();
	test_kunit(patched);
	printf("1..%d\n", test_nr);
	return finish();
}

#define NR_READERS 4

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * A reader: passes over /proc/interrupts and /proc/softirqs with random
 * read sizes, counting passes whose rows disagree with their header.
 * /proc/stat is read as well, for the churn.
 */
static void reader(int id, int out)
{
	unsigned int passes[2] = { 0, 0 }, bad[2] = { 0, 0 }, n;
	char why[128];

	srand(id + 1);
	signal(SIGTERM, on_term);
	for (n = 0; !stop; n++) {
		unsigned int i = n % 3;
		size_t len, rsize = read_sizes[rand() % NR_READ_SIZES];
		char *text;

		if (rsize < 64)		/* keep passes short, seen often enough */
			rsize = 64;
		text = slurp_sized(files[i], rsize, &len);
		if (i < 2 && len) {
			passes[i]++;
			if (!check_columns(files[i], text, why, sizeof(why))) {
				if (!bad[i])
					printf("# reader %d: %s\n", id, why);
				bad[i]++;
			}
		}
		free(text);
	}
	if (write(out, passes, sizeof(passes)) < 0 || write(out, bad, sizeof(bad)) < 0)
		_exit(1);
	_exit(0);
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

/*
 * CPU hotplug churn: random CPUs go offline and online for @secs seconds
 * while NR_READERS readers loop. On the patched kernel every pass has as
 * many columns as its header; stock makes no such promise, and what it
 * did is reported.
 */
static int suite_hotplug(int patched, int secs)
{
	unsigned int passes[2] = { 0, 0 }, bad[2] = { 0, 0 }, i;
	int ncpus = online_cpus(), toggles = 0, failed = 0, fds[2];
	pid_t pids[NR_READERS];
	long long end;

	printf("1..3\n");
	if (ncpus < 2 || pipe(fds))
		die("hotplug needs 2 CPUs and a pipe");
	for (i = 0; i < NR_READERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (!pids[i])
			reader(i, fds[1]);
	}
	srand(42);
	end = now_ns() + secs * 1000000000LL;
	while (now_ns() < end) {
		int cpu = 1 + rand() % (ncpus - 1);

		if (set_online(cpu, 0))
			toggles++;
		else
			failed++;
		cpu = 1 + rand() % (ncpus - 1);
		set_online(cpu, 1);
	}
	for (i = 1; i < (unsigned int)ncpus; i++)
		set_online(i, 1);
	for (i = 0; i < NR_READERS; i++) {
		unsigned int p[2], b[2];

		kill(pids[i], SIGTERM);
		if (read(fds[0], p, sizeof(p)) != sizeof(p) ||
		    read(fds[0], b, sizeof(b)) != sizeof(b))
			die("reader result");
		waitpid(pids[i], NULL, 0);
		passes[0] += p[0];
		passes[1] += p[1];
		bad[0] += b[0];
		bad[1] += b[1];
	}
	printf("# hotplug: %d CPUs taken offline in %d s (%d refused), all back online: %d\n",
	       toggles, secs, failed, online_cpus());
	result(toggles > 0 && online_cpus() == ncpus, NULL, "hotplug churn ran");
	for (i = 0; i < 2; i++) {
		char what[64];

		snprintf(what, sizeof(what), "%u of %u passes", bad[i], passes[i]);
		if (patched)
			result(passes[i] > 0 && !bad[i], NULL,
			       "hotplug columns %s: %s disagree", files[i], what);
		else
			result(passes[i] > 0, bad[i] ? "stock does not keep columns and header in step" : NULL,
			       "hotplug columns %s: %s disagree", files[i], what);
	}
	return finish();
}

static int suite_broken(void)
{
	printf("1..2\n");
	result(1, NULL, "control-passes");
	result(0, NULL, "deliberately-broken");
	return finish();
}

int main(int argc, char **argv)
{
	const char *suite = argc > 1 ? argv[1] : "measure";
	int patched = argc > 2 && !strcmp(argv[2], "patched");

	if (!strcmp(suite, "normalize"))
		return suite_normalize(argc < 3 || strcmp(argv[2], "stat"));
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n");
	if (!strcmp(suite, "measure"))
		return suite_measure(patched);
	if (!strcmp(suite, "check"))
		return suite_check(patched);
	if (!strcmp(suite, "probe")) {
		printf("1..1\n");
		result(1, NULL, "probe");
		return finish();
	}
	if (!strcmp(suite, "hotplug"))
		return suite_hotplug(patched, 30);
	if (!strcmp(suite, "broken"))
		return suite_broken();
	printf("Bail out! unknown suite %s\n", suite);
	return 2;
}
