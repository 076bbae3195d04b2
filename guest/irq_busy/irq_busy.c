// SPDX-License-Identifier: GPL-2.0
/*
 * irq_busy - the rig's busy interrupts, loaded only in the guest.
 *
 * At load, allocates BUSY_IRQS interrupt descriptors and requests a
 * handler on each: rows of /proc/interrupts whose counts are all zero.
 * Writing 1 to /sys/module/irq_busy/parameters/fire then raises each of
 * them on every online CPU, from 1 to 9973 times, a different number for
 * every interrupt and CPU: rows without a zero, the worst case for a
 * reader that writes zeros faster than other counts.
 */
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/smp.h>

#define BUSY_IRQS	16

static int base = -1;
static unsigned int requested;

static irqreturn_t busy_handler(int irq, void *dev_id)
{
	return IRQ_HANDLED;
}

static unsigned int busy_times(unsigned int i, unsigned int cpu)
{
	return 1 + (i * 7919 + cpu * 104729) % 9973;
}

static void busy_fire_here(void *unused)
{
	unsigned int cpu = smp_processor_id(), i, k;

	for (i = 0; i < requested; i++)
		for (k = busy_times(i, cpu); k; k--)
			generic_handle_irq_safe(base + i);
}

static int busy_fire(const char *val, const struct kernel_param *kp)
{
	unsigned int cpu;
	bool fire;
	int ret = kstrtobool(val, &fire);

	if (ret || !fire)
		return ret;
	/*
	 * One CPU after the other: a CPU that raises an interrupt while
	 * another one runs its handler does not count it (irq_may_run()).
	 */
	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, busy_fire_here, NULL, 1);
	cpus_read_unlock();
	return 0;
}

static const struct kernel_param_ops busy_fire_ops = {
	.set = busy_fire,
};
module_param_cb(fire, &busy_fire_ops, NULL, 0200);
MODULE_PARM_DESC(fire, "write 1: raise every busy interrupt on every online CPU");

static void busy_free(void)
{
	while (requested)
		free_irq(base + --requested, &base);
	if (base >= 0)
		irq_free_descs(base, BUSY_IRQS);
}

static int __init irq_busy_init(void)
{
	int ret;

	base = __irq_alloc_descs(-1, 1, BUSY_IRQS, NUMA_NO_NODE, NULL, NULL);
	if (base < 0)
		return base;
	for (requested = 0; requested < BUSY_IRQS; requested++) {
		irq_set_chip_and_handler(base + requested, &dummy_irq_chip,
					 handle_simple_irq);
		ret = request_irq(base + requested, busy_handler, 0, "busy",
				  &base);
		if (ret) {
			busy_free();
			return ret;
		}
	}
	return 0;
}

static void __exit irq_busy_exit(void)
{
	busy_free();
}

module_init(irq_busy_init);
module_exit(irq_busy_exit);
MODULE_DESCRIPTION("Interrupts raised on every CPU for the procfs rig");
MODULE_LICENSE("GPL");
