"""The files a tenant change deploys, phase by phase: for each changed switch of a phase, its config
(structured.yml and the files its NOS renders, e.g. config_db.json and frr.conf) under that phase's assignment, in the layout of a build, so
the deploy role reads a phase exactly as it reads build/<cluster>/."""
import os
import shutil
import tempfile

from ..nos_registry import home, nos_of
from ..render import yaml_text
from ..structured import FabricContext, device_config
from ..tenant_assignment import attach


def pending_root(build_dir, cluster):
    return os.path.join(build_dir, "state", cluster, "pending")


def write_phases(plan, build_dir, change):
    """Write <build_dir>/state/<cluster>/pending/<n>-<phase>/devices/<host>/; returns [phase root]."""
    cluster = plan.summary["cluster"]
    root = pending_root(build_dir, cluster)
    os.makedirs(os.path.dirname(root), exist_ok=True)
    staging = tempfile.mkdtemp(dir=os.path.dirname(root), prefix=".pending-")
    previous = getattr(plan, "tenant_assignment", None)
    roots = []
    try:
        for n, phase in enumerate(change["phases"], 1):
            name = "%d-%s" % (n, phase["name"])
            attach(plan, phase["assignment"])
            ctx = FabricContext(plan)
            for host in phase["hosts"]:
                cfg = device_config(plan.device(host), ctx)
                files = dict(home(nos_of(cfg)).render_device(cfg), **{"structured.yml": yaml_text.dump(cfg)})
                target = os.path.join(staging, name, "devices", host)
                os.makedirs(target)
                for fname, text in files.items():
                    with open(os.path.join(target, fname), "w", encoding="utf-8") as f:
                        f.write(text)
            roots.append(os.path.join(root, name))
        if os.path.isdir(root):
            shutil.rmtree(root)
        os.rename(staging, root)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        attach(plan, previous)
    return roots
