#!/bin/sh
# Stops and removes the services and the code that install.sh installed.
#
#   sudo ./uninstall.sh [--purge]   --purge also removes /etc/NAME, /var/lib/NAME (the
#                                   database!) and the system user
#   ./uninstall.sh --root DIR ...   dry run under DIR: prints the commands instead of running them
set -eu

here=$(cd "$(dirname "$0")" && pwd)
name=$(sed -n 's/^name=//p' "$here/BUILD")
[ -n "$name" ] || { echo "uninstall.sh: no name in $here/BUILD" >&2; exit 1; }
root=""
purge=0
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=${2:?--root needs a directory}; shift ;;
    --root=*) root=${1#--root=} ;;
    --purge) purge=1 ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "uninstall.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
act() { if [ -n "$root" ]; then echo "would run: $*"; else "$@"; fi; }
if [ -z "$root" ] && [ "$(id -u)" != 0 ]; then
  echo "uninstall.sh: run as root (or use --root DIR for a dry run)" >&2; exit 1
fi

for c in apiserver nodeagent; do
  unit="$root/etc/systemd/system/$name-$c.service"
  [ -e "$unit" ] || continue
  act systemctl disable --now "$name-$c.service"
  rm -f "$unit"
done
act systemctl daemon-reload
rm -rf "$root/opt/$name"
if [ "$purge" = 1 ]; then
  rm -rf "$root/etc/${name:?}" "$root/var/lib/${name:?}" "$root/var/cache/${name:?}" \
    "$root/var/cache/${name:?}-nodeagent"
  if [ -n "$root" ] || getent passwd "$name" >/dev/null 2>&1; then act userdel "$name"; fi
  echo "removed $name, its configuration and its data"
else
  echo "removed $name; kept /etc/$name and /var/lib/$name (--purge removes them)"
fi
