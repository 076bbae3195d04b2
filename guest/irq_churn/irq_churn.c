// SPDX-License-Identifier: GPL-2.0
/*
 * irq_churn - the rig's interrupt churn, loaded only in the guest.
 *
 * While loaded, a kthread allocates interrupt descriptors, requests
 * handlers on them with short and long names (some shared, so that a row
 * lists two actions), raises each a few times on the CPU it runs on, then
 * frees the handlers and the descriptors again. Rows of /proc/interrupts
 * and fields of /proc/stat's intr line appear, change length and vanish
 * under the readers of the rig, and nr_irqs may grow. The number of
 * rounds is in /sys/module/irq_churn/parameters/rounds.
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>

#define CHURN_IRQS	8

static unsigned long rounds;
module_param(rounds, ulong, 0444);
MODULE_PARM_DESC(rounds, "rounds of allocate, request, raise, free so far");

static struct task_struct *churn_task;
static char names[CHURN_IRQS][2][96];

static irqreturn_t churn_handler(int irq, void *dev_id)
{
	return IRQ_HANDLED;
}

static void churn_name(char *buf, size_t len, unsigned int i, int second)
{
	if (get_random_u32_below(2))
		snprintf(buf, len, "churn%u", i);
	else
		snprintf(buf, len, "irq-churn-%s-handler-with-a-long-name-%u-%lu",
			 second ? "second" : "first", i, rounds);
}

/* One round: up to CHURN_IRQS descriptors come and go. */
static void churn_round(void)
{
	unsigned int nr = 1 + get_random_u32_below(CHURN_IRQS), i, k;
	bool shared[CHURN_IRQS] = { };
	int base;

	/*
	 * No owner: request_irq() would pin the module while the round
	 * runs, and rmmod, which stops the thread, would be refused.
	 */
	base = __irq_alloc_descs(-1, 1, nr, NUMA_NO_NODE, NULL, NULL);
	if (base < 0) {
		pr_warn_once("irq_churn: irq_alloc_descs: %d\n", base);
		msleep(10);
		return;
	}
	for (i = 0; i < nr; i++) {
		unsigned int irq = base + i;

		irq_set_chip_and_handler(irq, &dummy_irq_chip, handle_simple_irq);
		/* powerpc and arm make new descriptors IRQ_NOREQUEST */
		irq_clear_status_flags(irq, IRQ_NOREQUEST);
		churn_name(names[i][0], sizeof(names[i][0]), i, 0);
		if (request_irq(irq, churn_handler, IRQF_SHARED, names[i][0],
				names[i][0]))
			continue;
		churn_name(names[i][1], sizeof(names[i][1]), i, 1);
		shared[i] = get_random_u32_below(2) &&
			!request_irq(irq, churn_handler, IRQF_SHARED,
				     names[i][1], names[i][1]);
		for (k = get_random_u32_below(4); k; k--)
			generic_handle_irq_safe(irq);
	}
	usleep_range(500, 2000);
	for (i = 0; i < nr; i++) {
		unsigned int irq = base + i;

		if (shared[i])
			free_irq(irq, names[i][1]);
		if (irq_has_action(irq))
			free_irq(irq, names[i][0]);
	}
	irq_free_descs(base, nr);
	rounds++;
}

static int churn_thread(void *unused)
{
	while (!kthread_should_stop()) {
		churn_round();
		cond_resched();
	}
	return 0;
}

static int __init irq_churn_init(void)
{
	churn_task = kthread_run(churn_thread, NULL, "irq_churn");
	return PTR_ERR_OR_ZERO(churn_task);
}

static void __exit irq_churn_exit(void)
{
	kthread_stop(churn_task);
	pr_info("irq_churn: %lu rounds\n", rounds);
}

module_init(irq_churn_init);
module_exit(irq_churn_exit);
MODULE_DESCRIPTION("Interrupt descriptor and handler churn for the procfs rig");
MODULE_LICENSE("GPL");
