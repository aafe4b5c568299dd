"""The cluster spec: every key declared once. docs/spec.md is generated from this file."""
from .datafiles import load
from .errors import SpecError
from .inventory_keys import PLUGIN_KEYS
from .nos_registry import switch_config_keys
from .roles import HOST_KINDS, SWITCH_ROLES
from .schema_types import (Addr, Bool, Choice, Int, List, MapOf, Net, Num, Optional, Section, Str,
                           json_schema, to_markdown)
from .spec_parts import (ASN_POOL, CORE_COUNT, DOCS_FIELDS, QOS_OVERRIDES, SERVER_MODEL, SIZE_FOR, SPINE_COUNT,
                         SUPER_COUNT, SWITCH_MODEL, fabric_pools, nos_choice, tier)

# maintenance.max_capacity_loss (day2/rollout.py). Why a quarter: a switch keeps three quarters of its uplinks during
# a wave, so a non-blocking fabric runs at 4:3 for a few minutes, far less oversubscribed than fabrics built at 7:1
# run every day (inventories/meta-24k above its pods); and a wave then holds up to a quarter of the spines above a
# leaf (every fourth one of h100-100k's 64), while a leaf with two or three uplinks (the lab) keeps one spine a wave.
DEFAULT_MAX_CAPACITY_LOSS = 0.25

DESIGNS = ("rail_optimized", "rail_planes", "rail_only", "top_of_rack")

_HOSTNAMES_DOC = ("Hostname patterns per role. Fields: {cluster}, {n} (1-based position in its group), {index} "
                  "(0-based position in its role), {rail} (0-based), {su}, {pod}, {plane}, {zone} (1-based; zone: "
                  "superspines), {side} (a/b), {rack}; with backend.planes, {fplane} (1-based) on every backend "
                  "switch. Defaults depend on the design; see docs/topology.md.")
