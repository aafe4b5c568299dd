"""The lab twin's group_vars for a twin of another cluster (tests and benchmarks that build their own inventory):
the netns connection and FRR settings as they are, the OOB switches' namespace and state directory renamed."""
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def copy_twin_group_vars(inventory, cluster):
    """Write ``inventory``/group_vars/ from inventories/lab-twin for the twin of ``cluster``."""
    shutil.copytree(os.path.join(ROOT, "inventories", "lab-twin", "group_vars"), os.path.join(inventory, "group_vars"))
    oob = os.path.join(inventory, "group_vars", "oob_switch.yml")
    with open(oob) as f:
        text = f.read().replace("lab-oob", cluster + "-oob").replace("gpufabric-twin/lab/", "gpufabric-twin/%s/" % cluster)
    with open(oob, "w") as f:
        f.write(text)
