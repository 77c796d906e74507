#!/bin/bash
# shot.sh before|after OUT.png ARGS... : `parascope --screenshot OUT.png --size 1280x720 ARGS...` under
# xvfb-run, in the tree of that side (relative inputs are read from it), with empty settings (XDG_CONFIG_HOME
# a new temporary folder unless set). The trees as run for issue 18's shots (README.md):
#   BEFORE_TREE=/work/wt/before (4e6aef3, built in build/b), AFTER_TREE=/work/wt/shots (0afae49, build/a)
side=$1; out=$(realpath -m "$2"); shift 2
case $side in
  before) cd "${BEFORE_TREE:-/work/wt/before}" && bin=$PWD/build/b/app/gui/parascope;;
  after)  cd "${AFTER_TREE:-/work/wt/shots}" && bin=$PWD/build/a/app/gui/parascope;;
esac
export XDG_CONFIG_HOME=${XDG_CONFIG_HOME:-$(mktemp -d)}
xvfb-run -a -s '-screen 0 1280x720x24' "$bin" --screenshot "$out" --size 1280x720 "$@" 2>&1 | grep -v XDG_RUNTIME
