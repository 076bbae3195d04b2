#!/bin/bash
# compare.sh CPUS...: the main job. Boots stock and patched at each vCPU
# count and prints, per file, bytes, the largest seq_file buffer, the
# vmalloc calls of one read and the median read time; writes the same as
# results/compare/compare.csv.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=${RESULTS:-$top/results}/compare
[ $# -gt 0 ] || set -- 8 64
mkdir -p "$out"

# CLOCK=icount (default): -icount shift=0,sleep=off, the guest clock counts
# instructions, reads repeat to the nanosecond; stock and patched boot side
# by side, one host core each. Booting 255 vCPUs that way takes too long
# (one host thread runs them all), so CLOCK=host boots with multi-threaded
# TCG and the host's clock instead, one kernel after the other.
clock=${CLOCK:-icount}
case $clock in
icount) flag=-t ;;
host) flag= ;;
*) echo "compare: CLOCK must be icount or host" >&2; exit 2 ;;
esac

for n in "$@"; do
	start=$(date +%s)
	echo "== boot stock and patched at $n vCPUs (clock: $clock)"
	pids=()
	rc=0
	for k in stock patched; do
		"$top/scripts/boot.sh" $flag "$build/$k/vmlinux" "$n" "$k" measure "$out/$k-$n" &
		pids+=($!)
		if [ $clock = host ]; then wait $! || rc=1; fi
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	echo "== boot at $n vCPUs: $([ $rc = 0 ] && echo done || echo FAILED) in $(( $(date +%s) - start ))s"
	[ $rc = 0 ] || { cat "$out"/*-"$n"/result; exit 1; }
done

csv=$out/compare.csv
echo "file,cpus,kernel,bytes,largest_alloc,vmallocs,read_ns,min_ns,max_ns,reads" > "$csv"
for n in "$@"; do
	for k in stock patched; do
		tr -d '\r' < "$out/$k-$n/console.log" | sed -n 's/^# measure //p' |
		while read -r line; do
			declare -A v=()
			for kv in $line; do v[${kv%%=*}]=${kv#*=}; done
			echo "${v[file]},$n,$k,${v[bytes]},${v[largest_alloc]},${v[vmallocs]},${v[read_ns]},${v[min_ns]},${v[max_ns]},${v[reads]}"
		done
	done
done >> "$csv"

for f in /proc/interrupts /proc/softirqs /proc/stat; do
	echo
	echo "$f"
	printf '%5s  %-8s %9s %15s %8s %14s %14s\n' CPUs kernel bytes "largest buffer" vmalloc "read time ns" patched/stock
	awk -F, -v f="$f" '
		$1 == f {
			ratio = ""
			if ($3 == "stock")
				stock[$2] = $7
			else if (stock[$2] > 0)
				ratio = sprintf("%.3f", $7 / stock[$2])
			printf "%5s  %-8s %9s %15s %8s %14s %14s\n", $2, $3, $4, $5, $6, $7, ratio
		}' "$csv"
done
echo
echo "(read time: median of at least 11 full reads with 128 KiB read() calls, clock: $clock; CSV: $csv)"
