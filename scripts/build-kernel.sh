#!/bin/bash
# build-kernel.sh SRC OUT FRAGMENT...
# tinyconfig + fragments (merge_config.sh), checked, then vmlinux and
# modules (Module.symvers, for the rig's test module) in OUT, and OUT/boot.img,
# the image QEMU boots: vmlinux through its PVH entry, or for a KASAN kernel,
# whose PVH entry resets the guest before it prints anything, the bzImage.
# The configuration is regenerated only when the fragments change.
set -euo pipefail

src=$1 out=$2
shift 2
die() { echo "build-kernel: $*" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
frags=()
for f in "$@"; do frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done

stamp=$out/.rig-fragments
if ! cmp -s <(cat "${frags[@]}") "$stamp" 2>/dev/null || [ ! -f "$out/.config" ]; then
	make -s -C "$src" O="$out" tinyconfig >/dev/null
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "${frags[@]}") >/dev/null
	make -s -C "$src" O="$out" olddefconfig >/dev/null
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
targets=(vmlinux modules) image=vmlinux
if grep -q '^CONFIG_KASAN=y' "$out/.config"; then
	targets+=(bzImage) image=arch/x86/boot/bzImage
fi
make -s -C "$src" O="$out" -j"$(nproc)" "${targets[@]}"
ln -sfn "$image" "$out/boot.img"
