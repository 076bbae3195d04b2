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
# only the SMP builds, about half of that). On another architecture
# (make build-series ARCH=...) cross-built, SMP only by default (arm64 and
# pseries have no uniprocessor kernel), and each prefix compiled and
# linked but not booted: a boot under -icount takes that architecture
# minutes (make check ARCH=... boots the whole series). SERIES_BOOT=y or
# n overrides.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

patched=$build/src/patched
tree=$build/src/series
die() { echo "build-series: $*" >&2; exit 1; }

[ -d "$patched/.git" ] || die "no $patched (run: make src)"
if [ ! -d "$tree" ]; then
	git -C "$patched" worktree add -q --detach "$tree" base || die "worktree"
fi
kmake=(make -s -C "$tree")
[ -z "$cross" ] || kmake+=(ARCH="$karch" CROSS_COMPILE="$cross")
image_target=$(basename "$kimage")	# vmlinux, Image, zImage
# the objects of the files the series touches, of this architecture
objs=$(git -C "$patched" diff --name-only base..HEAD -- '*.c' |
	grep -Ev '^fs/tests/|_test\.c$' |
	awk -v own="arch/$karch/" 'index($0, "arch/") != 1 || index($0, own) == 1' |
	sed 's/\.c$/.o/' | tr '\n' ' ')

configure() {	# configure OUT SMP(y|n)
	local out=$1
	mkdir -p "$out"
	git -C "$tree" checkout -q --detach "$(git -C "$patched" rev-parse HEAD)"
	"${kmake[@]}" O="$out" tinyconfig >/dev/null
	if [ "$2" = y ]; then
		(cd "$tree" && ARCH=$karch scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
			"$top/config/base.config" "$top/config/$rig_arch.config" "$top/config/patched.config") >/dev/null
	else
		printf 'CONFIG_SMP=n\n' > "$out/up.config"
		(cd "$tree" && ARCH=$karch scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" \
			"$top/config/base.config" "$top/config/$rig_arch.config" "$top/config/patched.config" "$out/up.config") >/dev/null
	fi
	"${kmake[@]}" O="$out" olddefconfig >/dev/null
	if [ "$2" = n ] && grep -q '^CONFIG_SMP=y' "$out/.config"; then
		die "could not turn CONFIG_SMP off"
	fi
}

results=${RESULTS:-$top/results}/series
mkdir -p "$results"
smps="y n" boot=y
[ "$rig_arch" = x86_64 ] || smps=y boot=n
boot=${SERIES_BOOT:-$boot}
[ "$boot" = n ] || [ -f "$build/initramfs.cpio.gz" ] ||
	die "no initramfs to boot the prefixes with (run: make initramfs ARCH=$rig_arch)"
echo "KTAP version 1"
echo "prefix,subject,file,cpus,bytes,largest_alloc,read_ns" > "$results/series.csv"
for smp in ${SERIES_SMP:-$smps}; do
	out=$build/series-smp-$smp
	configure "$out" $smp
	for c in $(git -C "$patched" rev-list --reverse base..HEAD); do
		git -C "$tree" checkout -q --detach "$c"
		subject=$(git -C "$tree" log -1 --format=%s)
		# options that earlier prefixes do not know were dropped: again
		"$tree/scripts/config" --file "$out/.config" \
			--enable SEQ_FILE_KUNIT_TEST --enable IRQ_PROC_KUNIT_TEST \
			--enable PROC_CPU_TABLES_KUNIT_TEST --enable KUNIT_DEBUGFS
		nr=$(git -C "$patched" rev-list --count base.."$c")
		if [ $smp = y ]; then
			cpus=8 suite=read,measure timing=(-t)
		else
			cpus=1 suite=read timing=()
		fi
		name="CONFIG_SMP=$smp: $subject"
		run=$results/smp-$smp-$nr
		if ! "${kmake[@]}" O="$out" -j"$(nproc)" KCFLAGS=-Werror $objs \
			> "$out/build.log" 2>&1; then
			grep -E 'error|warning' "$out/build.log" | head -n 5 | sed 's/^/# /'
			ktap_report 0 "$name: compiles with -Werror"
		elif ! "${kmake[@]}" O="$out" -j"$(nproc)" $image_target > "$out/build.log" 2>&1; then
			grep -E 'error' "$out/build.log" | head -n 5 | sed 's/^/# /'
			ktap_report 0 "$name: links"
		elif [ "$boot" = n ]; then
			ktap_report 1 "$name: compiles with -Werror, links $image_target"
		elif ! rig_boot "${timing[@]}" "$out/$kimage" "$cpus" "prefix-$nr" "$suite" "$run"; then
			echo "# $(cat "$run/result")"
			ktap_report 0 "$name: boots and reads (cpus=$cpus)"
		else
			ktap_report 1 "$name: builds, boots, reads ($(cat "$run/result"))"
			measure_lines "$run" |
				sed -n "s|^file=\([^ ]*\) cpus=\([0-9]*\) bytes=\([0-9]*\) largest_alloc=\([0-9]*\) .* read_ns=\([0-9]*\) .*|$nr,\"$subject\",\1,\2,\3,\4,\5|p" \
				>> "$results/series.csv"
		fi
	done
done
ktap_totals
