// SPDX-License-Identifier: GPL-2.0
/*
 * measure: bytes, largest seq_file buffer, vmalloc calls and the median
 * read time of each file.
 */
#include "proctest.h"

int suite_measure(int patched, const char *kernel)
{
	unsigned int i;

	trace_setup();
	for (i = 0; i < NR_FILES; i++) {
		const char *f = files[i];
		struct allocs a = trace_read(f);
		long long med, lo, hi;
		size_t bytes;
		char *text = slurp(f, &bytes);
		int reads;

		free(text);
		/* timed with the probes off: a probe hit costs as much as a record */
		write_file(TRACEFS "events/rig/enable", "0");
		time_reads(f, &med, &lo, &hi, &reads);
		write_file(TRACEFS "events/rig/enable", "1");
		printf("# measure file=%s cpus=%d bytes=%zu largest_alloc=%lld kvmallocs=%d vmallocs=%d read_ns=%lld min_ns=%lld max_ns=%lld reads=%d\n",
		       f, online_cpus(), bytes, a.largest, a.kvmallocs,
		       a.vmallocs, med, lo, hi, reads);
		/* The trace must have seen seq_file's own buffer. */
		result(bytes > 0 && a.kvmallocs > 0, NULL, "measure %s", f);
		result_bounded(patched, f, &a);
	}
	if (patched)
		kunit_figures();
	return 0;
}
