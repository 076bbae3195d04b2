# lib.sh: what the rig's host scripts share (sourced by check.sh,
# compare.sh and build-series.sh): booting runs, and KTAP results.
#   top, build     the project and its build folder (BUILD overrides)
#   rig_arch ...   the architecture (scripts/arch.sh)

. "$(dirname "${BASH_SOURCE[0]}")/arch.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$top/build}

# stage NAME COMMAND...: run COMMAND in this shell as one stage of the
# rig: say what it does, then how long it took, wall clock and CPU time
# (user and system of this shell and of the children it waited for), and
# add a row "NAME<TAB>wall<TAB>cpu<TAB>status" to $STAGES if it is set
# (make check prints them as a table: stage_table). Returns COMMAND's
# exit status.
cpu_ticks() {	# this shell's CPU time and its waited-for children's, in ticks
	local st
	read -r -a st < /proc/$$/stat
	echo $((st[13] + st[14] + st[15] + st[16]))
}
stage() {
	local name=$1 start cpu rc wall ticks
	shift
	start=$(date +%s) cpu=$(cpu_ticks)
	echo "== $name"
	"$@"
	rc=$?
	wall=$(($(date +%s) - start)) ticks=$(($(cpu_ticks) - cpu))
	cpu=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", t / hz }')
	echo "== $name: $([ $rc = 0 ] && echo done || echo "FAILED (exit $rc)") in ${wall}s (CPU ${cpu}s)"
	if [ -n "${STAGES:-}" ]; then
		mkdir -p "$(dirname "$STAGES")"
		printf '%s\t%s\t%s\t%s\n' "$name" "$wall" "$cpu" \
			"$([ $rc = 0 ] && echo done || echo failed)" >> "$STAGES"
	fi
	return $rc
}

# host_proctest: the guest programs built for the host (normalize); on
# another architecture a second build of them (scripts/mkinitramfs.sh)
host_proctest() {
	[ -z "$cross" ] && echo "$build/guest/bin/proctest" || echo "$build/host/bin/proctest"
}

# use_arch ARCH: from here on boot the kernels of another architecture,
# build/ARCH (as make ARCH=... builds them)
use_arch() {
	export RIG_ARCH=$1
	. "$top/scripts/arch.sh"
	export BUILD=$top/build/$1
	build=$BUILD
}

# fit_cpus N...: the vCPU counts N, those above the architecture's
# max_cpus (arch.sh) lowered to it, each count once; says so on stderr
fit_cpus() {
	local n fit=" "
	for n in "$@"; do
		if [ "$n" -gt "$max_cpus" ]; then
			echo "# $rig_arch: $n vCPUs lowered to $max_cpus (arch.sh: max_cpus)" >&2
			n=$max_cpus
		fi
		case "$fit" in *" $n "*) ;; *) fit="$fit$n " ;; esac
	done
	echo $fit
}

# arch_label: "ARCH " in test names, if not x86_64
arch_label() {
	[ "$rig_arch" = x86_64 ] || echo "$rig_arch "
}

# stage_table FILE: the stages of FILE (stage's rows) as "#" lines, with
# their totals, the stock x86 kernel's build time from scratch
# ($top/build/stock/.rig-build-seconds, build-kernel.sh) and the whole
# scaled to the slowest machine of this project's kind seen, whose stock
# build took $slow_build s: CI's budget is 55 minutes there. Exits 0
# within it, 1 over it, 2 if the stock kernel was not built in this run
# (no fresh run to judge).
slow_build=710 budget=3300
stage_table() {
	local stock
	stock=$(cat "$top/build/stock/.rig-build-seconds" 2>/dev/null)
	awk -F '\t' -v stock="${stock:-0}" -v slow=$slow_build -v budget=$budget '
		{ name[NR] = $1; wall[NR] = $2; cpu[NR] = $3; st[NR] = $4; w += $2; c += $3
		  if ($1 == "build stock kernel (x86_64)" && $2 >= stock * 0.8) fresh = 1 }
		END {
			print "# Stages: wall clock and CPU time (user + sys), seconds"
			printf "# %-44s %7s %7s\n", "stage", "wall", "CPU"
			for (i = 1; i <= NR; i++)
				printf "# %-44s %7d %7d%s\n", name[i], wall[i], cpu[i], st[i] == "done" ? "" : "  " st[i]
			printf "# %-44s %7d %7d  (%.1f min)\n", "total", w, c, w / 60
			if (stock <= 0) {
				print "# stock x86 kernel: no build from scratch recorded, no scaled total"
				exit 2
			}
			printf "# stock x86 kernel built from scratch in %d s%s; scaled by %d/%d = %.2f\n",
				stock, fresh ? " (this run)" : " (in an earlier run: this total is no fresh run)", slow, stock, slow / stock
			printf "# scaled total %d s (%.1f min), CI budget %d s (%d min): %s by %.1f min\n",
				w * slow / stock, w * slow / stock / 60, budget, budget / 60,
				w * slow / stock <= budget ? "within" : "OVER", (budget - w * slow / stock) / 60
			exit !fresh ? 2 : w * slow / stock <= budget ? 0 : 1
		}' "$1"
}

