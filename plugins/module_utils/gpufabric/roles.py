"""The device roles, once: each role is an inventory group, and its order is the order of the
management address blocks (so it must only ever grow at the end)."""

SERVER_ROLE = "gpu_server"
# Hosts on the backend that are not GPU servers (storage, UFM/management): placed, cabled and addressed
# like GPU servers, at the positions after them; no GPU server configuration.
HOST_ROLE = "backend_host"
HOST_KINDS = ("storage", "management")
# Roles with a BMC and a host management port, cabled to leaf ports like a server.
SERVER_LIKE_ROLES = (SERVER_ROLE, HOST_ROLE)
SWITCH_ROLES = ("backend_leaf", "backend_spine", "backend_superspine",
                "frontend_leaf", "frontend_spine", "frontend_superspine", "oob_switch", "backend_core")
ALL_ROLES = (SERVER_ROLE,) + SWITCH_ROLES + (HOST_ROLE,)
# Switches that run BGP (every switch but the management access switches).
ROUTED_ROLES = tuple(role for role in SWITCH_ROLES if role != "oob_switch")
BACKEND_SWITCH_ROLES = tuple(role for role in SWITCH_ROLES if role.startswith("backend_"))


def network_of(role):
    """backend | frontend | oob for a switch role (the parent inventory group)."""
    return role.split("_", 1)[0]
