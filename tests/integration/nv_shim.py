"""`nv` for a play whose connection is `local` against the NVUE stand-in process: the lines the deploy sends
(nos/cumulus/confirm.py, NvCli) carried out through the emulator's own nv client (nv_api.py: the route the twin's
nv takes to its switch). Run as `nv` (a wrapper on PATH); the switch is named by the JSON file in $NV_SHIM
(port, ca, user, password)."""
import json
import os
import sys


def main(words):
    sys.path.insert(0, os.environ["NV_SHIM_MODULE_UTILS"])
    from gpufabric.twin.emulators.cumulus.nv_api import Api

    with open(os.environ["NV_SHIM"], encoding="utf-8") as f:
        switch = json.load(f)
    api = Api("switch", "127.0.0.1", switch["port"], switch["user"], switch["password"], switch["ca"])
    if words == ["config", "history", "-o", "json"]:
        print(json.dumps(api.history()))
        return 0
    if words[:2] == ["config", "diff"] and len(words) == 4:
        # NVUE's own diff of two revisions, as the switch's nv prints it (the emulator's nv_config.py).
        import yaml
        from gpufabric.twin.emulators.cumulus.nv_config import diff_documents

        sys.stdout.write(yaml.safe_dump(diff_documents(api.config(words[2]), api.config(words[3])), sort_keys=True,
                                        default_flow_style=False))
        return 0
    if words[:2] != ["config", "apply"] or len(words) < 4:
        sys.stderr.write("Error: nv %s is not what the deploy sends\n" % " ".join(words))
        return 1
    rev, rest = words[2], words[3:]
    if rest in (["--confirm-yes"], ["--confirm-no"]):
        api.confirm(rev, rest == ["--confirm-yes"])
        return 0
    confirm = float(rest[rest.index("--confirm") + 1].rstrip("s")) if "--confirm" in rest else None
    view = api.apply(rev, timeout=30, poll=0.05, confirm=confirm, message=rest[rest.index("-m") + 1])
    if view.get("state") not in ("applied", "confirm"):
        sys.stderr.write("Error: revision %s: %s\n" % (rev, view.get("state")))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
