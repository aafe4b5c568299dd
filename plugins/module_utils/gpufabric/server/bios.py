"""BIOS attributes wanted against what the BMC reports (current and pending)."""
import difflib

from ..errors import SpecError


def _same(current, wanted):
    if isinstance(current, bool) or isinstance(wanted, bool):
        return current is wanted or str(current).lower() == str(wanted).lower()
    if isinstance(current, (int, float)) and not isinstance(wanted, (int, float)):
        return str(current) == str(wanted)
    return current == wanted


def diff(current, pending, wanted, path="gpu_server_bios_attributes"):
    """Attributes to change so that ``wanted`` holds after the next reboot.

    ``current`` is /Bios Attributes, ``pending`` the /Bios/Settings Attributes (the BMC's queue, applied at the
    next reboot). Returns (to_set, pending_ok): ``to_set`` {name: {before, after}} is what still has to be
    PATCHed; ``pending_ok`` the wanted attributes already queued but not yet active. An attribute the BIOS
    does not have raises SpecError naming it, with the nearest name.
    """
    to_set, pending_ok = {}, {}
    for name, value in wanted.items():
        if name not in current:
            near = difflib.get_close_matches(name, list(current), n=1)
            raise SpecError("%s.%s" % (path, name), "the BIOS has no such attribute%s" % (
                "; did you mean %r?" % near[0] if near else ""))
        if isinstance(current[name], (int, float)) and not isinstance(current[name], bool):
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise SpecError("%s.%s" % (path, name), "%r is not a number (the BIOS has %r)" % (value, current[name]))
        queued = pending.get(name, current[name])
        if _same(queued, value):
            if not _same(current[name], value):
                pending_ok[name] = {"before": current[name], "after": value}
            continue
        to_set[name] = {"before": queued, "after": value}
    return to_set, pending_ok


def reboot_required(to_set, pending_ok):
    """BIOS attributes take effect at the next boot: anything set now or already queued needs one."""
    return bool(to_set or pending_ok)
