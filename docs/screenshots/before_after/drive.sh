#!/bin/bash
# drive.sh before|after OUT.png 'ACTIONS' ARGS... : the real window driven by hand. Xvfb 1280x720x24 with the
# openbox window manager, `parascope ARGS...` in the tree of that side with empty settings (as shot.sh), the
# window moved to 0,0 and sized 1280x720, WAIT seconds (default 3) for the load, then ACTIONS (bash, xdotool
# clicks, keys, wheel: `click 4`/`click 5`) are run and the whole screen is grabbed with ImageMagick's import.
side=$1; out=$(realpath -m "$2"); actions=$3; shift 3
case $side in
  before) cd "${BEFORE_TREE:-/work/wt/before}" && bin=$PWD/build/b/app/gui/parascope;;
  after)  cd "${AFTER_TREE:-/work/wt/shots}" && bin=$PWD/build/a/app/gui/parascope;;
esac
export XDG_CONFIG_HOME=${XDG_CONFIG_HOME:-$(mktemp -d)}
disp=:${DISP:-77}
Xvfb $disp -screen 0 1280x720x24 -nolisten tcp >/dev/null 2>&1 & xpid=$!
sleep 1; export DISPLAY=$disp
openbox >/dev/null 2>&1 & wpid=$!
sleep 1
"$bin" "$@" >/tmp/drive_app.log 2>&1 & apid=$!
for i in $(seq 1 60); do w=$(xdotool search --onlyvisible --class parascope 2>/dev/null | head -1); [ -n "$w" ] && break; sleep 0.5; done
xdotool windowmove $w 0 0 windowsize $w 1280 720 2>/dev/null; sleep ${WAIT:-3}
eval "$actions"
sleep 1
import -window root "$out"
kill $apid 2>/dev/null; sleep 0.5; kill $wpid $xpid; wait 2>/dev/null
echo "$out"
