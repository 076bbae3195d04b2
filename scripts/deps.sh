#!/bin/bash
# Install with apt-get what the rig needs, only if something is missing.
set -euo pipefail

# perl for checkpatch.pl comes with build-essential; sysstat, procps and
# irqbalance are the parsers run in the guest; gnuplot draws the plot
pkgs=(linux-source-6.12 qemu-system-x86 busybox-static build-essential
      flex bison bc libelf-dev libssl-dev cpio xz-utils file git
      sysstat procps irqbalance ncurses-base gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" = 0 ] || { echo "deps: missing ${missing[*]}; run make deps as root" >&2; exit 1; }
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
