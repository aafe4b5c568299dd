"""The checks, in report order. Each is a small class (see base.py); ``select`` applies include/exclude."""
from .base import Check, Context, Result, PASS, FAIL, SKIP, ERROR, STATUSES  # noqa: F401
from .bgp import BgpSessions
from .cabling import Cabling
from .interfaces import InterfaceErrors, InterfaceSpeed, LinkState, Mtu, OpticsDom
from .planes import PlaneHealth, PlaneIsolation
from .qos import QosBackendLinks, QosNicLeaf
from .reachability import PathMtu, RailReachability
from .routing import EcmpWidth, LeafSummaries, RailIsolation
from .servers import ServerAddressing, ServerPolicyRouting
from .tenants import TenantIsolation

CHECKS = [Cabling, LinkState, Mtu, InterfaceErrors, InterfaceSpeed, OpticsDom, BgpSessions, LeafSummaries,
          EcmpWidth, RailIsolation, QosBackendLinks, QosNicLeaf, ServerAddressing, ServerPolicyRouting, RailReachability,
          PathMtu, TenantIsolation, PlaneIsolation, PlaneHealth]


def select(include=None, exclude=None):
    """Check instances by name; unknown names raise ValueError listing the known ones."""
    known = {cls.name: cls for cls in CHECKS}
    for name in list(include or []) + list(exclude or []):
        if name not in known:
            raise ValueError("unknown check %r; known: %s" % (name, ", ".join(known)))
    return [cls() for cls in CHECKS if (not include or cls.name in include) and cls.name not in (exclude or ())]
