#!/bin/bash
# compare.sh CPUS...: the main job. Boots stock and patched at each vCPU
# count and prints, per file, bytes, the largest seq_file buffer, the
# vmalloc calls of one read and the read time (median, fastest, slowest),
# then the same for stock against stock (A/A) at $AA_CPUS, which shows
# the noise of the timing. Writes results/compare/compare.csv, aa.csv,
# kunit.csv and the plot (compare.png, compare.svg).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=${RESULTS:-$top/results}/compare
[ $# -gt 0 ] || set -- 8 64
set -- $(fit_cpus "$@")
aa_cpus=$(fit_cpus ${AA_CPUS-8})
mkdir -p "$out"
# the boot timeouts follow this machine's speed now (calibrate.sh)
"$top/scripts/calibrate.sh"

# How reads are timed. icount: -icount shift=0,sleep=off, the guest clock
# counts instructions and reads repeat to the nanosecond; the two kernels
# boot side by side, one host core each. That is one host thread for all
# vCPUs, too slow to boot more than 64 (128 took over 10 minutes), so
# host: multi-threaded TCG and the host's clock, one kernel after the
# other. auto (default): icount up to $ICOUNT_MAX_CPUS vCPUs, host above.
clock=${CLOCK:-auto}
icount_max=${ICOUNT_MAX_CPUS:-64}
case $clock in
icount|host|auto) ;;
*) echo "compare: CLOCK must be icount, host or auto" >&2; exit 2 ;;
esac
clock_at() {	# clock_at CPUS
	if [ $clock = auto ]; then
		[ "$1" -le "$icount_max" ] && echo icount || echo host
	else
		echo $clock
	fi
}

# boot_pair CPUS LABEL...: the label names the run's folder; its first
# word (stock, patched) the kernel. A failed pair is reported and
# left out of the tables; the script then exits non-zero at the end.
failed=()
boot_pair() {
	local n=$1 start label c mode=-t names rc=0
	start=$(date +%s)
	shift
	names="$*"
	names=${names// / and }
	c=$(clock_at "$n")
	[ "$c" = host ] && mode=seq
	echo "== boot $names at $n vCPUs (clock: $c)"
	rig_boots $mode "$n" measure "$out/" "$@" || rc=1
	echo "== boot $names at $n vCPUs: $([ $rc = 0 ] && echo done || echo FAILED) in $(( $(date +%s) - start ))s"
	if [ $rc != 0 ]; then
		for label in "$@"; do echo "$label: $(cat "$out/$label-$n/result")"; done
		failed+=("$n")
	fi
}

# csv CPUS LABEL...: the "# measure" lines of those runs as CSV rows
# (none if the pair failed).
csv() {
	local n=$1 label line kv c
	shift
	c=$(clock_at "$n")
	for label in "$@"; do
		grep -qs '^pass' "$out/$label-$n/result" || continue
		measure_lines "$out/$label-$n" |
		while read -r line; do
			declare -A v=()
			for kv in $line; do v[${kv%%=*}]=${kv#*=}; done
			echo "${v[file]},$n,$label,${v[bytes]},${v[largest_alloc]},${v[vmallocs]},${v[read_ns]},${v[min_ns]},${v[max_ns]},${v[reads]},$c,${v[memory]:-fresh}"
		done
	done
}

# table CSV A B [MEMORY]: per file, B's time against A's, in fresh
# memory or on the fragmented machine (fail_page_alloc min-order=1)
table() {
	local f memory=${4:-fresh}
	for f in /proc/interrupts /proc/softirqs /proc/stat; do
		echo
		echo "$f$([ "$memory" = fresh ] || echo " ($memory memory)")"
		printf '%5s  %-12s %9s %15s %8s %12s %12s %12s %14s  %s\n' CPUs kernel bytes "largest buffer" vmalloc \
			"median ns" "fastest ns" "slowest ns" "$3/$2" clock
		awk -F, -v f="$f" -v a="$2" -v m="$memory" '
			$1 == f && $12 == m {
				ratio = ""
				if ($3 == a)
					base[$2] = $7
				else if (base[$2] > 0)
					ratio = sprintf("%.3f", $7 / base[$2])
				printf "%5s  %-12s %9s %15s %8s %12s %12s %12s %14s  %s\n", $2, $3, $4, $5, $6, $7, $8, $9, ratio, $11
			}' "$1"
	done
}

header="file,cpus,kernel,bytes,largest_alloc,vmallocs,read_ns,min_ns,max_ns,reads,clock,memory"
for n in "$@"; do
	boot_pair "$n" stock patched
done
echo "$header" > "$out/compare.csv"
for n in "$@"; do csv "$n" stock patched; done >> "$out/compare.csv"

# The bound at 8192 CPUs, from the KUnit suite of the patched kernel.
echo "case,cpus,records,largest_record,longest_row,bytes" > "$out/kunit.csv"
for n in "$@"; do tr -d '\r' < "$out/patched-$n/console.log"; done 2> /dev/null |
sed -n 's/^# kunit //p' | awk '!seen[$0]++' |
while read -r line; do
	declare -A v=()
	for kv in $line; do v[${kv%%=*}]=${kv#*=}; done
	echo "${v[case]},${v[cpus]},${v[records]},${v[largest_record]},${v[longest_row]},${v[bytes]}"
done >> "$out/kunit.csv"

# A/A: a second boot of stock against the comparison's first one, which
# is only booted here for counts the comparison did not run (or lost).
for n in $aa_cpus; do
	if grep -qs '^pass' "$out/stock-$n/result" && [[ " $* " = *" $n "* ]]; then
		boot_pair "$n" stock-again
	else
		boot_pair "$n" stock stock-again
	fi
done
echo "$header" > "$out/aa.csv"
for n in $aa_cpus; do csv "$n" stock stock-again; done >> "$out/aa.csv"

table "$out/compare.csv" stock patched
echo
echo "The same on a fragmented machine: fail_page_alloc fails the reader's allocations"
echo "of order 1 and up, so a kvmalloc() above 8 KiB falls back to vmalloc()"
table "$out/compare.csv" stock patched fragmented
if [ -n "$aa_cpus" ]; then
	echo
	echo "A/A: stock against stock, two boots, to show the noise of the timing"
	table "$out/aa.csv" stock stock-again
fi
echo
echo "KUnit seq_cpu_table on the patched kernel (synthetic CPU masks):"
column -t -s, "$out/kunit.csv"
"$top/scripts/plot.sh" "$out"
echo
echo "(read time: full reads with 128 KiB read() calls, at least 11 and up to 201, median;"
echo " clock icount: -icount shift=0,sleep=off, guest clock counts instructions; host: multi-threaded TCG)"
echo "(CSV: $out/compare.csv, $out/aa.csv, $out/kunit.csv; plot: $out/compare.png, $out/compare.svg)"
if [ ${#failed[@]} -gt 0 ]; then
	echo "compare: boots failed at ${failed[*]} vCPUs (left out above; see $out/*/result)" >&2
	exit 1
fi
