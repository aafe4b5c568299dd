#!/bin/sh
# The twin's switches' login user (make setup, as root): what Ansible logs in as when an inventory sets ansible_user
# to it (docs/twin.md, "The login user"). SONiC's admin is not root: `config` refuses it, and it reaches root with sudo,
# without a password. It reaches FRR without root (SONiC's admin through the bgp container, being in group docker; here
# through FRR's own groups, frr and frrvty). The twin's SONiC commands, Python of the checkout it may not read, run
# for it through sudo and judge it as SONiC does (twin/emulators/sonic/plane.py). sudo keeps the PATH the twin's connection gives the
# user (the switch's NOS commands first), as SONiC's commands are on sudo's secure_path there.
set -eu
user=${1:-gpufabric-admin}
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: not root, skipping the twin's login user $user"
  exit 0
fi
if ! command -v sudo >/dev/null || ! getent group frrvty >/dev/null; then
  echo "setup: sudo or FRR missing, skipping the twin's login user $user"
  exit 0
fi
if ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --user-group --create-home --home-dir "/var/lib/$user" --shell /bin/sh "$user"
  echo "setup: created the twin's login user $user"
fi
usermod -a -G frr,frrvty "$user"
rules=/etc/sudoers.d/gpufabric-twin
cat > "$rules.tmp" <<RULES
# gpucluster.fabric: the twin's switches' login user (scripts/twin_login_user.sh, run by make setup).
Defaults:$user !secure_path
$user ALL=(ALL:ALL) NOPASSWD: ALL
RULES
chmod 0440 "$rules.tmp"
visudo -cqf "$rules.tmp"
mv "$rules.tmp" "$rules"
