#!/bin/bash
# build-series.sh: every prefix of the series compiles, with CONFIG_SMP=y
# (the rig's config) and with CONFIG_SMP=n. For each prefix it compiles the
# objects of all files the series touches, with -Werror, in a worktree of
# build/src/patched so that the rig's own trees keep their file times.
# Full kernels of the whole series are what `make check` boots.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
patched=$build/src/patched
tree=$build/src/series
die() { echo "build-series: $*" >&2; exit 1; }

[ -d "$patched/.git" ] || die "no $patched (run: make src)"
if [ ! -d "$tree" ]; then
	git -C "$patched" worktree add -q --detach "$tree" base || die "worktree"
fi
objs=$(git -C "$patched" diff --name-only base..HEAD -- '*.c' |
	grep -v '^fs/tests/' | sed 's/\.c$/.o/' | tr '\n' ' ')

configure() {	# configure OUT SMP(y|n)
	local out=$1
	mkdir -p "$out"
	git -C "$tree" checkout -q --detach "$(git -C "$patched" rev-parse HEAD)"
	make -s -C "$tree" O="$out" tinyconfig >/dev/null
	if [ "$2" = y ]; then
		(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
			"$top/config/base.config" "$top/config/patched.config") >/dev/null
	else
		printf 'CONFIG_SMP=n\n' > "$out/up.config"
		(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
			"$top/config/base.config" "$top/config/patched.config" "$out/up.config") >/dev/null
	fi
	make -s -C "$tree" O="$out" olddefconfig >/dev/null
	if [ "$2" = n ] && grep -q '^CONFIG_SMP=y' "$out/.config"; then
		die "could not turn CONFIG_SMP off"
	fi
}

rc=0
for smp in y n; do
	out=$build/series-smp-$smp
	configure "$out" $smp
	for c in $(git -C "$patched" rev-list --reverse base..HEAD); do
		git -C "$tree" checkout -q --detach "$c"
		subject=$(git -C "$tree" log -1 --format=%s)
		# options that earlier prefixes do not know were dropped: again
		"$tree/scripts/config" --file "$out/.config" \
			--enable SEQ_FILE_KUNIT_TEST --enable KUNIT_DEBUGFS
		if make -s -C "$tree" O="$out" -j"$(nproc)" KCFLAGS=-Werror $objs \
			> "$out/build.log" 2>&1; then
			echo "ok CONFIG_SMP=$smp: $subject"
		else
			grep -E 'error|warning' "$out/build.log" | head -n 5
			echo "not ok CONFIG_SMP=$smp: $subject"
			rc=1
		fi
	done
done
exit $rc
