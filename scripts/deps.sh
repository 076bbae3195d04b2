#!/bin/bash
# Install with apt-get what the rig needs, only if something is missing.
set -euo pipefail
. "$(dirname "$0")/arch.sh"

# perl for checkpatch.pl comes with build-essential; sysstat, procps and
# irqbalance are the parsers run in the guest; gnuplot draws the plot
pkgs=(busybox-static build-essential
      flex bison bc libelf-dev libssl-dev cpio xz-utils file git
      sysstat procps irqbalance ncurses-base gnuplot-nox)
# QEMU 10 from bookworm-backports: its TCG emulates x2APIC, which booting
# more than 255 vCPUs needs (bookworm's QEMU 7.2 stops at 255)
backports=(qemu-system-x86)
# Another architecture (RIG_ARCH): Debian's cross compiler and C library
# (the static guest programs), and QEMU 10 for it from bookworm-backports
case $rig_arch in
arm64|arm) backports+=(qemu-system-arm) ;;
riscv64) backports+=(qemu-system-misc) ;;
ppc64le) backports+=(qemu-system-ppc) ;;
mips64el) backports+=(qemu-system-mips) ;;
esac
[ -z "$cross" ] || pkgs+=("gcc-${cross%-}" "libc6-dev-$debarch-cross")
qemu_major=10
sources=/etc/apt/sources.list.d/bookworm-backports.sources

# The kernel: Debian's linux-source-7.3 from trixie-backports, an "all"
# package of the tarball, fetched with an apt state of its own in build/
# (nothing from trixie is installed) and unpacked there with dpkg -x.
top=$(cd "$(dirname "$0")/.." && pwd)
debian=$top/build/debian
source_pkg=linux-source-7.3
source_suite=trixie-backports
fetch_source() {
	local apt=$debian/apt o deb
	[ ! -f "$debian/$source_pkg.tar.xz" ] || return 0
	o=(-q -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	   -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/empty")
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/empty" "$apt/deb"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $source_suite main" > "$apt/sources.list"
	echo "deps: fetching $source_pkg from $source_suite into $debian"
	apt-get "${o[@]}" update >/dev/null || { echo "deps: apt-get update of $source_suite failed" >&2; exit 1; }
	rm -f "$apt"/deb/*.deb
	(cd "$apt/deb" && apt-get "${o[@]}" download "$source_pkg" >"$apt/download.log" 2>&1) ||
		{ cat "$apt/download.log" >&2; echo "deps: no $source_pkg in Debian $source_suite" >&2; exit 1; }
	deb=$(ls "$apt"/deb/"${source_pkg}"_*.deb)
	rm -rf "$apt/pkg"
	dpkg -x "$deb" "$apt/pkg"
	dpkg-deb -f "$deb" Version > "$debian/$source_pkg.version"
	mv "$apt/pkg/usr/src/$source_pkg.tar.xz" "$debian/$source_pkg.tar.xz"
	rm -rf "$apt/pkg" "$deb"
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
qemu_ok() {
	local v
	v=$("$qemu" --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	[ -n "$v" ] && [ "$v" -ge $qemu_major ]
}
[ ${#missing[@]} -eq 0 ] && qemu_ok && { fetch_source; exit 0; }
[ "$(id -u)" = 0 ] || { echo "deps: missing ${missing[*]} ${backports[*]} (QEMU >= $qemu_major); run make deps as root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
if ! qemu_ok && [ ! -f $sources ]; then
	echo "deps: adding bookworm-backports ($sources)"
	cat > $sources <<SRC
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
apt-get update -q
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if ! qemu_ok; then
	echo "deps: installing ${backports[*]} from bookworm-backports"
	apt-get install -y -q --no-install-recommends -t bookworm-backports "${backports[@]}"
	qemu_ok || { echo "deps: $("$qemu" --version | head -n 1): need QEMU >= $qemu_major" >&2; exit 1; }
fi
fetch_source
