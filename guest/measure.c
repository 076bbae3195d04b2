// SPDX-License-Identifier: GPL-2.0
/*
 * measure: bytes, largest seq_file buffer, vmalloc calls and the median
 * read time of each file, in fresh memory and then on a fragmented
 * machine.
 */
#include "proctest.h"

static void measure_line(const char *f, int fragmented, size_t bytes,
			 const struct allocs *a)
{
	long long med, lo, hi;
	int reads;

	trace_events(0);
	make_it_fail(fragmented);
	time_reads(f, &med, &lo, &hi, &reads);
	make_it_fail(0);
	trace_events(1);
	printf("# measure file=%s cpus=%d bytes=%zu largest_alloc=%lld kvmallocs=%d vmallocs=%d read_ns=%lld min_ns=%lld max_ns=%lld reads=%d memory=%s\n",
	       f, online_cpus(), bytes, a->largest, a->kvmallocs,
	       a->vmallocs, med, lo, hi, reads,
	       fragmented ? "fragmented" : "fresh");
}

/*
 * A fragmented machine: fail_page_alloc fails every allocation of order
 * 1 and up of this process, so stock's kvmalloc() of more than 8 KiB
 * (KMALLOC_MAX_CACHE_SIZE) falls back to vmalloc(). One traced read
 * counts the calls; the reads are timed under the same failures. The
 * trace is read with the failures off (that read needs a large buffer).
 */
static void measure_fragmented(int patched, const char *f)
{
	struct allocs a;
	size_t got;

	fragment_memory(1);
	trace_on();
	make_it_fail(1);
	got = read_through(f);
	make_it_fail(0);
	a = trace_off();
	measure_line(f, 1, got, &a);
	fragment_memory(0);
	if (patched)
		result(a.kvmallocs && a.largest <= PAGE_BYTES && !a.vmallocs, NULL,
		       "measure %s fragmented: %d vmalloc", f, a.vmallocs);
	else
		result(a.kvmallocs && (a.largest <= 2 * PAGE_BYTES || a.vmallocs > 0),
		       a.largest <= 2 * PAGE_BYTES && !a.vmallocs ?
		       "buffer within kmalloc's caches" : NULL,
		       "measure %s fragmented: stock falls back to vmalloc: %d calls, largest kvmalloc %lld",
		       f, a.vmallocs, a.largest);
}

int suite_measure(int patched, const char *kernel)
{
	unsigned int i;

	trace_setup();
	for (i = 0; i < NR_FILES; i++) {
		const char *f = files[i];
		struct allocs a = trace_read(f);
		size_t bytes;
		char *text = slurp(f, &bytes);

		free(text);
		measure_line(f, 0, bytes, &a);
		/* The trace must have seen seq_file's own buffer. */
		result(bytes > 0 && a.kvmallocs > 0, NULL, "measure %s", f);
		result_bounded(patched, f, &a);
		measure_fragmented(patched, f);
	}
	if (patched)
		kunit_figures();
	return 0;
}
