#!/bin/bash
# checkpatch.pl --strict over every patch of the series; fails on any
# error, warning or check.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=${BUILD:-$top/build}/src/stock
rc=0
while read -r p; do
	[ -n "$p" ] || continue
	if out=$(cd "$src" && perl scripts/checkpatch.pl --strict --quiet "$top/patches/$p" 2>&1); then
		echo "checkpatch: $p: clean"
	else
		echo "$out"
		echo "checkpatch: $p: FAILED"
		rc=1
	fi
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/patches/series")
exit $rc
