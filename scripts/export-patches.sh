#!/bin/bash
# Turn the commits of build/src/patched since tag "base" into patches/ and
# patches/series. patches/0000-cover-letter.patch is written by hand.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
patched=${BUILD:-$top/build}/src/patched

[ -z "$(git -C "$patched" status --porcelain --untracked-files=no)" ] ||
	{ echo "export-patches: commit your changes in $patched first" >&2; exit 1; }
find "$top/patches" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-cover-letter.patch' -delete
git -C "$patched" format-patch -q --zero-commit --no-signature -o "$top/patches" base..HEAD
(cd "$top/patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-cover-letter.patch$') > "$top/patches/series"
"$top/scripts/prepare-src.sh" --mark-applied
echo "export-patches: $(wc -l < "$top/patches/series") patches in patches/series"
