// SPDX-License-Identifier: GPL-2.0
/*
 * proctest - guest side of the rig: reads the per-CPU procfs files and
 * reports in KTAP on stdout (line buffered, the serial console).
 *
 *   proctest SUITE[,SUITE...] KERNEL   runs the suites in order, each in
 *                                      the file of its name:
 *     measure    bytes, largest seq_file (kvmalloc) buffer, vmalloc calls
 *                and read time of each file
 *     check      the bound on seq_file's buffer (and stock past it from 64
 *                CPUs), header and rows naming the same CPUs, every read
 *                size and pread(), one read() of the whole file, values
 *                against sysfs and each other, fragmented memory, the
 *                files' text (each line prefixed, for the host to compare
 *                stock with patched) and the series' KUnit results
 *     read       the three files read whole, with every read size and
 *                pread(), rows as wide as the header (part of check)
 *     hotplug    CPUs go offline and online for 30 s under four readers
 *     irqchurn   the irq_churn module makes interrupts come and go for
 *                30 s under four readers
 *     parsers    mpstat, vmstat, top and irqbalance from Debian, and the
 *                kernel's selftests proc/read and timens/procfs
 *     failslab   reads under failslab, and every allocation of a read
 *                failed one at a time (fail-nth)
 *     kmemleak   no leak reported (the list is cleared before the first
 *                suite)
 *     faults     loads rig_fault with the reports named by rig.faults= on
 *                the command line: proves the host finds kernel reports
 *                of any level and names them
 *     busy       the cost of a zero and of a non-zero column of
 *                /proc/interrupts (irq_busy module), as measure times
 *     profile    each function's own instructions in reads of each file
 *                (a kernel with the function profiler: make profile)
 *     probe      passes: tells the host that the guest booted
 *     broken     a test that always fails: proves the host notices a
 *                failure and names it
 *   proctest normalize [stat] < TEXT   the shape of /proc text (numbers
 *                reduced), as the tests compare it; also built for the host
 *
 * KERNEL is the name the host booted ("stock", "patched", "debug"); the
 * promises of the series are asserted on every kernel but "stock", where
 * a broken promise is reported as SKIP.
 */
#include "proctest.h"

static int suite_probe(int patched, const char *kernel)
{
	result(1, NULL, "probe");
	return 0;
}

static int suite_broken(int patched, const char *kernel)
{
	result(1, NULL, "control-passes");
	result(0, NULL, "deliberately-broken");
	return 0;
}

static const struct {
	const char *name;
	int (*run)(int patched, const char *kernel);
} suites[] = {
	{ "measure", suite_measure },
	{ "check", suite_check },
	{ "read", suite_read },
	{ "hotplug", suite_hotplug },
	{ "irqchurn", suite_irqchurn },
	{ "parsers", suite_parsers },
	{ "failslab", suite_failslab },
	{ "kmemleak", suite_kmemleak },
	{ "faults", suite_faults },
	{ "profile", suite_profile },
	{ "busy", suite_busy },
	{ "probe", suite_probe },
	{ "broken", suite_broken },
};

/* The shape of the text on stdin, for the host's comparison. */
static int normalize_stdin(int padded)
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

int main(int argc, char **argv)
{
	char *list = strdup(argc > 1 ? argv[1] : "measure"), *name, *save;
	const char *kernel = argc > 2 ? argv[2] : "unknown";
	int patched = strcmp(kernel, "stock") != 0;
	unsigned int i;

	if (!strcmp(list, "normalize"))
		return normalize_stdin(argc < 3 || strcmp(argv[2], "stat"));
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n");
	if (strstr(list, "kmemleak"))
		write_file(KMEMLEAK, "clear");
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		printf("# suite %s\n", name);
		for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
			if (!strcmp(name, suites[i].name))
				break;
		if (i < sizeof(suites) / sizeof(suites[0]))
			suites[i].run(patched, kernel);
		else
			result(0, NULL, "unknown suite %s", name);
	}
	return finish();
}
