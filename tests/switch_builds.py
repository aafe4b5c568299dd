"""One switch's build for a deploy test that feeds its deploy role a changed file: the switch's rendered files and
those of its BGP neighbours (what the role's BGP gate needs of them) under a directory, and a playbook that runs
that role on the switch alone, pointed at it."""
import yaml

from gpufabric import build


def write_switch_build(plan, host, directory):
    """Render ``host`` and its BGP neighbours into ``directory`` (a pathlib.Path), as build/<cluster>/ holds them;
    returns (the rendered files, the first summary the switch's plan announces, None for none)."""
    files = build.render_all(plan, devices=[host] + [e.peer.name for e in plan.device(host).bgp_ends()])
    for rel, text in files.items():
        (directory / rel).parent.mkdir(parents=True, exist_ok=True)
        (directory / rel).write_text(text)
    summaries = yaml.safe_load(files["devices/%s/structured.yml" % host])["bgp"].get("summaries") or [None]
    return files, summaries[0]


def deploy_one_play(directory, host, role, role_vars):
    """A playbook (written into ``directory``, returned as its path) running ``role`` with ``role_vars`` on ``host``."""
    play = directory / "deploy_one.yml"
    play.write_text(yaml.safe_dump([{"name": "Deploy one switch from a given build", "hosts": host,
                                     "gather_facts": False, "roles": [{"role": role, "vars": role_vars}]}]))
    return str(play)
