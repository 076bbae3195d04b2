# Reduce /proc text to its shape, so that two boots in the same state
# compare equal although their counters differ: a number right-aligned in
# a column (two or more spaces before it) becomes <width of spaces and
# digits>, any other number becomes N. With -v padded=0 (for files
# without columns, such as /proc/stat) every number becomes N.
BEGIN {
	if (padded == "")
		padded = 1
}
{
	out = ""
	s = $0
	while (match(s, / *[0-9]+/)) {
		m = substr(s, RSTART, RLENGTH)
		if (padded && m ~ /^  /) {
			tok = "<" RLENGTH ">"
		} else {
			tok = m
			sub(/[0-9]+$/, "N", tok)
		}
		out = out substr(s, 1, RSTART - 1) tok
		s = substr(s, RSTART + RLENGTH)
	}
	print out s
}
