// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing the allocations of seq_file buffers: the kmem:kmalloc events of
 * kvmalloc() and the vmalloc:alloc_vmap_area events, filtered to the
 * readers; the bound the series promises. Tracepoints, not kprobes: riscv
 * takes a kprobe's breakpoint as an NMI, and its ring buffer records
 * nothing from NMIs (no ARCH_HAVE_NMI_SAFE_CMPXCHG).
 */
#include "proctest.h"

#define KMALLOC TRACEFS "events/kmem/kmalloc/"
#define VMALLOC TRACEFS "events/vmalloc/alloc_vmap_area/"

static int set_up;

void trace_setup(void)
{
	pid_t self = getpid();

	if (!set_up++) {
		write_file(TRACEFS "tracing_on", "0");
		trace_events(1);
	}
	trace_pids(&self, 1);
}

/*
 * The events on or off, if trace_setup() set them up: reads are timed
 * with them off, an event costs as much as a record.
 */
void trace_events(int on)
{
	if (!set_up)
		return;
	write_file(KMALLOC "enable", on ? "1" : "0");
	write_file(VMALLOC "enable", on ? "1" : "0");
}

/*
 * Trace these processes from now on (this one, or the readers of the
 * churn and injection suites). A filter, not set_event_pid: that turns
 * scheduler tracepoints on and off, and patching their call sites while
 * CPUs go on- and offline crashed a TCG guest (int3 in ttwu_do_wakeup).
 * kmalloc()'s events from seq_file's kvmalloc() only: in 7.3
 * __kvmalloc_node_noprof() passes its caller's return address on, so the
 * call site is seq_buf_alloc() (or, where the compiler inlined it, the
 * seq_file function that called it) and bytes_req is the size asked of
 * kvmalloc(). A function's name ends at a blank, hence the one before ")".
 */
void trace_pids(const pid_t *pids, unsigned int n)
{
	char pid_filter[256] = "", filter[448];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += snprintf(pid_filter + len, sizeof(pid_filter) - len,
				"%scommon_pid == %d", i ? " || " : "", pids[i]);
	snprintf(filter, sizeof(filter),
		 "(call_site.function == seq_buf_alloc || call_site.function == seq_read_iter || "
		 "call_site.function == single_open_size ) && (%s)", pid_filter);
	write_file(KMALLOC "filter", filter);
	write_file(VMALLOC "filter", pid_filter);
}

/* Start tracing the allocations of the traced processes. */
void trace_on(void)
{
	write_file(TRACEFS "trace", "");
	write_file(TRACEFS "tracing_on", "1");
}

/* Stop tracing and sum up the allocations since trace_on(). */
struct allocs trace_off(void)
{
	struct allocs a = { 0 };
	char *trace, *line, *save, *h;
	size_t len;

	write_file(TRACEFS "tracing_on", "0");
	trace = slurp(TRACEFS "trace", &len);
	h = strstr(trace, "entries-in-buffer/entries-written: ");
	if (h) {
		long long in, written;

		if (sscanf(h + 35, "%lld/%lld", &in, &written) == 2)
			a.lost = written - in;
	} else {
		a.lost = -1;	/* no header: nothing known */
	}
	for (line = strtok_r(trace, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *size = strstr(line, " bytes_req=");
		long long v;

		if (line[0] == '#')
			continue;
		if (strstr(line, " kmalloc: ") && size) {
			v = atoll(size + 11);
			a.kvmallocs++;
			if (v > a.largest)
				a.largest = v;
		} else if (strstr(line, " alloc_vmap_area: ")) {
			a.vmallocs++;
		}
	}
	free(trace);
	return a;
}

/* Trace one full read of @path and sum up its allocations. */
struct allocs trace_read(const char *path)
{
	trace_on();
	read_through(path);
	return trace_off();
}

/*
 * The bound the series promises, asserted on the patched kernel. The
 * trace must have seen the reads' kvmalloc() calls and lost none, or the
 * bound proves nothing. From 64 CPUs, stock's buffers pass a page: that
 * is asserted too, so the check is known to tell the two apart.
 */
void result_bounded(int patched, const char *f, const struct allocs *a)
{
	int seen = a->kvmallocs > 0 && a->lost == 0;

	if (patched)
		result(seen && a->largest <= PAGE_BYTES && a->vmallocs == 0, NULL,
		       "bounded %s largest=%lld vmallocs=%d (traced %d kvmalloc calls, lost %lld)",
		       f, a->largest, a->vmallocs, a->kvmallocs, a->lost);
	else if (online_cpus() >= 64)
		result(seen && a->largest > PAGE_BYTES, NULL,
		       "stock passes a page: %s largest=%lld vmallocs=%d (traced %d kvmalloc calls, lost %lld)",
		       f, a->largest, a->vmallocs, a->kvmallocs, a->lost);
	else
		result(seen, seen ? "stock kernel makes no bound" : NULL,
		       "bounded %s largest=%lld vmallocs=%d (traced %d kvmalloc calls, lost %lld)",
		       f, a->largest, a->vmallocs, a->kvmallocs, a->lost);
}
