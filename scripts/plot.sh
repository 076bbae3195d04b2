#!/bin/bash
# plot.sh DIR: draws DIR/compare.png and DIR/compare.svg from compare.csv
# and kunit.csv (written by compare.sh) with gnuplot: the largest seq_file
# buffer of one read, and the read time (median, bars from fastest to
# slowest read), against the number of vCPUs, stock and patched.
set -euo pipefail

dir=$1
data=$dir/plot
command -v gnuplot > /dev/null || { echo "plot: gnuplot missing (run: make deps)" >&2; exit 1; }
mkdir -p "$data"
rm -f "$data"/*.dat

# one file per kernel and /proc file: cpus largest_alloc median min max (ns)
awk -F, -v d="$data" 'NR > 1 && $12 != "fragmented" {
	name = $3 "-" substr($1, 7)
	print $2, $5, $7, $8, $9 > (d "/" name ".dat")
}' "$dir/compare.csv"
# the KUnit cases at 8192 CPUs: cpus largest_record longest_row
awk -F, -v d="$data" 'NR > 1 && $2 == 8192 && $1 ~ /all/ { print $2, $4, $5 > (d "/kunit.dat") }' \
	"$dir/kunit.csv"
[ -s "$data/kunit.dat" ] || echo "8192 NaN NaN" > "$data/kunit.dat"
# which clock timed which vCPU counts, e.g. "icount: 1-64 vCPUs, host: 128-255 vCPUs"
clocks=$(awk -F, 'NR > 1 && $12 != "fragmented" {
	if (!($11 in lo) || $2 < lo[$11]) lo[$11] = $2
	if ($2 > hi[$11]) hi[$11] = $2
} END {
	for (c in lo) s = s (s ? ", " : "") c ": " (lo[c] == hi[c] ? lo[c] : lo[c] "-" hi[c]) " vCPUs"
	print s
}' "$dir/compare.csv")

plot() {	# plot TERMINAL OUTPUT
	gnuplot <<GP
set terminal $1 size 1200,520 font ",10"
set output "$2"
set datafile missing "NaN"
files = "interrupts softirqs stat"
set multiplot layout 1,2 title "/proc/interrupts, /proc/softirqs, /proc/stat: stock (solid) and patched (dashed)"
set logscale x 2
set logscale y 2
set xlabel "vCPUs"
set grid
set key top left font ",9"
set xrange [0.7:12000]
set ylabel "largest seq\\\\_file buffer of one read (bytes)"
set title "buffer (patched at 8192: KUnit, synthetic CPU mask)"
set format y "%.0f"
plot for [i=1:3] "$data/stock-".word(files, i).".dat" using 1:2 with linespoints lw 2 lc i title "stock ".word(files, i), \
     for [i=1:3] "$data/patched-".word(files, i).".dat" using 1:2 with linespoints lw 2 dt 2 lc i title "patched ".word(files, i), \
     "$data/kunit.dat" using 1:2 with points pt 7 ps 1.5 lc rgb "black" title "largest record, 8192 CPUs (KUnit)", \
     "$data/kunit.dat" using 1:3 with points pt 6 ps 1.5 lc rgb "black" title "one row as one record, 8192 CPUs (KUnit)", \
     4096 with lines lc rgb "gray" dt 3 title "one page"
set xrange [0.7:1500]
set ylabel "read time of the whole file (µs, median; bars: fastest to slowest)"
set title "read time (clock $clocks)"
set format y "%g"
plot for [i=1:3] "$data/stock-".word(files, i).".dat" using 1:(\$3/1000):(\$4/1000):(\$5/1000) with yerrorlines lw 2 lc i title "stock ".word(files, i), \
     for [i=1:3] "$data/patched-".word(files, i).".dat" using 1:(\$3/1000):(\$4/1000):(\$5/1000) with yerrorlines lw 2 dt 2 lc i title "patched ".word(files, i)
unset multiplot
GP
}
plot "pngcairo" "$dir/compare.png"
plot "svg" "$dir/compare.svg"
