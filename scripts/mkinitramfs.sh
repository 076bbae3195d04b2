#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz
# busybox-static and the static guest programs, packed by the kernel's own
# usr/gen_init_cpio from a spec written here (build/initramfs.spec).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
out=$1
busybox=/bin/busybox
die() { echo "mkinitramfs: $*" >&2; exit 1; }

[ -x "$busybox" ] && file -L "$busybox" | grep -q 'statically linked' ||
	die "$busybox is not a static busybox (run: make deps)"
mkdir -p "$build/guest"
gen=$build/guest/gen_init_cpio
if [ ! -x "$gen" ] || [ "$gen" -ot "$build/src/stock/usr/gen_init_cpio.c" ]; then
	gcc -O2 -o "$gen" "$build/src/stock/usr/gen_init_cpio.c"
fi
make -s -C "$top/guest" O="$build/guest"

spec=$build/initramfs.spec
{
	echo "dir /dev 755 0 0"
	echo "nod /dev/console 600 0 0 c 5 1"
	echo "nod /dev/null 666 0 0 c 1 3"
	for d in /proc /sys /tmp /bin /sbin /usr /usr/bin /usr/sbin; do
		echo "dir $d 755 0 0"
	done
	echo "file /bin/busybox $busybox 755 0 0"
	for applet in $("$busybox" --list-full); do
		[ "/$applet" = /bin/busybox ] || echo "slink /$applet /bin/busybox 777 0 0"
	done
	echo "file /init $top/guest/init 755 0 0"
	for prog in "$build"/guest/bin/*; do
		echo "file /bin/$(basename "$prog") $prog 755 0 0"
	done
} > "$spec"
"$gen" "$spec" | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
