"""The BMC connection options shared by the Redfish modules (see doc fragment gpucluster.fabric.redfish)."""
from .redfish import Redfish

BMC_ARGS = {"baseuri": {"type": "str", "required": True}, "username": {"type": "str", "required": True},
            "password": {"type": "str", "required": True, "no_log": True},
            "validate_certs": {"type": "bool", "default": True}, "timeout": {"type": "int", "default": 30},
            "system_id": {"type": "str"}}


def client(params):
    return Redfish(params["baseuri"], params["username"], params["password"], params["validate_certs"],
                   params["timeout"])