SPEC = Section("The cluster spec.", {
    "plugin": Str("Inventory plugin name; `gpucluster.fabric.topology` makes this file an inventory source.",
                  default="gpucluster.fabric.topology"),
    "cluster": Section("Identity of the cluster.", {
        "name": Str("Cluster name: prefix of every hostname and the build/<name>/ directory.", required=True,
                    pattern=r"^[a-z][a-z0-9-]{0,30}$", hint="lowercase letters, digits and dashes, starting with a letter"),
        "hostnames": Section(_HOSTNAMES_DOC, {
            role: Str("Pattern for %s hostnames." % role.replace("_", " ")) for role in ("server",) + SWITCH_ROLES}),
    }, required=True),
    "servers": Section("The GPU servers.", {
        "model": Str("Server model from the hardware catalog or `models.servers`.", default="XE9680"),
        "count": Int("Number of servers. Growing it adds servers at the end and renumbers nothing.",
                     minimum=1, required=True),
        "per_rack": Int("Servers per rack: checked against the rack's usable units and power budget (`racks`), "
                        "about 10 kW and 6U per XE9680.",
                        minimum=1, default=4),
        "spares_per_unit": Int("Hot spares per scalable unit: the last N server positions of every unit are "
                               "reserved for spares, cabled and addressed like the others (they share the unit's "
                               "rail leaves). `count` counts them. See docs/operations.md.", minimum=0, default=0),
    }, required=True),
    "backend": Section("The GPU-to-GPU (RoCEv2) fabric.", {
        "design": Choice("Backend topology (see docs/topology.md).", list(DESIGNS), default="rail_optimized"),
        "leaf": Section("Rail leaves: one per rail per scalable unit; `downlinks` is the scalable unit's size "
                        "in servers. With top_of_rack, one leaf takes every GPU of `downlinks` / GPUs-per-server "
                        "servers and stands in their rack.", tier("rail leaves"), required=True),
        "spine": Optional("Spines (absent with rail_only).", dict(tier("spines", SPINE_COUNT), size_for=SIZE_FOR)),
        "superspine": Optional("Superspines: present means three tiers (pods of leaves and spines).",
                               tier("superspines", SUPER_COUNT)),
        "core": Optional("Core switches above the superspines: present means four tiers. Pods then group into "
                         "*zones* (the pods one superspine layer holds); superspine k of plane j in every zone "
                         "connects to core plane (j, k). For 64-port switches past k^3/4 GPUs.",
                         tier("core switches", CORE_COUNT)),
        "hosts": List("Hosts on the backend leaves that are not GPU servers (storage, UFM/management): each takes "
                      "a server position after the last GPU server, its NIC i on rail i's leaf (top_of_rack: its "
                      "unit's leaf), a /31 from the leaf's block and a BMC/host management address, like a server. "
                      "NVIDIA's DGX SuperPOD puts its UFM appliance in the 32nd position of a scalable unit. Growing "
                      "`servers.count` moves them to the positions after the new last server.",
                      Section("A group of identical hosts.", {
                          "name": Str("Hostname stem: hosts are named {cluster}-{name}{n:02d}.", required=True,
                                      pattern=r"^[a-z][a-z0-9-]{0,15}$", hint="lowercase letters, digits, dashes"),
                          "kind": Choice("What the hosts are (inventory group backend_host_<kind>).",
                                         list(HOST_KINDS), required=True),
                          "model": Str("Server model whose ports the host has (backend NICs, BMC, host port), from the "
                                       "catalog or `models.servers`. Default: `servers.model`."),
                          "count": Int("Number of hosts.", minimum=1, required=True),
                          "nics": Int("Backend NICs cabled, NIC i to rail i. Default: every backend NIC of the model.",
                                      minimum=1),
                      }), default=[]),
        "planes": Int("Multi-plane fabrics: each GPU's NIC is split into this many ports, one port into each of "
                      "as many independent fabrics (planes), each a full two-, three- or four-tier rail-optimized "
                      "fabric of its own leaves, spines, ASNs and addresses built from the tiers above; planes share "
                      "no switch. 2: NVIDIA's DGX B300 on Spectrum-4 (ConnectX-8 as 2 x 400G); 4: an 800G NIC as "
                      "4 x 200G on 512-radix switches. The NIC model must have the port mode (`nic_mode`) and "
                      "`planes` must divide its lanes. Default 1 (one port a NIC). Not `rail_planes`, which "
                      "groups rails, not NIC ports.", minimum=1, omit=True),
        "nic_mode": Str("The NIC port mode of a multi-plane fabric, COUNTxSPEEDG with COUNT = `planes`, from the "
                        "NIC model's modes (ConnectX-8: 1x800G, 2x400G, 4x200G). Default: the NIC's mode with "
                        "`planes` ports.", pattern=r"^\d+x\d+G$", hint="e.g. 2x400G", omit=True),
        "pod_gpus": Int("GPUs per pod (three tiers): a whole number of scalable units. The spines then take one "
                        "port group per leaf of a pod, and `spine.oversubscription` applies to those downlinks (the "
                        "fewest uplinks at or below the ratio) instead of splitting every port of the model. "
                        "Default: as many leaves as the spines' downlinks hold. Meta's RoCE clusters: pods (AI "
                        "zones) of 3072 GPUs, 7:1 above them.", minimum=1),
        "pools": Section("Address pools of the backend.", dict(
            server_links=Net("IPv4 pool for server-leaf /31s. Each leaf takes an aligned block (2 x downlinks, "
                             "rounded up to a power of two) at its position, so it can advertise one summary.",
                             default="10.0.0.0/12"),
            server_links_ipv6=Net("Optional IPv6 pool for server-leaf /127s, blocked like server_links.", version=6),
            superspine_core=Net("IPv4 pool for the /31 of every superspine-core link (four tiers).",
                                default="10.36.0.0/14"),
            **fabric_pools(("10.32.0.0/16", "10.16.0.0/13", "10.24.0.0/13"), "backend"))),
        "asn_pool": ASN_POOL,
        "mtu": Int("MTU of switch ports.", minimum=1500, maximum=9216, default=9216),
        "server_mtu": Int("MTU of the server NICs.", minimum=1500, maximum=9216, default=9000),
        "ipv6": Bool("Dual stack. Refused while IPv6 is not rendered (frr.conf has no IPv6 address family); the "
                     "*_ipv6 pools are refused likewise.", default=False),
    }, required=True),
    "frontend": Optional("The frontend (storage, data, control) network; absent means none is planned.", {
        "dual_homing": Choice("How a server's two frontend ports are tied together: an MC-LAG leaf pair with a "
                              "peer link. `evpn_mh` (EVPN multihoming) is refused until it is rendered.",
                              ["mclag", "evpn_mh"], default="mclag"),
        "peer_links": Int("Ports per leaf for the MC-LAG peer link (taken from the uplink ports). "
                          "Default: 2 with mclag, 0 with evpn_mh.", minimum=0),
        "leaf": Section("Frontend leaves, in pairs; `downlinks` is servers per pair.",
                        tier("frontend leaves"), required=True),
        "spine": Section("Frontend spines.", dict(tier("frontend spines", SPINE_COUNT), size_for=SIZE_FOR),
                         required=True),
        "superspine": Optional("Frontend superspines: present means three tiers.",
                               tier("frontend superspines", SUPER_COUNT)),
        "pools": Section("Address pools of the frontend.", dict(
            servers=Net("IPv4 pool for server subnets: each leaf pair takes an aligned block holding its servers "
                        "plus gateway and leaf addresses.", default="10.64.0.0/14"),
            **fabric_pools(("10.72.0.0/16", "10.68.0.0/15", "10.70.0.0/15"), "frontend"))),
        "asn_pool": ASN_POOL,
        "mtu": Int("MTU of switch ports.", minimum=1500, maximum=9216, default=9216),
        "server_mtu": Int("MTU of the server bond.", minimum=1500, maximum=9216, default=9000),
    }),
    "oob": Section("The out-of-band management network.", {
        "switch": Section("Management access switches, one or more per rack.", {
            "model": Str("Switch model.", default="S3248T-ON"),
            "nos": nos_choice("management access switches"),
        }),
        "pool": Net("Management IPv4 pool, flat: the first quarter holds switch addresses (eight equal blocks, "
                    "one per switch role), the rest BMC and host management addresses (two per server). "
                    "The last usable address is the gateway.", default="10.250.0.0/16"),
        "provisioning_host": Addr("IPv4 address of the provisioning (DHCP/ZTP) host, for DHCP relay."),
    }),
    "switch_config": Section("Settings every switch configuration shares (docs/switch-config.md).", {
        "qos_profile": Str("Name of the QoS profile in data/qos_profiles.yml.", default="rocev2_lossless"),
        # Keys one NOS reads are declared in its home (nos/<home>/spec_keys.py).
        **switch_config_keys(),
        "qos_overrides": QOS_OVERRIDES,
        "ntp_servers": List("NTP servers (reached over the management VRF).", Addr("An IPv4 address."), default=[]),
        "syslog_servers": List("Syslog servers.", Addr("An IPv4 address."),
                               default=[]),
        "tacacs_servers": List("TACACS+ servers for AAA (their keys stay out of the spec: vault them in group_vars).",
                               Addr("An IPv4 address."), default=[]),
        "snmp": Section("SNMP system data (communities are secrets and stay out of the spec).", {
            "contact": Str("sysContact.", default=""),
        }),
    }),
    "docs": Section("Build documentation settings (docs/build-docs.md). Unset keys take the defaults of "
                    "data/docs_defaults.yml, quoted here.", DOCS_FIELDS),
    "maintenance": Section("Day-2 state (docs/operations.md): what a build renders as drained or replaced.", {
        "drained": List("Switches whose traffic is shifted away (AS-path prepend and the graceful-shutdown "
                        "community on everything they announce); `playbooks/drain.yml` drains for a window, this "
                        "list keeps a switch drained through every build and deploy.",
                        Str("A switch hostname of this cluster."), default=[]),
        "replaced": MapOf("Failed servers and the hot spare standing in for each (`failed: spare`); "
                          "`playbooks/spare.yml` swaps for a window, this map keeps a swap through every build "
                          "and deploy. The failed server's backend leaf ports are shut and its tenant passes to "
                          "the spare; the spare keeps its own position and addresses.",
                          Str("A spare server's hostname (a position of servers.spares_per_unit).")),
        "max_capacity_loss": Num("The share of a switch's uplink capacity one rollout wave may take away "
                                 "(build/<cluster>/rollout.json, which deploy.yml follows; docs/operations.md, "
                                 "\"Rollout waves\"): a wave of spines or superspines leaves every switch below at "
                                 "least 1 - this of its uplinks and every leaf pair a path; a wave of leaves or OOB "
                                 "switches holds at most this share of its role. The default, 0.25, keeps a "
                                 "non-blocking fabric at 4:3 during a wave.", minimum=0, maximum=1,
                                 default=DEFAULT_MAX_CAPACITY_LOSS,
                                 omit=True),
    }),
    "racks": Section("What one rack holds: its height and power budget. A server rack holds `servers.per_rack` "
                     "servers, its OOB switches and (top_of_rack) its leaf; the plan is refused when they need more "
                     "units or power than the rack has (the model's `rack_units` and `power_max_w`), and the summary "
                     "shows kW per rack and in all. Unset: a 42U rack with a 45 kW budget.", {
                         "units": Int("Rack height, U.", minimum=1, default=42),
                         "reserved_units": Int("Units kept free of devices (patch panels, cable managers, PDUs "
                                               "mounted in U).", minimum=0, default=0),
                         "power_kw": Num("Power budget of one rack, kW (what its PDUs and cooling deliver).",
                                         minimum=0, default=45),
                     }, omit=True),
    "layout": Section("Physical layout: rows and racks.", {
        "switches_per_rack": Int("Switches per network rack (core and pod spine racks).", minimum=1, default=16),
    }),
    "models": Section("Hardware models added to (or replacing) the built-in catalog.", {
        "switches": MapOf("Switch models by name.", SWITCH_MODEL),
        "servers": MapOf("Server models by name.", SERVER_MODEL),
    }),
})


