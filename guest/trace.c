// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing the allocations of seq_file buffers: kprobes on kvmalloc() and
 * vmalloc(), filtered to the readers; the bound the series promises.
 */
#include "proctest.h"

void trace_setup(void)
{
	static int done;
	pid_t self = getpid();
	int fd;
	/* $arg1, the size: the same probe on every architecture */
	static const char probes[] =
		"p:rig/kvmalloc __kvmalloc_node_noprof size=$arg1:u64\n"
		"p:rig/vmalloc __vmalloc_node_range_noprof size=$arg1:u64\n";

	if (!done++) {
		fd = open(TRACEFS "kprobe_events", O_WRONLY | O_APPEND);
		if (fd < 0 || write(fd, probes, strlen(probes)) < 0)
			die(TRACEFS "kprobe_events");
		close(fd);
		write_file(TRACEFS "tracing_on", "0");
		write_file(TRACEFS "events/rig/enable", "1");
	}
	trace_pids(&self, 1);
}

/*
 * Trace these processes from now on (this one, or the readers of the
 * churn and injection suites). A filter, not set_event_pid: that turns
 * scheduler tracepoints on and off, and patching their call sites while
 * CPUs go on- and offline crashed a TCG guest (int3 in ttwu_do_wakeup).
 */
void trace_pids(const pid_t *pids, unsigned int n)
{
	char filter[256] = "";
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += snprintf(filter + len, sizeof(filter) - len, "%scommon_pid == %d",
				i ? " || " : "", pids[i]);
	write_file(TRACEFS "events/rig/filter", filter);
}

/* Hits of the kvmalloc() kprobe so far, all processes (kprobe_profile). */
static long long kvmalloc_hits(void)
{
	char *profile, *line, *save;
	long long hits = -1;
	size_t len;

	profile = slurp(TRACEFS "kprobe_profile", &len);
	for (line = strtok_r(profile, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, " kvmalloc %lld", &hits) == 1)
			break;
	free(profile);
	return hits;
}

static long long hits_at_on;

/* Start tracing the allocations of this process. */
void trace_on(void)
{
	write_file(TRACEFS "trace", "");
	hits_at_on = kvmalloc_hits();
	write_file(TRACEFS "tracing_on", "1");
}

/* Stop tracing and sum up the allocations since trace_on(). */
struct allocs trace_off(void)
{
	struct allocs a = { 0 };
	char *trace, *line, *save, *h;
	size_t len;

	write_file(TRACEFS "tracing_on", "0");
	a.hits = kvmalloc_hits() - hits_at_on;
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
		char *size = strstr(line, "size=");
		long long v;

		if (line[0] == '#' || !size)
			continue;
		v = atoll(size + 5);
		if (strstr(line, " kvmalloc:")) {
			a.kvmallocs++;
			if (v > a.largest)
				a.largest = v;
		} else if (strstr(line, " vmalloc:")) {
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
 * Why the trace of @a tells nothing, or NULL. riscv takes a kprobe's
 * breakpoint as an NMI, and its ring buffer records nothing from NMIs (no
 * ARCH_HAVE_NMI_SAFE_CMPXCHG): the probe is hit and no event is traced.
 */
const char *trace_blind(const struct allocs *a)
{
	if (!a->kvmallocs && a->hits > 0)
		return "kprobe hit but no event recorded (kprobes as NMIs, no ring-buffer writes from NMIs)";
	return NULL;
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

	if (trace_blind(a)) {
		result(1, trace_blind(a), "%s%s kvmalloc() probe hit %lld times, 0 events",
		       patched ? "bounded " : "", f, a->hits);
		return;
	}
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