# speed_factor: the speed factor of scripts/calibrate.sh (build/speed),
# 1 if not calibrated; scale N: N seconds times it, rounded up.
speed_factor() {
	sed -n 's/^factor=\([0-9.]*\).*/\1/p' "$top/build/speed" 2>/dev/null | grep . || echo 1
}
scale() {
	awk -v n="$1" -v f="$(speed_factor)" 'BEGIN { t = n * f; printf "%d", t == int(t) ? t : int(t) + 1 }'
}

# rig_boot [-t] IMAGE CPUS KERNEL SUITE DIR: one boot (scripts/boot.sh);
# its verdict, console.log, kernel.log and qemu.cmd stay in DIR.
rig_boot() {
	"$top/scripts/boot.sh" "$@" 2>/dev/null
}

# rig_boots MODE CPUS SUITE DIR_PREFIX LABEL...: boot build/KERNEL/boot.img
# for each label (its part before the first '-' names the kernel) into
# DIR_PREFIX$LABEL-CPUS. MODE: par (side by side), seq (one after the
# other), or -t (side by side under -icount: one host core each). par
# becomes seq from a speed factor of 2 on (a slow or busy host, where
# two multi-threaded TCG guests starve each other's vCPUs).
# Returns non-zero if any run failed.
rig_boots() {
	local mode=$1 n=$2 suite=$3 prefix=$4 label rc=0 pids=() t=()
	shift 4
	if [ "$mode" = par ] && awk -v f="$(speed_factor)" 'BEGIN { exit !(f >= 2) }'; then
		mode=seq
	fi
	[ "$mode" = -t ] && t=(-t)
	for label in "$@"; do
		rig_boot "${t[@]}" "$build/${label%%-*}/boot.img" "$n" "${label%%-*}" \
			"$suite" "$prefix$label-$n" &
		pids+=($!)
		if [ "$mode" = seq ]; then wait $! || rc=1; fi
	done
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	return $rc
}

# measure_lines DIR: the "# measure" lines of a run, without the prefix.
measure_lines() {
	tr -d '\r' < "$1/console.log" | sed -n 's/^# measure //p'
}

# KTAP results: ktap_report OK NAME [SKIP-REASON], then ktap_totals.
ktap_nr=0 ktap_passed=0 ktap_failed=0 ktap_skipped=0
ktap_report() {
	ktap_nr=$((ktap_nr + 1))
	if [ -n "${3:-}" ]; then
		ktap_skipped=$((ktap_skipped + 1))
		echo "ok $ktap_nr $2 # SKIP $3"
	elif [ "$1" = 1 ]; then
		ktap_passed=$((ktap_passed + 1))
		echo "ok $ktap_nr $2"
	else
		ktap_failed=$((ktap_failed + 1))
		echo "not ok $ktap_nr $2"
	fi
}

# The plan and the totals; non-zero if anything failed.
ktap_totals() {
	echo "1..$ktap_nr"
	echo "# Totals: pass:$ktap_passed fail:$ktap_failed xfail:0 xpass:0 skip:$ktap_skipped error:0"
	echo "$ktap_passed passed, $ktap_failed failed, $ktap_skipped skipped"
	[ "$ktap_failed" = 0 ]
}
