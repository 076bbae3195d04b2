#!/bin/bash
# build-kernel.sh SRC OUT FRAGMENT...
# tinyconfig + fragments (merge_config.sh), checked, then vmlinux and
# modules (Module.symvers, for the rig's test module) in OUT, and OUT/boot.img,
# the image QEMU boots: on x86 vmlinux through its PVH entry, or for a KASAN
# kernel, whose PVH entry resets the guest before it prints anything, the
# bzImage; on other architectures (RIG_ARCH, cross-built with Debian's
# cross compilers) the image of scripts/arch.sh.
# The configuration is regenerated only when the fragments change.
#
# build-kernel.sh --seed SEED SRC OUT FRAGMENT...: where OUT has no build
# yet, start it from a copy of SEED, a build of the git tree SRC's tag
# "base" (the stock kernel), so that only what SRC changes since "base"
# and what includes it is compiled again: the source paths in the copy's
# text files (Kbuild's .cmd and .d files, its Makefile) become SRC's, and
# every target whose .cmd file names a file SRC changes since "base" is
# removed, so make builds it again. The sources keep their times: the
# builds of SRC for other architectures or configurations stay as they
# are. A build from scratch writes its wall time in seconds to
# OUT/.rig-build-seconds (make check's stage table scales by it).
set -euo pipefail
. "$(dirname "$0")/arch.sh"

seed=
if [ "${1:-}" = --seed ]; then seed=$2; shift 2; fi
src=$1 out=$2
shift 2
die() { echo "build-kernel: $*" >&2; exit 1; }
start=$(date +%s)

# A build of other sources (another Debian kernel version) starts over:
# the sources keep their tarball's times, older than its objects.
version=$(sed -n 's/^\(VERSION\|PATCHLEVEL\|SUBLEVEL\) = //p' "$src/Makefile" | paste -sd.)
if [ -f "$out/.config" ] && [ "$(cat "$out/.rig-kernelversion" 2>/dev/null)" != "$version" ]; then
	echo "build-kernel: $out was built from other sources than $version; starting over"
	rm -rf "$out"
fi

scratch=
if [ ! -f "$out/.config" ]; then
	scratch=1
	if [ -n "$seed" ] && [ -f "$seed/vmlinux" ]; then
		scratch=
		seed_src=$(readlink -f "$seed/source")
		new_src=$(readlink -f "$src")
		echo "build-kernel: $out starts from $seed, the sources changed since base compiled again"
		rm -rf "$out"
		cp -a "$seed" "$out"
		rm -f "$out/.rig-build-seconds"
		grep -rlIZ -F "$seed_src" "$out" | xargs -0 -r sed -i "s|$seed_src|$new_src|g"
		ln -sfn "$new_src" "$out/source"
		# kernel/irq/.proc.o.cmd names the sources of kernel/irq/proc.o
		git -C "$src" diff --name-only base -- | sed "s|^|$new_src/|" > "$out/.rig-seed-changed"
		grep -rlF --include='*.cmd' -f "$out/.rig-seed-changed" "$out" |
			sed 's|/\.\([^/]*\)\.cmd$|/\1|' | xargs -r rm -f
	fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
kmake=(make -s -C "$src" O="$out")
if [ -n "$cross" ]; then
	command -v "${cross}gcc" >/dev/null || die "no ${cross}gcc (run: make deps ARCH=$rig_arch)"
	kmake+=(ARCH="$karch" CROSS_COMPILE="$cross")
fi
frags=()
for f in "$@"; do frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done

stamp=$out/.rig-fragments
if ! cmp -s <(cat "${frags[@]}") "$stamp" 2>/dev/null || [ ! -f "$out/.config" ]; then
	"${kmake[@]}" tinyconfig >/dev/null
	(cd "$src" && ARCH=$karch scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frags[@]}") >/dev/null
	"${kmake[@]}" olddefconfig >/dev/null
	missing=()
	while read -r line; do
		case "$line" in
		CONFIG_*=n) opt=${line%%=*}
			grep -q "^$opt=" "$out/.config" && missing+=("$line (is set)") ;;
		CONFIG_*=*) grep -qxF "$line" "$out/.config" || missing+=("$line (got: $(grep "^${line%%=*}=" "$out/.config" || echo unset))") ;;
		esac
	done < <(cat "${frags[@]}" | sed 's/#.*//')
	[ ${#missing[@]} -eq 0 ] || die "options missing from final .config in $out: ${missing[*]}"
	cat "${frags[@]}" > "$stamp"
fi
targets=(vmlinux modules) image=$kimage
if [ "$rig_arch" = x86_64 ] && grep -q '^CONFIG_KASAN=y' "$out/.config"; then
	image=arch/x86/boot/bzImage
fi
[ "$image" = vmlinux ] || targets+=("$(basename "$image")")
"${kmake[@]}" -j"$(nproc)" "${targets[@]}"
ln -sfn "$image" "$out/boot.img"
echo "$version" > "$out/.rig-kernelversion"
[ -z "$scratch" ] || echo $(($(date +%s) - start)) > "$out/.rig-build-seconds"
