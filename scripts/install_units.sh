# shellcheck shell=sh
# The configuration and systemd units install.sh writes (sourced by it; uses $name).
# Both services log to stderr, which systemd sends to the journal: `journalctl -u NAME-apiserver`.
: "${name:?install_units.sh is sourced by install.sh, which sets name}"

apiserver_env() {
  cat <<ENV
# Flags of the API server (apiserver --help lists them all).
APISERVER_ARGS="--data-dir=/var/lib/$name/apiserver --secure-port=6443"
ENV
}

nodeagent_env() {
  cat <<ENV
# Flags of the node agent (nodeagent --help lists them all). node.kubeconfig holds a node
# credential (system:node:<name> in group system:nodes): see README, "Joining nodes".
NODEAGENT_ARGS="--kubeconfig=/etc/$name/node.kubeconfig --root-dir=/var/lib/$name/nodeagent"
ENV
}

apiserver_unit() {
  cat <<UNIT
[Unit]
Description=$name API server (Kubernetes-compatible)
Documentation=file:/opt/$name/current/README.md
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
User=$name
Group=$name
EnvironmentFile=-/etc/$name/apiserver.env
Environment=DENO_DIR=/var/cache/$name
CacheDirectory=$name
ExecStart=/opt/$name/current/bin/apiserver \$APISERVER_ARGS
Restart=always
RestartSec=5
TimeoutStopSec=30
LimitNOFILE=1048576
NoNewPrivileges=yes
ProtectSystem=full
ProtectHome=yes
ReadWritePaths=/var/lib/$name/apiserver

[Install]
WantedBy=multi-user.target
UNIT
}

nodeagent_unit() {
  cat <<UNIT
[Unit]
Description=$name node agent
Documentation=file:/opt/$name/current/README.md
Wants=network-online.target
After=network-online.target $name-apiserver.service
ConditionPathExists=/etc/$name/node.kubeconfig

[Service]
Type=simple
EnvironmentFile=-/etc/$name/nodeagent.env
Environment=DENO_DIR=/var/cache/$name-nodeagent
CacheDirectory=$name-nodeagent
ExecStart=/opt/$name/current/bin/nodeagent \$NODEAGENT_ARGS
Restart=always
RestartSec=5
KillMode=mixed
TimeoutStopSec=60
LimitNOFILE=1048576

[Install]
WantedBy=multi-user.target
UNIT
}
