#!/bin/bash
# boot.sh [-t] IMAGE CPUS KERNEL_NAME SUITE OUTDIR
#   -t  timing run: single-threaded TCG with -icount shift=0,sleep=off, so
#       the guest clock counts instructions and read times repeat
# Boots IMAGE (build/KERNEL/boot.img: vmlinux, ELF with PVH entry, or a
# bzImage) with the rig initramfs, runs the guest suite, and judges the
# run: it passes only on a KTAP "# Totals:" report with no failure, the
# guest's "rig: done rc=0", and no kernel report. The console shows only
# messages up to warning level (loglevel=4); at the end the guest copies
# the whole kernel log, every level, to a second serial port (kernel.log),
# and both are searched for reports (lockdep, KASAN, RCU, might_sleep,
# WARN, BUG, oops, panic, kmemleak). Otherwise it says why: timeout, the
# reports by kind, no report, or the names of the failed tests.
# RIG_APPEND adds to the kernel command line. OUTDIR keeps console.log,
# kernel.log, qemu.cmd and result (and firmware.log above 255 vCPUs).
#   boot.sh --judge OUTDIR  judges the run kept in OUTDIR again, as it is
#                           now (the rig's own test changes a copy)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

judge() {	# judge OUTDIR QEMU_EXIT: prints why the run failed, or nothing
	local out=$1 rc=$2 log=$1/console.log klog=$1/kernel.log con totals found why asked booted
	# Kernel reports by kind: the first line of each kind found.
	local kinds=(
		'panic|Kernel panic'
		'oops|Oops|general protection fault|BUG: unable to handle'
		'KASAN|BUG: KASAN:'
		'might_sleep|BUG: sleeping function called from invalid context|BUG: scheduling while atomic'
		'lockdep|WARNING: possible (circular|recursive) locking|WARNING: inconsistent lock state|WARNING: bad unlock balance|WARNING: held lock freed|BUG: key .* has not been registered|INFO: trying to register non-static key'
		'RCU|WARNING: suspicious RCU usage|rcu: INFO: .*detected stall|detected stalls on CPUs'
		# WARN(): 7.3 prints "WARNING: file.c:53 at func+0x1c/0x40, CPU#0: comm/pid"
		'WARN|WARNING: CPU: |WARNING: at |WARNING: [^ ]+ at .*, CPU#'
		'BUG|BUG: '
		'kmemleak|suspected memory leak'
	)
	# Both logs
	messages() {
		cat "$log" "$klog" 2>/dev/null | tr -d '\r'
	}
	reports() {
		local k seen=" " line found=() msgs
		msgs=$(messages)
		for k in "${kinds[@]}"; do
			line=$(grep -m1 -E "${k#*|}" <<< "$msgs" | sed 's/^\[ *[0-9.]*\] //')
			[ -n "$line" ] || continue
			case "$seen" in *" $line "*) continue ;; esac	# BUG: KASAN is not BUG too
			seen="$seen$line "
			found+=("${k%%|*} ($line)")
		done
		# a report of a kind not listed: its "cut here" line
		if [ ${#found[@]} -eq 0 ] && grep -q 'cut here' <<< "$msgs"; then
			found+=("report ($(grep -m1 -A1 'cut here' <<< "$msgs" | tail -n 1 | sed 's/^\[ *[0-9.]*\] //'))")
		fi
		[ ${#found[@]} -eq 0 ] || { local IFS=';'; echo "${found[*]}"; }
	}
	con=$(tr -d '\r' < "$log")
	totals=$(grep -m1 '^# Totals:' <<< "$con")
	found=$(reports)
	# the CPUs QEMU was given, and those the guest found online
	asked=$(grep -o -- '-smp [0-9]*' "$out/qemu.cmd" 2>/dev/null | cut -d' ' -f2)
	booted=$(sed -n 's/^rig: kernel=.* cpus=\([0-9]*\)$/\1/p' <<< "$con" | head -n 1)
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		why="timeout after ${timeout}s${found:+; kernel reports: $found}"
	elif [ -n "$found" ]; then
		why="kernel reports: $found"
	elif [ -n "$booted" ] && [ -n "$asked" ] && [ "$booted" != "$asked" ]; then
		why="booted $booted of $asked CPUs$(grep -m1 'failed to come online' <<< "$con" | sed 's/^\[ *[0-9.]*\] /: /')"
	elif [ -z "$totals" ]; then
		why="no report (qemu exit $rc, last line: $(grep -v '^$' <<< "$con" | tail -n 1))"
	elif grep -q '^not ok ' <<< "$con"; then
		why="failed: $(grep '^not ok ' <<< "$con" | sed 's/^not ok [0-9]* //' | paste -sd, -)"
	elif ! grep -q '^# Totals: pass:[1-9][0-9]* fail:0 ' <<< "$totals"; then
		why="guest counts failures or no pass: $totals"
	elif ! grep -q '^rig: done rc=0$' <<< "$con"; then
		why="guest did not end well: $(grep -m1 '^rig: done' <<< "$con" || echo 'no "rig: done"')"
	elif ! tr -d '\r' < "$klog" 2>/dev/null | grep -q '^rig: kernel log end$'; then
		why="no kernel log from the guest ($klog)"
	else
		why=""
	fi
	echo "$why"
}

if [ "${1:-}" = --judge ]; then
	[ $# -eq 2 ] || { echo "usage: boot.sh --judge OUTDIR" >&2; exit 2; }
	why=$(judge "$2" 0)
	[ -z "$why" ] && echo pass || echo "fail $why"
	[ -z "$why" ]
	exit
fi

timing=0
if [ "${1:-}" = -t ]; then timing=1; shift; fi
[ $# -eq 5 ] || { echo "usage: boot.sh [-t] IMAGE CPUS KERNEL_NAME SUITE OUTDIR" >&2; exit 2; }
image=$1 cpus=$2 name=$3 suite=$4 out=$5
initrd=$build/initramfs.cpio.gz
# Boot timeout: 240 s, 3 s per vCPU and cpus²/1000 s; above 255 vCPUs
# boots grew faster than the count (512: 674 and 905 s; 1024, booted by
# hand with the CPUs brought online from /init: about 2990 s).
# Both scale with the speed factor of scripts/calibrate.sh (lib.sh:
# speed_factor): a machine that runs the reference loop 3 times slower
# gets 3 times the time.
timeout=$(scale "${BOOT_TIMEOUT:-$((240 + 3 * cpus + cpus * cpus / 1000))}")

[ "$cpus" -ge 1 ] && [ "$cpus" -le 4096 ] || { echo "boot: CPUS must be 1..4096" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out/console.log" "$out/kernel.log" "$out/firmware.log" "$out/result"
not_booted() {	# the verdict of a run that cannot start, in OUTDIR too
	echo "fail 0s not booted: $1" > "$out/result"
	echo "boot: $1" >&2
	exit 2
}
[ -f "$image" ] || not_booted "no kernel $image (make kernels or debug-kernel)"
[ -f "$initrd" ] || not_booted "no initramfs $initrd (make initramfs)"

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
if [ "$rig_arch" = x86_64 ] && [ $timing = 0 ] && [ ! -f "$build/accel" ]; then
	kvm_probe
fi
if [ $timing = 1 ]; then
	accel=(-accel tcg -icount shift=0,sleep=off -cpu qemu64)
elif [ -z "${RIG_NO_KVM:-}" ] && [ "$(cat "$build/accel" 2>/dev/null)" = kvm ]; then
	accel=(-accel kvm -cpu host)
fi

# RCU's stall report comes after rcu_cpu_stall_timeout seconds (21) in
# which a CPU did not pass a quiescent state. Under TCG with KASAN the
# kernel runs some 50 times slower than on hardware: unpacking the
# initramfs on 1 vCPU took 26 s and starved the RCU kthread into a stall
# report. 100 s keeps the check meaningful (2 s of hardware time); times
# the speed factor, at most RCU's own limit of 300 s.
# qboot instead of SeaBIOS: SeaBIOS starts every vCPU itself, which took
# most of a 255-vCPU boot under TCG; qboot's tables stop at 255 CPUs.
# cpuhp.parallel=0: 6.12 and 7.3 bring the secondary CPUs up in parallel, and
# under TCG their waiting on each other made the boots slow: a 255-vCPU
# boot of the check and parsers suites took 415 s (two side by side), one
# CPU after the other 91 s alone and 122 s side by side.
machine=(-machine pc) append=
[ -f /usr/share/qemu/qboot.rom ] && machine+=(-bios /usr/share/qemu/qboot.rom)
# Above 255 vCPUs: APIC ids past 255 need x2APIC and interrupt remapping:
# q35 with intel-iommu (QEMU >= 9 emulates x2APIC under TCG), intel_iommu=on
# and SeaBIOS (qboot's tables stop at 255: at 300 the kernel found an APIC
# ID mismatch and oopsed). Multi-threaded TCG still: with one host thread
# for all vCPUs (thread=single) SeaBIOS started 512 in 45 s, but the
# kernel brought CPUs up ever slower (300 in 2 min, then 361 of 512 after
# 12 min, the online CPUs busy with their ticks). Memory: 2 GiB and 4 MiB
# per vCPU.
# SeaBIOS's own log (I/O port 0x402) goes to firmware.log: one line per
# vCPU it started. tb-size=2048: multi-threaded TCG splits its code
# buffer (by default 1 GiB here, at most 2 GiB) into at least one region
# per vCPU and flushes all translated code when a vCPU finds no free
# region; at 1024 vCPUs the default gave regions of 1 MiB and the kernel
# brought its CPUs up ever slower (407 after 21 minutes, QEMU busy in
# tb_lock_page0 and tcg_flush_jmp_cache), with 2 GiB 427 after 6.
stall=$(scale 100)
[ "$stall" -le 300 ] || stall=300
mem=2048
if [ "$cpus" -gt 255 ]; then
	machine=(-machine q35 -device intel-iommu,intremap=on,eim=on
		 -chardev "file,id=firmware,path=$out/firmware.log"
		 -device isa-debugcon,iobase=0x402,chardev=firmware)
	accel=("${accel[@]/#qemu64/qemu64,+x2apic}")
	accel=("${accel[@]/#tcg,thread=multi/tcg,thread=multi,tb-size=2048}")
	append=" intel_iommu=on"
	mem=$((2048 + 4 * cpus))
fi
cmd=(qemu-system-x86_64 "${machine[@]}" "${accel[@]}" -smp "$cpus" -m "${mem}M"
     -display none -monitor none -serial stdio -serial "file:$out/kernel.log"
     -no-reboot -kernel "$image" -initrd "$initrd"
     -drive "if=none,id=d0,file=$disk,format=raw"
     -device "virtio-blk-pci,drive=d0,num-queues=$queues"
     -append "console=ttyS0 loglevel=4 lpj=4000000 cpu_init_udelay=0 tsc=reliable no_timer_check cpuhp.parallel=0 i8042.noaux i8042.nokbd panic=-1 panic_on_warn=0 oops=panic reboot=t rcupdate.rcu_cpu_stall_timeout=$stall trace_buf_size=64K rig.kernel=$name rig.suite=$suite$append${RIG_APPEND:+ $RIG_APPEND}")

# Other architectures (scripts/arch.sh): TCG only; the kernel log on a
# virtio console (pseries: a second hvc), firmware QEMU's own.
#   arm64    virt with GICv3 (up to 512 vCPUs) and its ITS for MSI-X
#   riscv64  virt with AIA: APLIC and IMSIC (MSI-X), OpenSBI
#   ppc64le  pseries with XIVE, SLOF
#   mips64el loongson3-virt (up to 16 vCPUs), its own boot ROM
# rcu_cpu_stall_suppress_at_boot=1: no RCU stall report before init runs.
# TCG crawls through these kernels' own boot when many vCPUs share the 2
# host cores: arm64's free_initmem() took 0.1 s with 8 vCPUs, 15 s with
# 64, 97 s with 64 and the host busy, and a CI run failed on the stall
# report it made. With reports after 3 s, 2 of 2 busy-host 64-vCPU boots
# reported stalls without it, none with it. Stalls from init on (the
# suites) are reported; the KUnit suites run at boot, and x86's boots
# report stalls in them (generic code, the same on every architecture).
if [ "$rig_arch" != x86_64 ]; then
	accel=(-accel tcg,thread=multi)
	[ $timing = 1 ] && accel=(-accel tcg -icount shift=0,sleep=off)
	klogdev=(-device virtio-serial-pci -chardev "file,id=klog,path=$out/kernel.log"
		 -device virtconsole,chardev=klog)
	case $rig_arch in
	arm64)
		machine=(-machine virt,gic-version=3 -cpu cortex-a57) console=ttyAMA0 ;;
	riscv64)
		machine=(-machine virt,aia=aplic-imsic -cpu rv64) console=ttyS0 ;;
	arm)	# GICv2: up to 8 vCPUs; RAM below 4 GiB (no LPAE)
		machine=(-machine virt,highmem=off -cpu cortex-a15) console=ttyAMA0 ;;
	mips64el)
		machine=(-machine loongson3-virt -cpu Loongson-3A4000) console=ttyS0 ;;
	ppc64le)
		machine=(-machine pseries -cpu power9)
		klogdev=(-chardev "file,id=klog,path=$out/kernel.log" -device spapr-vty,chardev=klog)
		console=hvc0 ;;
	esac
	mem=$(( (2048 + 4 * cpus + 255) / 256 * 256 ))	# pseries: in 256 MiB
	cmd=("$qemu" "${machine[@]}" "${accel[@]}" -smp "$cpus" -m "${mem}M"
	     -display none -monitor none -serial stdio "${klogdev[@]}"
	     -no-reboot -kernel "$image" -initrd "$initrd"
	     -drive "if=none,id=d0,file=$disk,format=raw"
	     -device "virtio-blk-pci,drive=d0,num-queues=$queues"
	     -append "console=$console loglevel=4 cpuhp.parallel=0 panic=-1 panic_on_warn=0 oops=panic rcupdate.rcu_cpu_stall_timeout=$stall rcupdate.rcu_cpu_stall_suppress_at_boot=1 trace_buf_size=64K rig.kernel=$name rig.suite=$suite rig.klog=$klog${RIG_APPEND:+ $RIG_APPEND}")
fi
printf '%q ' "${cmd[@]}" > "$out/qemu.cmd"
echo >> "$out/qemu.cmd"

start=$(date +%s)
timeout --foreground -k 5 "$timeout" "${cmd[@]}" > "$out/console.log" 2>&1 < /dev/null
rc=$?
secs=$(( $(date +%s) - start ))

why=$(judge "$out" $rc)
if [ -z "$why" ]; then
	echo "pass ${secs}s" > "$out/result"
	exit 0
fi
echo "fail ${secs}s $why" > "$out/result"
echo "boot: $name cpus=$cpus suite=$suite: $why (see $out/console.log)" >&2
exit 1
