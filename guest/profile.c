// SPDX-License-Identifier: GPL-2.0
/*
 * profile: where the instructions of a read go. Needs a kernel with the
 * function profiler (config/profile.config): each file is read
 * PROFILE_READS times on CPU 0 with the profiler on and "graph-time" off,
 * so that a function's time is its own, without its callees'. Under
 * -icount shift=0 a guest nanosecond is one instruction, so the times are
 * instruction counts (plus the profiler's own cost at each call, which
 * the total with and without the profiler shows).
 */
#include "proctest.h"
#include <sched.h>

#define PROFILE_READS 20
#define PROFILE_TOP 25
#define STAT_FILE TRACEFS "trace_stat/function0"

struct fn {
	char name[64];
	unsigned long long hits;
	double ns;
};

/* "  name   hits    time us    avg us    s^2 us": the function's own time */
static int parse_stats(struct fn **out)
{
	size_t len;
	char *text = slurp(STAT_FILE, &len), *line, *save;
	struct fn *f = NULL;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct fn x;

		if (sscanf(line, " %63s %llu %lf us", x.name, &x.hits, &x.ns) != 3)
			continue;
		x.ns *= 1000;
		f = realloc(f, (n + 1) * sizeof(*f));
		if (!f)
			die("realloc");
		f[n++] = x;
	}
	free(text);
	*out = f;
	return n;
}

static int by_time(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

static long long timed_reads(const char *path)
{
	long long t0 = now_ns();
	int i;

	for (i = 0; i < PROFILE_READS; i++)
		read_through(path);
	return (now_ns() - t0) / PROFILE_READS;
}

int suite_profile(int patched, const char *kernel)
{
	cpu_set_t cpu0;
	unsigned int i;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		die("sched_setaffinity");
	write_file(TRACEFS "options/graph-time", "0");
	for (i = 0; i < NR_FILES; i++) {
		const char *path = files[i];
		long long plain, profiled;
		double total = 0;
		struct fn *f;
		int n, k;

		read_through(path);	/* warm up */
		plain = timed_reads(path);
		write_file(TRACEFS "function_profile_enabled", "1");
		profiled = timed_reads(path);
		write_file(TRACEFS "function_profile_enabled", "0");
		n = parse_stats(&f);
		qsort(f, n, sizeof(*f), by_time);
		for (k = 0; k < n; k++)
			total += f[k].ns;
		printf("# profile file=%s cpus=%d kernel=%s read_ns=%lld profiled_ns=%lld functions_ns=%.0f reads=%d\n",
		       path, online_cpus(), kernel, plain, profiled,
		       total / PROFILE_READS, PROFILE_READS);
		for (k = 0; k < n && k < PROFILE_TOP; k++)
			printf("# profile file=%s fn=%s ns=%.0f calls=%.1f share=%.3f\n",
			       path, f[k].name, f[k].ns / PROFILE_READS,
			       (double)f[k].hits / PROFILE_READS,
			       total > 0 ? f[k].ns / total : 0);
		result(n > 0 && total > 0, NULL, "profile %s (%d functions)", path, n);
		free(f);
	}
	return 0;
}
