#!/bin/bash
# Lay out the kernel sources outside the tracked tree:
#   build/src/stock    Debian's linux-source-7.3, extracted and never touched
#   build/src/patched  a git tree of the same source, tag "base", with
#                      patches/series applied on top by git am
# Re-applies the series only when a patch file changed, so an unchanged
# series keeps file times and the patched build stays incremental.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
tarball=${LINUX_TARBALL:-$build/debian/linux-source-7.3.tar.xz}
stock=$build/src/stock
patched=$build/src/patched
series=$top/patches/series

die() { echo "prepare-src: $*" >&2; exit 1; }

[ -f "$tarball" ] || die "missing $tarball (run: make deps)"
mkdir -p "$build/src"

version=$(cat "${tarball%.tar.xz}.version" 2>/dev/null || echo unknown)
if [ -f "$stock/.extracted" ] && [ "$(cat "$stock/.extracted")" != "$tarball $version" ]; then
	echo "prepare-src: $stock is not $tarball $version; extracting again"
	rm -rf "$stock" "$patched" "$build/src/patched.series"
fi
if [ ! -f "$stock/.extracted" ]; then
	echo "prepare-src: extracting $tarball"
	rm -rf "$stock" "$build/src/tmp"
	mkdir -p "$build/src/tmp"
	tar -C "$build/src/tmp" -xf "$tarball"
	mv "$build/src/tmp"/linux-source-* "$stock"
	rmdir "$build/src/tmp"
	echo "$tarball $version" > "$stock/.extracted"
fi

git_p() { git -C "$patched" -c user.name=rig -c user.email=rig@localhost "$@"; }

if ! git_p rev-parse -q --verify base >/dev/null 2>&1; then
	echo "prepare-src: creating git tree $patched"
	rm -rf "$patched"
	cp -a "$stock" "$patched"
	rm -f "$patched/.extracted"
	# Debian's top-level .gitignore ignores everything but debian/, which
	# would keep new files of a patch out of its commit: use the kernel's
	# own rules only.
	sed -i '/^# Debian packaging/,$d' "$patched/.gitignore"
	git_p init -q
	# Debian's top-level .gitignore ignores everything: add by force
	git_p add -A -f .
	git_p commit -q -m "Debian linux-source-7.3 $version"
	git_p tag base
fi

patch_list() {
	[ -f "$series" ] || return 0
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$series"
}

want=$( (cat "$series" 2>/dev/null; patch_list | while read -r p; do cat "$top/patches/$p"; done) | sha256sum | cut -d' ' -f1)
# export-patches made patches/ from the tree: it is applied already
if [ "${1:-}" = --mark-applied ]; then
	echo "$want" > "$build/src/patched.series"
	exit 0
fi
have=$(cat "$build/src/patched.series" 2>/dev/null || true)
if [ "$want" = "$have" ]; then
	exit 0
fi

if [ -n "$(git_p status --porcelain --untracked-files=no)" ]; then
	die "$patched has uncommitted changes; commit them and run 'make export-patches', or discard them"
fi

echo "prepare-src: applying patches/series to $patched"
git_p am --abort >/dev/null 2>&1 || true
git_p reset -q --hard base
n=0
while read -r p; do
	[ -f "$top/patches/$p" ] || die "patches/series names $p, which does not exist"
	if ! git_p am -q --keep-cr "$top/patches/$p" >/dev/null 2>"$build/src/am.log"; then
		cat "$build/src/am.log" >&2
		git_p am --abort >/dev/null 2>&1 || true
		die "patch $p does not apply"
	fi
	n=$((n + 1))
done < <(patch_list)
echo "prepare-src: applied $n patches"
echo "$want" > "$build/src/patched.series"
