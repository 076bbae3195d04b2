#!/bin/bash
# boot.sh [-t] IMAGE CPUS KERNEL_NAME SUITE OUTDIR
#   -t  timing run: single-threaded TCG with -icount shift=0,sleep=off, so
#       the guest clock counts instructions and read times repeat
# Boots IMAGE (build/KERNEL/boot.img: vmlinux, ELF with PVH entry, or a
# bzImage) with the rig initramfs, runs the guest
# suite, and judges the run from the serial console: it passes only on a
# KTAP "# Totals:" report with no failure. Otherwise it says why: timeout,
# a kernel splat (panic, oops, BUG, WARNING, kmemleak), no report, or the
# names of the failed tests. OUTDIR keeps console.log, qemu.cmd and result.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
timing=0
if [ "${1:-}" = -t ]; then timing=1; shift; fi
[ $# -eq 5 ] || { echo "usage: boot.sh [-t] IMAGE CPUS KERNEL_NAME SUITE OUTDIR" >&2; exit 2; }
image=$1 cpus=$2 name=$3 suite=$4 out=$5
initrd=$build/initramfs.cpio.gz
timeout=${BOOT_TIMEOUT:-$((240 + 3 * cpus))}

[ -f "$image" ] || { echo "boot: no kernel $image" >&2; exit 2; }
[ -f "$initrd" ] || { echo "boot: no initramfs $initrd" >&2; exit 2; }
[ "$cpus" -ge 1 ] && [ "$cpus" -le 255 ] || { echo "boot: CPUS must be 1..255" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out/console.log" "$out/result"

# Each run has its own disk, so that runs can go in parallel.
disk=$out/disk.img
truncate -s 1M "$disk"
queues=$((cpus < 64 ? cpus : 64))

# KVM is only used when a probe boot succeeded with it on this machine
# (nested KVM here exists but dies on emulation errors during boot).
# pc and qemu64: with q35 and -cpu max, ACPI set-up of 255 vCPUs under TCG
# took minutes; lpj= skips the delay calibration of every secondary CPU.
kvm_probe() {
	local dir=$build/kvm-probe
	echo tcg > "$build/accel"
	[ -w /dev/kvm ] || return 0
	mkdir -p "$dir"
	truncate -s 1M "$dir/disk.img"
	timeout -k 5 60 qemu-system-x86_64 -machine pc -accel kvm -cpu host -smp 2 -m 512M \
		-display none -monitor none -serial stdio -no-reboot \
		-kernel "$image" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 reboot=t rig.suite=probe" \
		> "$dir/console.log" 2>&1 < /dev/null
	if grep -q '^ok 1 probe' "$dir/console.log"; then
		echo kvm > "$build/accel"
	fi
	echo "boot: KVM probe: using $(cat "$build/accel") (see $dir/console.log)" >&2
}

accel=(-accel tcg,thread=multi -cpu qemu64)
if [ $timing = 0 ] && [ ! -f "$build/accel" ]; then
	kvm_probe
fi
if [ $timing = 1 ]; then
	accel=(-accel tcg -icount shift=0,sleep=off -cpu qemu64)
elif [ -z "${RIG_NO_KVM:-}" ] && [ "$(cat "$build/accel" 2>/dev/null)" = kvm ]; then
	accel=(-accel kvm -cpu host)
fi

cmd=(qemu-system-x86_64 -machine pc "${accel[@]}" -smp "$cpus" -m 2G
     -display none -monitor none -serial stdio -no-reboot
     -kernel "$image" -initrd "$initrd"
     -drive "if=none,id=d0,file=$disk,format=raw"
     -device "virtio-blk-pci,drive=d0,num-queues=$queues"
     -append "console=ttyS0 loglevel=4 lpj=4000000 cpu_init_udelay=0 tsc=reliable no_timer_check i8042.noaux i8042.nokbd panic=-1 panic_on_warn=1 oops=panic reboot=t trace_buf_size=64K rig.kernel=$name rig.suite=$suite")
printf '%q ' "${cmd[@]}" > "$out/qemu.cmd"
echo >> "$out/qemu.cmd"

start=$(date +%s)
timeout --foreground -k 5 "$timeout" "${cmd[@]}" > "$out/console.log" 2>&1 < /dev/null
rc=$?
secs=$(( $(date +%s) - start ))

log=$out/console.log
# what the kernel prints when something is wrong: panics, oopses, WARN(),
# lockdep, KASAN and might_sleep() reports (BUG:/WARNING:), kmemleak
splat='Kernel panic|BUG:|Oops|WARNING:|suspected memory leak'
if [ $rc = 124 ] || [ $rc = 137 ]; then
	why="timeout after ${timeout}s"
elif grep -qE "$splat" "$log"; then
	why="kernel splat: $(grep -m1 -E "$splat" "$log" | tr -d '\r')"
elif ! grep -q '^# Totals:' "$log"; then
	why="no report (qemu exit $rc, last line: $(tr -d '\r' < "$log" | grep -v '^$' | tail -n 1))"
elif grep -q '^not ok ' "$log"; then
	why="failed: $(grep '^not ok ' "$log" | tr -d '\r' | sed 's/^not ok [0-9]* //' | paste -sd, -)"
elif ! grep -q '^ok ' "$log"; then
	why="no test ran"
else
	why=""
fi
if [ -z "$why" ]; then
	echo "pass ${secs}s" > "$out/result"
	exit 0
fi
echo "fail ${secs}s $why" > "$out/result"
echo "boot: $name cpus=$cpus suite=$suite: $why (see $log)" >&2
exit 1
