// SPDX-License-Identifier: GPL-2.0
/*
 * The series' KUnit suites, as the patched kernels ran them at boot
 * (debugfs), and the figures of the 8192-CPU tables.
 */
#include "proctest.h"

#define KUNIT_DEBUGFS "/sys/kernel/debug/kunit/"

/* The series' KUnit suites; the patched kernels run them at boot. */
static const char *const kunit_suites[] = {
	"seq_cpu_table", "irq_proc", "proc_softirqs", "proc_stat"
};

/*
 * The figures the KUnit suite gives for each synthetic table, as
 * "# kunit" lines for the host's CSV: the bound at 8192 CPUs.
 */
void kunit_figures(void)
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

void test_kunit(int patched)
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
