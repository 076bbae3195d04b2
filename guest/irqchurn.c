// SPDX-License-Identifier: GPL-2.0
/*
 * irqchurn: the irq_churn module makes interrupts come and go under the
 * readers, half of the time with every other CPU offline.
 */
#include "proctest.h"

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
int suite_irqchurn(int patched, const char *kernel)
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
