// SPDX-License-Identifier: GPL-2.0
/*
 * The small library of the guest suites: KTAP results, reading a file,
 * running a command, CPU hotplug.
 */
#include "proctest.h"

const char *const files[NR_FILES] = {
	"/proc/interrupts", "/proc/softirqs", "/proc/stat",
};

const size_t read_sizes[NR_READ_SIZES] = {
	1, 3, 64, 1000, 4095, 4096, 65536, 1 << 20,
};

char readbuf[READ_SIZE];

static int test_nr;
static int nr_pass, nr_fail, nr_skip;

void result(int ok, const char *skip, const char *fmt, ...)
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

/* The plan last (KTAP allows it: KUnit subtests are counted as read). */
int finish(void)
{
	printf("1..%d\n", test_nr);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       nr_pass, nr_fail, nr_skip);
	return nr_fail ? 1 : 0;
}

void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(2);
}

long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The one reader: open @path and read it to EOF in reads of @rsize bytes
 * into @buf, which has room for @cap bytes and a NUL; with @buf NULL the
 * data goes to readbuf and is dropped. Returns the length, or -errno
 * (-EFBIG: it does not fit). Allocates nothing, so it also serves under
 * fault injection.
 */
ssize_t read_file(const char *path, size_t rsize, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (buf ? n + rsize >= cap : rsize > sizeof(readbuf)) {
			r = -EFBIG;
			break;
		}
		r = read(fd, buf ? buf + n : readbuf, rsize);
		if (r < 0)
			r = -errno;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (buf)
		buf[n] = 0;
	return r < 0 ? r : (ssize_t)n;
}

/* The whole file in a malloc'ed string, read in reads of @rsize bytes. */
char *slurp_sized(const char *path, size_t rsize, size_t *len)
{
	size_t cap = rsize < (1 << 15) ? 1 << 16 : 2 * rsize;
	char *buf = NULL;
	ssize_t r;

	do {
		cap *= 2;
		buf = realloc(buf, cap);
		if (!buf)
			die("realloc");
		r = read_file(path, rsize, buf, cap);
	} while (r == -EFBIG);
	if (r < 0) {
		errno = -r;
		die(path);
	}
	*len = r;
	return buf;
}

char *slurp(const char *path, size_t *len)
{
	return slurp_sized(path, READ_SIZE, len);
}

/* One full read, the data dropped: what the timing measures. */
size_t read_through(const char *path)
{
	ssize_t r = read_file(path, READ_SIZE, NULL, 0);

	if (r < 0) {
		errno = -r;
		die(path);
	}
	return r;
}

#define MAX_SAMPLES 201

/*
 * Median time of a full read: at least 11 reads, more until 0.5 s of
 * guest time is spent (the clock is instruction-driven under -icount).
 */
void time_reads(const char *path, long long *median, long long *lo,
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

void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die(path);
	close(fd);
}

int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

int set_online(int cpu, int on)
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

/* Run a command, its output in a malloc'ed string; returns exit status. */
int run_capture(const char *cmd, char **out)
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

int run_quiet(const char *cmd)
{
	char *out;
	int rc = run_capture(cmd, &out);

	if (rc)
		printf("# %s: exit %d: %.200s\n", cmd, rc, out);
	free(out);
	return rc;
}

unsigned long read_ulong(const char *path)
{
	size_t len;
	char *s = slurp_sized(path, 64, &len);
	unsigned long v = strtoul(s, NULL, 10);

	free(s);
	return v;
}

void print_first_difference(const char *what, const char *path,
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
