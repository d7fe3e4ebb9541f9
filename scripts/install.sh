#!/bin/sh
# Installs the API server and/or the node agent from an unpacked bundle as systemd services.
#
#   sudo ./install.sh [--components apiserver,nodeagent] [--kubeconfig FILE] [--no-start]
#   ./install.sh --root DIR ...   dry run: writes every file under DIR and prints the commands
#                                 (useradd, chown, systemctl) instead of running them
#
# Files: /opt/NAME/VERSION (the bundle; /opt/NAME/current points at it), /etc/NAME (flags in
# apiserver.env and nodeagent.env, node.kubeconfig; kept when present), /var/lib/NAME (the API
# server's data as the system user NAME; the node agent's root dir, as root), and
# /etc/systemd/system/NAME-apiserver.service, NAME-nodeagent.service.
set -eu

bundle=$(cd "$(dirname "$0")" && pwd)
name=$(sed -n 's/^name=//p' "$bundle/BUILD")
version=$(sed -n 's/^version=//p' "$bundle/BUILD")
if [ -z "$name" ] || [ -z "$version" ]; then
  echo "install.sh: run it from an unpacked bundle (no name/version in $bundle/BUILD)" >&2; exit 1
fi
root=""
components="apiserver,nodeagent"
kubeconfig=""
start=1

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit "$1"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=${2:?--root needs a directory}; shift ;;
    --root=*) root=${1#--root=} ;;
    --components) components=${2:?--components needs a list}; shift ;;
    --components=*) components=${1#--components=} ;;
    --kubeconfig) kubeconfig=${2:?--kubeconfig needs a file}; shift ;;
    --kubeconfig=*) kubeconfig=${1#--kubeconfig=} ;;
    --no-start) start=0 ;;
    -h|--help) usage 0 ;;
    *) echo "install.sh: unknown argument $1" >&2; usage 2 ;;
  esac
  shift
done

has() { case ",$components," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
# Runs a command that changes the system, or (with --root) prints it.
act() { if [ -n "$root" ]; then echo "would run: $*"; else "$@"; fi; }

for c in $(echo "$components" | tr ',' ' '); do
  case "$c" in apiserver|nodeagent) ;; *) echo "install.sh: unknown component $c" >&2; exit 2 ;; esac
done
if [ -z "$root" ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root (or use --root DIR for a dry run)" >&2; exit 1
fi
if has nodeagent && [ -n "$kubeconfig" ] && [ ! -r "$kubeconfig" ]; then
  echo "install.sh: cannot read $kubeconfig" >&2; exit 1
fi

opt="$root/opt/$name"
etc="$root/etc/$name"
lib="$root/var/lib/$name"
units="$root/etc/systemd/system"

# The code: a versioned copy, then the `current` link moves to it.
mkdir -p "$opt/$version" "$etc" "$lib" "$units"
for part in BUILD README.md app bin deno uninstall.sh; do
  rm -rf "${opt:?}/$version/$part"
  cp -a "$bundle/$part" "$opt/$version/$part"
done
ln -sfn "$version" "$opt/current"
chmod 0750 "$etc"

# shellcheck source-path=SCRIPTDIR
# shellcheck source=install_units.sh
. "$bundle/install_units.sh"

if has apiserver; then
  if ! getent passwd "$name" >/dev/null 2>&1 || [ -n "$root" ]; then
    act useradd --system --home-dir "/var/lib/$name" --no-create-home \
      --shell /usr/sbin/nologin --user-group "$name"
  fi
  mkdir -p "$lib/apiserver"
  chmod 0700 "$lib/apiserver"
  act chown -R "$name:$name" "/var/lib/$name/apiserver"
  [ -e "$etc/apiserver.env" ] || apiserver_env >"$etc/apiserver.env"
  apiserver_unit >"$units/$name-apiserver.service"
fi
if has nodeagent; then
  mkdir -p "$lib/nodeagent"
  chmod 0700 "$lib/nodeagent"
  if [ -n "$kubeconfig" ]; then
    cp "$kubeconfig" "$etc/node.kubeconfig"
    chmod 0600 "$etc/node.kubeconfig"
  fi
  [ -e "$etc/nodeagent.env" ] || nodeagent_env >"$etc/nodeagent.env"
  nodeagent_unit >"$units/$name-nodeagent.service"
fi

act systemctl daemon-reload
for c in apiserver nodeagent; do
  has "$c" || continue
  if [ "$start" = 1 ]; then act systemctl enable --now "$name-$c.service"
  else act systemctl enable "$name-$c.service"; fi
done
echo "installed $name $version under /opt/$name ($components)${root:+ in $root (dry run)}"
