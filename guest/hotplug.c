// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug: CPUs go offline and online in three phases under the readers.
 */
#include "proctest.h"

static int any_cpu(int cpu)
{
	return cpu >= 0;
}

static int even_cpu(int cpu)
{
	return cpu % 2 == 0;
}

static int cpu_below_33(int cpu)
{
	return cpu <= 32;
}

static const struct hotplug_phase {
	const char *name;
	int (*allowed)(int cpu);	/* may be online in this phase */
} hotplug_phases[] = {
	{ "any CPU", any_cpu },
	{ "odd CPUs offline", even_cpu },
	{ "CPUs above 32 offline", cpu_below_33 },
};
#define NR_PHASES (sizeof(hotplug_phases) / sizeof(hotplug_phases[0]))

/*
 * CPU hotplug churn under the readers, in phases of CHURN_SECS / 3: CPUs
 * the phase does not allow are offline (sparse masks, rows with a gap or
 * ending in the second record), and random allowed CPUs go offline and
 * online again.
 */
int suite_hotplug(int patched, const char *kernel)
{
	int ncpus = online_cpus(), toggles = 0, refused = 0, idle = 0, i;
	struct reader_counts c;
	struct readers r;
	unsigned int k;

	if (ncpus < 2)
		die("hotplug needs 2 CPUs");
	readers_start(&r);
	srand(42);
	for (k = 0; k < NR_PHASES; k++) {
		const struct hotplug_phase *ph = &hotplug_phases[k];
		int before = toggles;
		long long end;

		for (i = 1; i < ncpus; i++)
			set_online(i, ph->allowed(i));
		printf("# hotplug phase %s: %d CPUs online\n", ph->name, online_cpus());
		end = now_ns() + CHURN_SECS * 1000000000LL / NR_PHASES;
		while (now_ns() < end) {
			int cpu = 1 + rand() % (ncpus - 1);

			if (!ph->allowed(cpu))
				continue;
			if (set_online(cpu, 0))
				toggles++;
			else
				refused++;
			do
				cpu = 1 + rand() % (ncpus - 1);
			while (!ph->allowed(cpu));
			set_online(cpu, 1);
		}
		printf("# hotplug phase %s: %d CPUs taken offline\n", ph->name,
		       toggles - before);
		idle += toggles == before;
	}
	for (i = 1; i < ncpus; i++)
		set_online(i, 1);
	c = readers_stop(&r, patched, "readers under hotplug");
	printf("# hotplug: %d CPUs taken offline in %d s (%d refused), all back online: %d\n",
	       toggles, CHURN_SECS, refused, online_cpus());
	result(!idle && online_cpus() == ncpus, NULL,
	       "hotplug churn ran in every phase");
	result_churn_columns(patched, "hotplug", &c);
	return 0;
}
