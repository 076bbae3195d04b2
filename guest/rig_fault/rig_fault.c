// SPDX-License-Identifier: GPL-2.0
/*
 * rig_fault - makes the kernel report what the debug kernel must catch, so
 * that the rig can show its verdict names each report: loading it with
 * report=warn,rcu,sleep,lockdep,leak,kasan produces, in that order,
 *   warn     a WARN() (any kernel: make check's test of the verdict on the
 *            plain patched kernel)
 *   rcu      rcu_dereference() outside a read-side section ("suspicious
 *            RCU usage", printed at warning level)
 *   sleep    might_sleep() under a spinlock ("sleeping function called
 *            from invalid context"; it does not sleep, which would panic)
 *   lockdep  two mutexes taken in both orders ("possible circular locking
 *            dependency", warning level)
 *   leak     a kmalloc() that is never freed (kmemleak, info level, once
 *            the guest asks for a scan)
 *   kasan    a read past the end of a kmalloc() object (KASAN; with
 *            panic_on_warn it panics, so it goes last)
 * Not for any kernel but a guest of the rig.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *report = "";
module_param(report, charp, 0444);
MODULE_PARM_DESC(report, "reports to produce: warn,rcu,sleep,lockdep,leak,kasan");

static DEFINE_MUTEX(rig_fault_a);
static DEFINE_MUTEX(rig_fault_b);
static DEFINE_SPINLOCK(rig_fault_lock);
static int __rcu *rig_fault_ptr;
static void *rig_fault_leaked;

static bool wanted(const char *what)
{
	const char *p = report;
	size_t len = strlen(what);

	while ((p = strstr(p, what))) {
		if ((p == report || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

static int __init rig_fault_init(void)
{
	WARN(wanted("warn"), "rig_fault: a warning on purpose\n");
	if (wanted("rcu"))
		pr_info("rig_fault: %p\n", rcu_dereference(rig_fault_ptr));
	if (wanted("sleep")) {
		spin_lock(&rig_fault_lock);
		might_sleep();
		spin_unlock(&rig_fault_lock);
	}
	/* after the others: lockdep turns its own and RCU's checks off */
	if (wanted("lockdep")) {
		mutex_lock(&rig_fault_a);
		mutex_lock(&rig_fault_b);
		mutex_unlock(&rig_fault_b);
		mutex_unlock(&rig_fault_a);
		mutex_lock(&rig_fault_b);
		mutex_lock(&rig_fault_a);
		mutex_unlock(&rig_fault_a);
		mutex_unlock(&rig_fault_b);
	}
	if (wanted("leak")) {
		rig_fault_leaked = kmalloc(64, GFP_KERNEL);
		/* the only reference goes: kmemleak must find the object */
		WRITE_ONCE(rig_fault_leaked, NULL);
	}
	if (wanted("kasan")) {
		char *p = kmalloc(8, GFP_KERNEL);

		OPTIMIZER_HIDE_VAR(p);
		if (p)
			pr_info("rig_fault: %d\n", READ_ONCE(p[8]));
		kfree(p);
	}
	return 0;
}

static void __exit rig_fault_exit(void)
{
}

module_init(rig_fault_init);
module_exit(rig_fault_exit);
MODULE_DESCRIPTION("Kernel reports on purpose, for the rig's own test");
MODULE_LICENSE("GPL");
