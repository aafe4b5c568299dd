"""Firmware baseline (component -> version) against a BMC's firmware inventory."""
import re

from ..errors import SpecError

# Components whose update the BMC applies on its own; every other one (BIOS, NICs, GPUs, CPLD, drives)
# is staged by the BMC and installed by the host's next reboot.
NO_HOST_REBOOT = ("idrac", "integrated dell remote access controller", "bmc", "lifecycle controller")


def version_key(version):
    """Order versions the way vendors number them: dotted/dashed numbers compare as numbers, text as text."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.\-_]", str(version).strip()) if p]


def in_scheme_of(wanted, current):
    """``wanted`` written the way the BMC writes ``current``: NVIDIA prints ConnectX firmware as 28.39.1002, iDRAC
    as 28.39.10.02; compared as printed, 1002 > 10 would order them wrongly."""
    parts, have = str(wanted).split("."), str(current).split(".")
    if len(parts) == 3 and len(have) == 4 and len(parts[2]) == 4 and parts[2].isdigit():
        return "%s.%s.%s.%s" % (parts[0], parts[1], parts[2][:2], parts[2][2:])
    return str(wanted)


def needs_host_reboot(component):
    name = component.lower()
    return not any(name.startswith(prefix) for prefix in NO_HOST_REBOOT)


def _matches(component, item):
    key = component.lower()
    return item["name"].lower().startswith(key) or item["id"].lower() == key


def compare(inventory, baseline, path="gpu_server_firmware_baseline", allow_downgrade=False):
    """Compare ``inventory`` ([{id, name, version, updateable}]) with ``baseline`` ({component: version}).

    A component is an inventory entry whose name starts with the key (so "Mellanox ConnectX-7" covers all
    eight NICs) or whose Id equals it. Returns [{component, id, name, current, wanted, action,
    reboot_required}] for entries not at the baseline, action "update" or "downgrade". A key matching
    nothing, or an empty version, raises SpecError naming the key.
    """
    changes = []
    for component, wanted in baseline.items():
        wanted = str(wanted).strip() if wanted is not None else ""
        if not wanted:
            raise SpecError("%s.%s" % (path, component), "empty version; give the version string the BMC reports")
        items = [i for i in inventory if _matches(component, i)]
        if not items:
            names = sorted({i["name"] for i in inventory})
            raise SpecError("%s.%s" % (path, component), "no such component in the BMC's firmware inventory; "
                            "it has: %s" % ", ".join(names))
        for item in items:
            current = str(item["version"])
            want = in_scheme_of(wanted, current)
            if current == want:
                continue
            older = version_key(current) < version_key(want)
            if not older and not allow_downgrade:
                continue
            changes.append({"component": component, "id": item["id"], "name": item["name"], "current": current,
                            "wanted": want, "action": "update" if older else "downgrade",
                            "reboot_required": needs_host_reboot(item["name"])})
    return changes


def by_component(changes):
    """One entry per baseline component ({component, wanted, names, current, reboot_required}): one update package
    installs every instance (all eight NICs), so the BMC gets one job per component, not one per entry."""
    out = {}
    for c in changes:
        entry = out.setdefault(c["component"], {"component": c["component"], "wanted": c["wanted"], "names": [],
                                                "current": [], "reboot_required": False})
        entry["names"].append(c["name"])
        entry["current"].append(c["current"])
        entry["reboot_required"] = entry["reboot_required"] or c["reboot_required"]
    return list(out.values())


def inventory_from_redfish(members):
    """Normalise FirmwareInventory members (SoftwareInventory resources) to {id, name, version, updateable}.
    iDRAC lists each device twice, "Installed-<ComponentID>-<version>[__FQDD]" and "Current-..." (the running
    image), plus "Previous-" (rollback) and "Available-" copies: one entry per device, the installed one."""
    out, seen = [], set()
    ranked = sorted(members, key=lambda m: 0 if m.get("Id", "").startswith("Installed") else 1)
    for m in ranked:
        ident = m.get("Id", "")
        if ident.startswith(("Previous", "Available")):
            continue
        device = ident.split("-", 1)[-1].split("__")[-1] if "__" in ident else m.get("Name", ident)
        if device in seen:
            continue
        seen.add(device)
        out.append({"id": ident, "name": m.get("Name", ident), "version": m.get("Version", ""),
                    "updateable": bool(m.get("Updateable", False))})
    return sorted(out, key=lambda i: [m.get("Id") for m in members].index(i["id"]))
