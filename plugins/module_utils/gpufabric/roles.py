"""The device roles, once: each role is an inventory group, and its order is the order of the
management address blocks (so it must only ever grow at the end)."""

SERVER_ROLE = "gpu_server"
SWITCH_ROLES = ("backend_leaf", "backend_spine", "backend_superspine",
                "frontend_leaf", "frontend_spine", "frontend_superspine", "oob_switch", "backend_core")
ALL_ROLES = (SERVER_ROLE,) + SWITCH_ROLES
# Switches that run BGP (every switch but the management access switches).
ROUTED_ROLES = tuple(role for role in SWITCH_ROLES if role != "oob_switch")
BACKEND_SWITCH_ROLES = tuple(role for role in SWITCH_ROLES if role.startswith("backend_"))


def network_of(role):
    """backend | frontend | oob for a switch role (the parent inventory group)."""
    return role.split("_", 1)[0]
