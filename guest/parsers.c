// SPDX-License-Identifier: GPL-2.0
/*
 * parsers: mpstat, vmstat, top and irqbalance from Debian, and the
 * kernel's selftests proc/read and timens/procfs, read these files.
 */
#include "proctest.h"

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
int suite_parsers(int patched, const char *kernel)
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
