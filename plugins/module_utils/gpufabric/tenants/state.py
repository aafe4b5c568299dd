"""The running tenant assignment: what the fabric was last set to, kept in
<build_dir>/state/<cluster>/tenants.yml, beside the build (which a build replaces whole), not in it."""
import os

from ..files import replace_file
from ..tenant_assignment import AssignmentError, attach, load_assignment, parse_assignment, plan_servers


def running_path(build_dir, cluster):
    return os.path.join(build_dir, "state", cluster, "tenants.yml")


def read_running(build_dir, plan):
    """The running Assignment of ``plan``'s cluster, or None when none was ever applied."""
    cluster = plan.summary["cluster"]
    path = running_path(build_dir, cluster)
    if not os.path.exists(path):
        return None
    return load_assignment(path, plan_servers(plan), cluster)


def write_running(build_dir, cluster, assignment):
    """Record ``assignment`` as running: written beside and renamed over, never half a file."""
    import yaml

    path = running_path(build_dir, cluster)
    text = ("# The tenant assignment running on the fabric, recorded by playbooks/tenants.yml; do not edit.\n"
            + yaml.safe_dump(assignment.as_data(), default_flow_style=False, sort_keys=True))
    replace_file(path, text)
    return path


def check_supported(plan, assignment):
    """Both modes isolate IPv4 (ACLs match it, VRFs leak its routes); refuse a fabric whose server links
    also carry IPv6."""
    if assignment is not None and plan.spec["backend"].get("ipv6"):
        what = "filters" if assignment.isolation == "acl" else "tags and leaks routes of"
        raise AssignmentError(["isolation: %s mode %s IPv4 only and backend.ipv6 is on: the server links' "
                               "IPv6 would cross tenants; turn backend.ipv6 off to isolate tenants"
                               % (assignment.isolation, what)])


def assignment_for(plan, build_dir, path=None):
    """Attach to ``plan`` the assignment a build renders: the file at ``path``, else the running one."""
    assignment = (load_assignment(path, plan_servers(plan), plan.summary["cluster"]) if path
                  else read_running(build_dir, plan))
    check_supported(plan, assignment)
    attach(plan, assignment)
    return assignment


__all__ = ["running_path", "read_running", "write_running", "assignment_for", "parse_assignment"]
