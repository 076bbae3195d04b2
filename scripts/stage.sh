#!/bin/bash
# stage.sh NAME COMMAND...: run one stage of the rig, saying what it does
# and how long it took.
name=$1
shift
start=$(date +%s)
echo "== $name"
"$@"
rc=$?
echo "== $name: $([ $rc = 0 ] && echo done || echo "FAILED (exit $rc)") in $(( $(date +%s) - start ))s"
exit $rc
