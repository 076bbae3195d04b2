// SPDX-License-Identifier: GPL-2.0
/*
 * busy: what a zero and a non-zero column of /proc/interrupts cost. Times
 * full reads (as measure does) without the irq_busy module, with it loaded
 * (BUSY_IRQS rows of zeros) and after it raised each of its interrupts on
 * every online CPU (the same rows without a zero), and prints the
 * difference per column: a zero column and a non-zero one (counts of 1 to
 * 4 digits), each with its share of its row's own text.
 */
#include "proctest.h"

#define BUSY_IRQS 16	/* irq_busy.c */
#define BUSY_FIRE "/sys/module/irq_busy/parameters/fire"

static long long busy_time(void)
{
	long long med, lo, hi;
	int reads;

	time_reads("/proc/interrupts", &med, &lo, &hi, &reads);
	return med;
}

/*
 * The rows of irq_busy's interrupts (action "busy") in /proc/interrupts,
 * and how many of their counts are zero; @first gets the first such row.
 */
static int busy_rows(int *zeros, char *first, size_t len)
{
	size_t n;
	char *text = slurp("/proc/interrupts", &n), *line, *save, *tok, *tsave;
	int rows = 0;

	*zeros = 0;
	first[0] = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);

		if (l < 6 || strcmp(line + l - 6, "  busy"))
			continue;
		if (!rows++)
			snprintf(first, len, "%.100s", line);
		tok = strtok_r(line, " ", &tsave);	/* the number */
		while ((tok = strtok_r(NULL, " ", &tsave)) && tok[0] >= '0' && tok[0] <= '9')
			*zeros += !strcmp(tok, "0");
	}
	free(text);
	return rows;
}

int suite_busy(int patched, const char *kernel)
{
	long long none, zero, busy;
	int cols = BUSY_IRQS * online_cpus(), rows, zeros;
	char cmd[128], first[128];

	trace_events(0);	/* timed without them, if measure set them up */
	none = busy_time();
	snprintf(cmd, sizeof(cmd), "insmod /lib/modules/irq_busy-%s.ko 2>&1", kernel);
	if (run_quiet(cmd)) {
		result(0, NULL, "busy: %s failed", cmd);
		return 0;
	}
	zero = busy_time();
	write_file(BUSY_FIRE, "1");
	rows = busy_rows(&zeros, first, sizeof(first));
	busy = busy_time();
	run_quiet("rmmod irq_busy 2>&1");
	printf("# busy cpus=%d columns=%d none_ns=%lld zero_ns=%lld busy_ns=%lld zero_col_ns=%.1f nonzero_col_ns=%.1f\n",
	       online_cpus(), cols, none, zero, busy,
	       (double)(zero - none) / cols, (double)(busy - none) / cols);
	result(rows == BUSY_IRQS && zeros == 0, NULL,
	       "busy: %d rows of irq_busy, %d zero counts after firing (first: %s)",
	       rows, zeros, first);
	return 0;
}
