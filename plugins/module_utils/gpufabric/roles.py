"""The device roles, once: each role is an inventory group, and its order is the order of the
management address blocks (so it must only ever grow at the end)."""

SERVER_ROLE = "gpu_server"
SWITCH_ROLES = ("backend_leaf", "backend_spine", "backend_superspine",
                "frontend_leaf", "frontend_spine", "frontend_superspine", "oob_switch")
ALL_ROLES = (SERVER_ROLE,) + SWITCH_ROLES
# Switches that run BGP (every switch but the management access switches).
ROUTED_ROLES = SWITCH_ROLES[:-1]
BACKEND_SWITCH_ROLES = SWITCH_ROLES[:3]


def network_of(role):
    """backend | frontend | oob for a switch role (the parent inventory group)."""
    return role.split("_", 1)[0]
