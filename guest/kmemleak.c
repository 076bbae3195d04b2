// SPDX-License-Identifier: GPL-2.0
/*
 * kmemleak: no leak reported after the suites before it.
 */
#include "proctest.h"

#define KMEMLEAK DEBUGFS "kmemleak"

/*
 * kmemleak: main() cleared the list before the first suite; two scans
 * (an object must stay unreferenced for a while) and nothing reported.
 */
int suite_kmemleak(int patched, const char *kernel)
{
	size_t len;
	char *report, *p;
	int leaks = 0;

	write_file(KMEMLEAK, "scan");
	sleep(6);
	write_file(KMEMLEAK, "scan");
	report = slurp(KMEMLEAK, &len);
	for (p = report; (p = strstr(p, "unreferenced object")); p++)
		leaks++;
	if (leaks)
		printf("# kmemleak: %.1500s\n", report);
	result(leaks == 0, NULL, "kmemleak: %d unreferenced objects", leaks);
	free(report);
	return 0;
}
