#!/usr/bin/env bash
# A newcomer's machine: a bare Debian 12 (debootstrap --variant=minbase bookworm, plus git), a clone
# of this checkout's HEAD made inside it with its own git, then the newcomer's commands in there.
#   scripts/fresh-debian.sh                   scripts/test, then scripts/run without a display (its PNG
#                                             is copied out; slow: a full build on this machine's cores)
#   scripts/fresh-debian.sh --configure-only  scripts/install-deps.sh, then configure the debian and
#                                             fuzz presets: catches every missing package (.ci/run's stage)
# Needs root (debootstrap, chroot, bind mounts). Uses this machine's configured apt mirror. Keeps the
# base system's tarball and the downloaded .debs in $PARASCOPE_FRESH_CACHE (default
# /var/tmp/parascope-fresh, which survives reboots and CI runs), so later runs skip debootstrap and
# the downloads. /proc, /sys and /dev are bind-mounted into the chroot; they (and the .deb cache)
# are unmounted and checked gone before anything under the chroot is removed.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=full
case "${1:-}" in
  "") ;;
  --configure-only) mode=configure ;;
  *) echo "usage: scripts/fresh-debian.sh [--configure-only]" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: needs root (debootstrap, chroot, mount); run it with sudo" >&2; exit 1; }
cache=${PARASCOPE_FRESH_CACHE:-/var/tmp/parascope-fresh}
root=$cache/root            # the chroot of this run, rebuilt from the tarball every time
base=$cache/bookworm-minbase-git.tar
debs=$cache/debs            # apt's archives, shared by runs
logs=${PARASCOPE_FRESH_LOGS:-$PWD/out/fresh-debian}
mkdir -p "$cache" "$debs" "$logs"
exec 9>"$cache/lock"
flock 9  # one run at a time per cache (two CI runs on one machine wait for each other)
t0=$(date +%s)
say() { echo "fresh-debian: $* ($(( $(date +%s) - t0 )) s)"; }

mounted_under() { awk -v p="$1/" 'index($2, p) == 1 { print $2 }' /proc/mounts; }
unmount_all() {
  local m
  for m in $(mounted_under "$root" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
}
remove_root() {
  unmount_all
  if [ -n "$(mounted_under "$root")" ]; then
    echo "fresh-debian: still mounted under $root, not removing it:" >&2; mounted_under "$root" >&2; exit 1
  fi
  rm -rf --one-file-system "$root"
}
trap unmount_all EXIT

# The configured mirror: where apt on this machine gets bookworm's main packages from.
mirror=$(apt-get indextargets --format '$(SITE) $(RELEASE) $(COMPONENT)' 'Created-By: Packages' |
  awk '$2 == "bookworm" && $3 == "main" { print $1; exit }')
[ -n "$mirror" ] || { echo "fresh-debian: /etc/apt has no bookworm main source to debootstrap from" >&2; exit 1; }

# 1. The base system, once (rebuilt when older than 30 days: its package lists go stale).
if [ ! -s "$base" ] || [ -n "$(find "$base" -mtime +30)" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -q debootstrap >/dev/null
  remove_root
  say "debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$logs/debootstrap.log" 2>&1 ||
    { echo "fresh-debian: debootstrap failed (log: $logs/debootstrap.log)" >&2; exit 1; }
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  chroot "$root" sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends git ca-certificates && apt-get clean' \
    >"$logs/base-git.log" 2>&1 || { echo "fresh-debian: installing git in the base failed (log: $logs/base-git.log)" >&2; exit 1; }
  tar -C "$root" -cf "$base.part" . && mv "$base.part" "$base"
  say "base system cached in $base ($(du -h "$base" | cut -f1))"
fi

# 2. A pristine copy of the base, the .deb cache and the kernel filesystems mounted in.
remove_root
mkdir -p "$root"
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# dpkg as in container images: no fsync per file, no manuals and docs (the packages and their
# dependencies are the same; unpacking ~250 of them took 962 s instead of 114 s on a loaded disk)
printf 'force-unsafe-io\npath-exclude=/usr/share/man/*\npath-exclude=/usr/share/doc/*\n' \
  > "$root/etc/dpkg/dpkg.cfg.d/parascope-fresh"
for m in proc sys dev; do mount --bind "/$m" "$root/$m"; done
mount --bind "$debs" "$root/var/cache/apt/archives"
say "bare bookworm ready in $root"

# 3. The commit (HEAD: uncommitted changes are not in it), cloned inside with the chroot's own git,
# from a bundle: nothing of this checkout is mounted there.
rev=$(git rev-parse HEAD)
git bundle create -q "$root/tmp/parascope.bundle" HEAD
chroot "$root" sh -c "git clone -q /tmp/parascope.bundle /src/parascope && cd /src/parascope && git checkout -q $rev" \
  >"$logs/clone.log" 2>&1 || { echo "fresh-debian: git clone inside failed (log: $logs/clone.log)" >&2; exit 1; }
say "cloned $(git rev-parse --short HEAD) into /src/parascope"

# 4. The newcomer's commands, as root inside (no sudo there), niced: they share the machine.
inside() { chroot "$root" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 nice bash -c "cd /src/parascope && $1"; }
step() {  # step NAME COMMAND: runs it inside, log in $logs/NAME.log, stops loudly on failure
  local ts; ts=$(date +%s)
  if ! inside "$2" >"$logs/$1.log" 2>&1; then
    echo "fresh-debian: '$2' failed on a bare Debian 12 after $(( $(date +%s) - ts )) s; its last lines ($logs/$1.log):" >&2
    tail -n 25 "$logs/$1.log" >&2
    exit 1
  fi
  local last
  last=$(grep -h -o 'Parascope: built.*' "$logs/$1.log" | tail -n 1 || true)  # configure's summary, if any (none: grep fails, pipefail)
  say "$2: ok in $(( $(date +%s) - ts )) s; ${last:-$(tail -n 1 "$logs/$1.log")}"
}
if [ "$mode" = configure ]; then
  step install scripts/install-deps.sh
  step configure-debian "cmake --preset debian"
  step configure-fuzz "cmake --preset fuzz"
  say "a bare Debian 12 installs and configures everything (the debian preset: GUI, SQLite, tests ON; the fuzz preset)"
  exit 0
fi
step test scripts/test
step run "env -u DISPLAY -u WAYLAND_DISPLAY scripts/run"
png=$root/src/parascope/out/first-view.png
[ -s "$png" ] || { echo "fresh-debian: scripts/run rendered no out/first-view.png" >&2; exit 1; }
cp "$png" "$logs/first-view.png"
say "a bare Debian 12 builds, tests and renders: $logs/first-view.png"
