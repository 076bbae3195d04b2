#!/bin/bash
# calibrate.sh: how fast this machine runs now, against the machine the
# rig's boot timeouts were measured on; written to build/speed (one file
# for every architecture: the speed is the machine's) as
#   factor=F ms=M
# F = M / 1250, at least 1: M is the wall time in ms of a fixed awk loop
# run once on every host core at the same time (1250 ms on a machine of
# this project's kind that builds the stock x86 kernel in 325 s, idle).
# A slower machine, or other work on this one, makes F larger. boot.sh
# multiplies its boot timeout and RCU's stall timeout by F, and lib.sh
# boots one kernel at a time instead of two from F = 2 on.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ref_ms=1250
mkdir -p "$top/build"
start=$(date +%s%N)
for ((c = 0; c < $(nproc); c++)); do
	awk 'BEGIN { for (i = 0; i < 20000000; i++) s += i % 7; print s > "/dev/null" }' &
done
wait
ms=$((($(date +%s%N) - start) / 1000000))
factor=$(awk -v m="$ms" -v r="$ref_ms" 'BEGIN { f = m / r; printf "%.2f", f < 1 ? 1 : f }')
echo "factor=$factor ms=$ms" > "$top/build/speed"
echo "calibrate: $ms ms for the reference loop on $(nproc) cores ($ref_ms ms on the reference machine, idle): speed factor $factor (boot and RCU stall timeouts x$factor$(awk -v f="$factor" 'BEGIN { if (f >= 2) printf ", one boot at a time" }'))"
