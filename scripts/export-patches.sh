#!/bin/bash
# Turn the commits of build/src/patched since tag "base" into patches/ and
# patches/series (the maintainer loop: commit there, export here), then
# write the series ready to mail into build/mail/: git format-patch
# --cover-letter --base, each patch addressed to what the tree's
# scripts/get_maintainer.pl names for it (To: maintainers, Cc: reviewers
# and lists; To: the lists where a file has no maintainer), the cover letter's body from patches/cover-letter.txt and
# addressed to all of them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
patched=${BUILD:-$top/build}/src/patched
mail=${BUILD:-$top/build}/mail
cover=$top/patches/cover-letter.txt

[ -z "$(git -C "$patched" status --porcelain --untracked-files=no)" ] ||
	{ echo "export-patches: commit your changes in $patched first" >&2; exit 1; }
find "$top/patches" -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
git -C "$patched" format-patch -q --zero-commit --no-signature -o "$top/patches" base..HEAD
(cd "$top/patches" && ls [0-9][0-9][0-9][0-9]-*.patch) > "$top/patches/series"
"$top/scripts/prepare-src.sh" --mark-applied
echo "export-patches: $(wc -l < "$top/patches/series") patches in patches/series"

# The series to mail
rm -rf "$mail"
git -C "$patched" format-patch -q --cover-letter --base=base --no-signature \
	--subject-prefix=PATCH -o "$mail" base..HEAD
maint() {	# maint OPTIONS... PATCH: addresses, one line, comma separated
	(cd "$patched" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --separator ', ' "$@")
}
# minus LIST1 LIST2: the addresses of LIST1 that LIST2 has not
minus() {
	printf '%s\n' "$1" | tr ',' '\n' | sed 's/^ *//; /^$/d' |
		grep -vxF -f <(printf '%s\n' "$2" | tr ',' '\n' | sed 's/^ *//; /^$/d') |
		paste -sd, | sed 's/,/, /g' || true
}
all_to=() all_cc=()
for p in "$mail"/[0-9][0-9][0-9][0-9]-*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	to=$(maint --m --nor --nol "$p") cc=$(maint --nom --r --l "$p")
	# no maintainer (fs/proc has reviewers and lists only): to the lists
	if [ -z "$to" ]; then
		to=$(maint --nom --nor --l "$p") cc=$(maint --nom --r --nol "$p")
	fi
	[ -n "$to" ] || { echo "export-patches: get_maintainer.pl names nobody for $(basename "$p")" >&2; exit 1; }
	cc=$(minus "$cc" "$to")
	# the headers go after the From: header
	awk -v to="$to" -v cc="$cc" '!done && /^Subject: / { print "To: " to; if (cc != "") print "Cc: " cc; done = 1 } { print }' \
		"$p" > "$p.tmp" && mv "$p.tmp" "$p"
	all_to+=("$to") all_cc+=("$cc")
done
join() { tr ',' '\n' | sed 's/^ *//; /^$/d' | awk '!seen[$0]++' | paste -sd, | sed 's/,/, /g'; }
to=$(printf '%s\n' "${all_to[@]}" | join)
cc=$(minus "$(printf '%s\n' "${all_cc[@]}" | join)" "$to")
c=$mail/0000-cover-letter.patch
[ -f "$cover" ] || { echo "export-patches: no $cover" >&2; exit 1; }
subject=$(head -n 1 "$cover")
awk -v to="$to" -v cc="$cc" -v subject="$subject" -v body="$cover" '
	/^Subject: / { print "To: " to; if (cc != "") print "Cc: " cc
		sub(/\*\*\* SUBJECT HERE \*\*\*/, subject); print; next }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline line < body) > 0) if (n++ >= 2) print line; next }
	{ print }' "$c" > "$c.tmp" && mv "$c.tmp" "$c"
echo "export-patches: $(ls "$mail" | wc -l) mails in $mail (cover letter To: $to)"
