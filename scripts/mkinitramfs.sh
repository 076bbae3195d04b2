#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz
# busybox-static, the static guest programs, the kernel's selftests that
# read these files, the test modules (irq_churn, irq_busy, rig_fault) built for every
# kernel in build/ that has one (stock, patched, debug), and Debian's mpstat, vmstat, top
# and irqbalance with the libraries ldd names; packed by the kernel's own
# usr/gen_init_cpio from a spec written here (build/initramfs.spec).
# For another architecture (RIG_ARCH): the guest programs and modules
# cross-built, busybox from Debian's busybox-static of that architecture
# (downloaded with an apt state of its own in build/ARCH/apt, unpacked with
# dpkg -x), no Debian parsers; and the guest programs built for the host
# too (build/ARCH/host), which check.sh runs to compare texts.
set -euo pipefail
. "$(dirname "$0")/arch.sh"

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=$1
busybox=/bin/busybox
debian_progs=(/usr/bin/mpstat /usr/bin/vmstat /usr/bin/top /usr/sbin/irqbalance)
terminfo=(/lib/terminfo/d/dumb)	# top wants one, and uses "dumb" when not on a tty
kmake=()
die() { echo "mkinitramfs: $*" >&2; exit 1; }

# busybox-static of $debarch from Debian's $suite, with an apt state of its
# own: nothing changes in the host's apt or dpkg
cross_busybox() {
	local apt=$build/apt o
	o=(-q -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	   -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/empty"
	   -o "APT::Architecture=$debarch" -o "APT::Architectures::=$debarch")
	if [ ! -d "$apt/busybox" ]; then
		mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/empty" "$apt/deb"
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" > "$apt/sources.list"
		apt-get "${o[@]}" update >/dev/null || die "apt-get update of $suite for $debarch failed"
		(cd "$apt/deb" && apt-get "${o[@]}" download busybox-static >/dev/null 2>&1) ||
			die "no busybox-static for $debarch in Debian $suite"
		dpkg -x "$apt"/deb/busybox-static_*.deb "$apt/busybox"
	fi
	# /bin/busybox up to bookworm, /usr/bin/busybox from trixie on
	for o in "$apt"/busybox/bin/busybox "$apt"/busybox/usr/bin/busybox; do
		[ ! -f "$o" ] || { echo "$o"; return; }
	done
}

if [ -n "$cross" ]; then
	busybox=$(cross_busybox)
	debian_progs=() terminfo=()
	kmake=(ARCH="$karch" CROSS_COMPILE="$cross")
	make -s -C "$top/guest" O="$build/host" KSRC="$build/src/stock"
fi
[ -x "$busybox" ] && file -L "$busybox" | grep -q "statically linked" ||
	die "$busybox is not a static busybox (run: make deps)"
for p in "${debian_progs[@]}" "${terminfo[@]}"; do
	[ -e "$p" ] || die "$p is missing (run: make deps)"
done
mkdir -p "$build/guest"
gen=$build/guest/gen_init_cpio
if [ ! -x "$gen" ] || [ "$gen" -ot "$build/src/stock/usr/gen_init_cpio.c" ]; then
	gcc -O2 -o "$gen" "$build/src/stock/usr/gen_init_cpio.c"
fi
make -s -C "$top/guest" O="$build/guest" KSRC="$build/src/stock" ${cross:+CC=${cross}gcc}

# The test modules, once per kernel: each must match that kernel's config.
modules=()
for k in stock patched debug; do
	[ -f "$build/$k/Module.symvers" ] || continue
	# a build of older sources, to be built again (build-kernel.sh)
	cmp -s "$build/$k/.rig-kernelversion" "$build/stock/.rig-kernelversion" || continue
	for m in irq_churn irq_busy rig_fault; do
		mod=$build/$k/$m
		mkdir -p "$mod"
		cp -u "$top/guest/$m"/* "$mod/"
		make -s -C "$build/$k" "${kmake[@]}" M="$mod" modules
		modules+=("/lib/modules/$m-$k.ko $mod/$m.ko")
	done
done
[ ${#modules[@]} -gt 0 ] || die "no kernel built in $build (run: make kernels)"

# guest path, host path: Debian's programs, their libraries, terminfo
files=()
for p in "${debian_progs[@]}"; do
	files+=("$p $p")
	for lib in $(ldd "$p" | grep -o '/[^ ]*'); do
		files+=("$lib $(readlink -f "$lib")")
	done
done
for t in "${terminfo[@]}"; do files+=("$t $(readlink -f "$t")"); done
mapfile -t files < <(printf '%s\n' "${files[@]}" "${modules[@]}" | sort -u)

spec=$build/initramfs.spec
{
	echo "dir /dev 755 0 0"
	echo "nod /dev/console 600 0 0 c 5 1"
	echo "nod /dev/null 666 0 0 c 1 3"
	for d in /proc /sys /tmp /run /bin /sbin /usr /usr/bin /usr/sbin \
		 $(printf '%s\n' "${files[@]}" | cut -d' ' -f1 | xargs -n1 dirname | sort -u); do
		p=
		for part in ${d//\// }; do
			p=$p/$part
			echo "dir $p 755 0 0"
		done
	done | awk '!seen[$0]++'
	echo "file /bin/busybox $busybox 755 0 0"
	# the applets of the host's busybox-static (one that does not run
	# here cannot list them): bookworm's, as the guest's but for riscv64,
	# whose trixie busybox has the applets the guest uses too
	for applet in $(/bin/busybox --list-full); do
		case " ${debian_progs[*]} /bin/busybox " in
		*" /$applet "*) ;;	# Debian's program, not the applet
		*) echo "slink /$applet /bin/busybox 777 0 0" ;;
		esac
	done
	echo "file /init $top/guest/init 755 0 0"
	for prog in "$build"/guest/bin/*; do
		echo "file /bin/$(basename "$prog") $prog 755 0 0"
	done
	for f in "${files[@]}"; do
		echo "file $f 755 0 0"
	done
} > "$spec"
"$gen" "$spec" | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
