#!/bin/bash
# profile.sh [KERNEL...]: where the instructions of a read go. Boots
# BUILD/KERNEL (stock and patched by default; built with the function profiler, config/profile.config)
# under -icount at $PROFILE_CPUS vCPUs (default 64) with the guest's
# profile suite, and prints for each file the functions that take most of
# a read: their own instructions per read (a guest nanosecond under
# -icount shift=0), without their callees', and their calls per read.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

results=${RESULTS:-$top/results}/profile
kernels=${*:-stock patched}
rc=0
for n in ${PROFILE_CPUS:-64}; do
	rig_boots -t "$n" profile "$results/" $kernels || rc=1
	for k in $kernels; do
		dir=$results/$k-$n
		echo "== $k, $n vCPUs: $(cat "$dir/result" 2>/dev/null || echo 'fail not booted')"
		tr -d '\r' < "$dir/console.log" | sed -n 's/^# profile //p' | awk '
		function val(k,   i) {
			for (i = 1; i <= NF; i++)
				if (index($i, k "=") == 1)
					return substr($i, length(k) + 2)
			return ""
		}
		val("fn") == "" {
			printf "%s: %d instructions per read (%d with the profiler, %d in functions)\n",
				val("file"), val("read_ns"), val("profiled_ns"), val("functions_ns")
			printf "  %10s %8s %6s  %s\n", "instr/read", "calls", "share", "function (own time)"
			next
		}
		{ printf "  %10d %8.1f %5.1f%%  %s\n", val("ns"), val("calls"), 100 * val("share"), val("fn") }'
	done
done
exit $rc
