# lib.sh: what the rig's host scripts share (sourced by check.sh,
# compare.sh and build-series.sh): booting runs, and KTAP results.
#   top, build     the project and its build folder (BUILD overrides)
#   rig_arch ...   the architecture (scripts/arch.sh)

. "$(dirname "${BASH_SOURCE[0]}")/arch.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$top/build}

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

# rig_boot [-t] IMAGE CPUS KERNEL SUITE DIR: one boot (scripts/boot.sh);
# its verdict, console.log, kernel.log and qemu.cmd stay in DIR.
rig_boot() {
	"$top/scripts/boot.sh" "$@" 2>/dev/null
}

# rig_boots MODE CPUS SUITE DIR_PREFIX LABEL...: boot build/KERNEL/boot.img
# for each label (its part before the first '-' names the kernel) into
# DIR_PREFIX$LABEL-CPUS. MODE: par (side by side), seq (one after the
# other), or -t (side by side under -icount: one host core each).
# Returns non-zero if any run failed.
rig_boots() {
	local mode=$1 n=$2 suite=$3 prefix=$4 label rc=0 pids=() t=()
	shift 4
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
