#!/bin/bash
# stage.sh NAME COMMAND...: run one stage of the rig, saying what it does
# and how long it took, wall clock and CPU (lib.sh: stage).
. "$(dirname "$0")/lib.sh"
stage "$@"