OOB_MTU = 1500


def port_mtu(spec, network, server):
    """MTU of a cabled port: a server's NIC or bond, or a switch port, on ``network``."""
    section = spec.get(network) if network != "oob" else None
    if not section:
        return OOB_MTU
    return section["server_mtu" if server else "mtu"]


_NOT_RENDERED = "is not rendered yet (frr.conf has no IPv6 address family, the ports no IPv6 address)"


def refuse_unrendered(spec):
    """Refuse what the schema can express but no renderer implements yet, rather than plan it and
    leave it out of the configs silently."""
    frontend = spec["frontend"]
    if frontend and frontend["dual_homing"] == "evpn_mh":
        raise SpecError("frontend.dual_homing", "evpn_mh is not rendered yet (the switch configs have no EVPN "
                        "multihoming): use mclag")
    if spec["backend"]["ipv6"]:
        raise SpecError("backend.ipv6", "IPv6 %s: set it to false" % _NOT_RENDERED)
    for network in ("backend", "frontend"):
        for key, value in sorted(((spec[network] or {}).get("pools") or {}).items()):
            if key.endswith("_ipv6") and value is not None:
                raise SpecError("%s.pools.%s" % (network, key), "IPv6 %s: remove this pool" % _NOT_RENDERED)


def check_relations(spec):
    """Values that are each valid but not together."""
    for network in ("backend", "frontend"):
        section = spec[network]
        if section and section["server_mtu"] > section["mtu"]:
            raise SpecError("%s.server_mtu" % network, "%d is above the switch MTU %s.mtu %d: servers would send "
                            "frames the switches drop; use at most %d (or raise %s.mtu)" % (
                                section["server_mtu"], network, section["mtu"], section["mtu"], network))
    profiles = sorted(load("qos_profiles"))
    name = spec["switch_config"]["qos_profile"]
    if name not in profiles:
        import difflib
        near = difflib.get_close_matches(name, profiles, n=1)
        raise SpecError("switch_config.qos_profile", "unknown QoS profile %r%s; known: %s" % (
            name, "; did you mean %r?" % near[0] if near else "", ", ".join(profiles)))


def validate(raw):
    """Return the spec with defaults filled in; raise SpecError naming the first bad key."""
    spec = SPEC.validate(raw, "")
    refuse_unrendered(spec)
    check_relations(spec)
    return spec


SCHEMA_ID = "https://github.com/gpucluster/fabric/raw/main/docs/topology.schema.json"


def reference_json_schema():
    """The spec's JSON Schema, from the same declaration as docs/spec.md (make docs writes both)."""
    schema = json_schema(SPEC)
    schema["type"] = "object"
    # The inventory plugin's own options (caching, constructed groups) share the file; Ansible checks them.
    for key in PLUGIN_KEYS:
        schema["properties"][key] = {"description": "Inventory plugin option (see ansible-doc -t inventory "
                                                    "gpucluster.fabric.topology)."}
    return dict({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
                 "title": "gpucluster.fabric cluster spec (*.topology.yml)"}, **schema)


def reference_markdown():
    return to_markdown(SPEC, "Cluster spec reference",
                       "Generated from `plugins/module_utils/gpufabric/spec.py` by `make docs`; "
                       "a unit test fails when this file and the schema disagree. "
                       "Keys are dotted paths; `[]` marks list items and `<name>` a name you choose.")
