#!/bin/bash
# build-series.sh: every prefix of the series builds and boots, with
# CONFIG_SMP=y (the rig's config) and with CONFIG_SMP=n. For each prefix it
# compiles the objects of all files the series touches with -Werror, links
# vmlinux, and boots it with the guest's "read" suite: the three files read
# whole, with every read size and pread(), rows as wide as the header. With
# SMP the boot has 8 vCPUs under -icount and also runs "measure", so every
# prefix has its read times on the instruction clock (series.csv); without
# SMP, 1 vCPU. It works in a worktree of build/src/patched, so the rig's own
# trees keep their file times; about 50 minutes on 2 cores (SERIES_SMP=y:
# only the SMP builds, about half of that).
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
	grep -Ev '^fs/tests/|_test\.c$' | sed 's/\.c$/.o/' | tr '\n' ' ')

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

results=${RESULTS:-$top/results}/series
mkdir -p "$results"
[ -f "$build/initramfs.cpio.gz" ] || die "no initramfs (run: make initramfs)"
echo "KTAP version 1"
echo "prefix,subject,file,cpus,bytes,largest_alloc,read_ns" > "$results/series.csv"
rc=0 nr=0
for smp in ${SERIES_SMP:-y n}; do
	out=$build/series-smp-$smp
	configure "$out" $smp
	for c in $(git -C "$patched" rev-list --reverse base..HEAD); do
		git -C "$tree" checkout -q --detach "$c"
		subject=$(git -C "$tree" log -1 --format=%s)
		# options that earlier prefixes do not know were dropped: again
		"$tree/scripts/config" --file "$out/.config" \
			--enable SEQ_FILE_KUNIT_TEST --enable IRQ_PROC_KUNIT_TEST \
			--enable PROC_CPU_TABLES_KUNIT_TEST --enable KUNIT_DEBUGFS
		nr=$((nr + 1))
		if [ $smp = y ]; then
			cpus=8 suite=read,measure timing=-t
		else
			cpus=1 suite=read timing=
		fi
		if ! make -s -C "$tree" O="$out" -j"$(nproc)" KCFLAGS=-Werror $objs \
			> "$out/build.log" 2>&1; then
			grep -E 'error|warning' "$out/build.log" | head -n 5
			echo "not ok $nr CONFIG_SMP=$smp: $subject: compiles with -Werror"
			rc=1
		elif ! make -s -C "$tree" O="$out" -j"$(nproc)" vmlinux > "$out/build.log" 2>&1; then
			grep -E 'error' "$out/build.log" | head -n 5
			echo "not ok $nr CONFIG_SMP=$smp: $subject: links"
			rc=1
		elif ! "$top/scripts/boot.sh" $timing "$out/vmlinux" "$cpus" "prefix-$nr" \
			"$suite" "$results/smp-$smp-$nr" 2>/dev/null; then
			echo "# $(cat "$results/smp-$smp-$nr/result")"
			echo "not ok $nr CONFIG_SMP=$smp: $subject: boots and reads (cpus=$cpus)"
			rc=1
		else
			echo "ok $nr CONFIG_SMP=$smp: $subject: builds, boots, reads ($(cat "$results/smp-$smp-$nr/result"))"
			tr -d '\r' < "$results/smp-$smp-$nr/console.log" | grep '^# measure ' |
				sed -n "s|^# measure file=\([^ ]*\) cpus=\([0-9]*\) bytes=\([0-9]*\) largest_alloc=\([0-9]*\) .* read_ns=\([0-9]*\) .*|$nr,\"$subject\",\1,\2,\3,\4,\5|p" \
				>> "$results/series.csv"
		fi
	done
done
echo "1..$nr"
exit $rc
