// SPDX-License-Identifier: GPL-2.0
/*
 * faults: the kernel reports on purpose (rig_fault), for the rig's own
 * test of its verdict.
 */
#include "proctest.h"

/*
 * faults: load rig_fault with report= the list given as rig.faults= on
 * the kernel command line, so that the kernel reports what the host must
 * catch; with "leak", let kmemleak scan. The guest's own test passes: the
 * host's verdict must fail the boot and name each report.
 */
int suite_faults(int patched, const char *kernel)
{
	char cmd[256], *cmdline, *list;
	size_t len;

	cmdline = slurp("/proc/cmdline", &len);
	list = strstr(cmdline, "rig.faults=");
	if (!list) {
		result(0, NULL, "faults: no rig.faults= on the command line");
		free(cmdline);
		return 0;
	}
	list += strlen("rig.faults=");
	list[strcspn(list, " \n")] = '\0';
	snprintf(cmd, sizeof(cmd), "insmod /lib/modules/rig_fault-%s.ko report=%s 2>&1",
		 kernel, list);
	result(run_quiet(cmd) == 0, NULL, "faults: rig_fault loaded, report=%s", list);
	if (strstr(list, "leak")) {
		sleep(6);	/* kmemleak reports objects older than 5 s */
		write_file(KMEMLEAK, "scan");
		write_file(KMEMLEAK, "scan");
	}
	free(cmdline);
	return 0;
}
