"""Finding and reading the cluster spec that an inventory source names."""
import glob
import os

from .errors import SpecError

SUFFIXES = (".topology.yml", ".topology.yaml")


def find_spec(sources):
    """The one cluster spec among inventory sources (files, or directories holding one spec)."""
    found = []
    for src in sources or ():
        if os.path.isdir(src):
            found.extend(sorted(p for s in SUFFIXES for p in glob.glob(os.path.join(src, "*" + s))))
        elif src.endswith(SUFFIXES) and os.path.isfile(src):
            found.append(src)
    if len(found) != 1:
        raise SpecError("spec", "%s cluster spec (*.topology.yml) among the inventory sources %s: pass the file "
                        "with -i or set the spec option" % ("no" if not found else "more than one", list(sources or ())))
    return found[0]


def load_spec(path):
    """The spec as plain data, without the inventory plugin's own options."""
    import yaml

    from .inventory_keys import PLUGIN_KEYS
    try:
        with open(path, encoding="utf-8") as f:
            raw = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError("spec", "cannot read %s: %s" % (path, str(exc).splitlines()[0]))
    if not isinstance(raw, dict):
        raise SpecError("spec", "%s is not a YAML mapping" % path)
    return {k: v for k, v in raw.items() if k not in PLUGIN_KEYS}


def plan_for_task(args, task_vars):
    """(spec path, plan, build dir) for an action: the `spec` option or the inventory's spec, and the
    `build_dir` option or build/ in the current directory."""
    from .plan import build_plan
    path = args.get("spec") or find_spec((task_vars or {}).get("ansible_inventory_sources"))
    build_dir = os.path.normpath(args.get("build_dir") or os.path.join(os.getcwd(), "build"))
    return path, build_plan(load_spec(path)), build_dir
