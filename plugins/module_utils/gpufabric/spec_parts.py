"""The sections the cluster spec (spec.py) is made of more than once or that other modules validate with: a switch
tier's keys, a fabric's address pools, the hardware models of the catalog (SWITCH_MODEL, SERVER_MODEL, which
catalog.py validates its data with), the documents' settings and the QoS overrides."""
from .nos_registry import DEFAULT_NOS, names as nos_names
from .schema_types import AsnRange, Bool, Choice, Int, List, MapOf, Net, Num, Section, Str

RATIO = r"^\d+:\d+$"


def nos_choice(what):
    return Choice("Network OS the %s run; their model must list it (docs/architecture.md, \"adding a NOS\")."
                  % what, list(nos_names()), default=DEFAULT_NOS)


def tier(what, count_doc=None):
    fields = {
        "model": Str("Switch model for the %s: a name from the hardware catalog or from `models.switches`." % what,
                     required=True),
        "nos": nos_choice(what),
        "downlinks": Int("Ports used toward the tier below (servers for a leaf). Default: every `down` port of the "
                         "model, or half of its `any` ports when the tier has uplinks.", minimum=1),
        "uplinks": Int("Ports used toward the tier above. Default: the model's `up` ports, or the other half of "
                       "its `any` ports; 0 at the top tier.", minimum=0),
        "oversubscription": Str("Downlink to uplink ratio such as `3:1`, instead of `downlinks`/`uplinks`: "
                                "splits the usable ports in that ratio.", pattern=RATIO, hint="write it as DOWN:UP, e.g. 3:1"),
        "downlink_breakout": Str("Breakout mode of the downlink ports, such as `2x400G` (one of the modes the "
                                 "model lists) or `none`. Default: from the speeds at both ends: 400G NICs (or "
                                 "lower-tier uplinks) on 800G ports break each port into 2 x 400G, so one cage "
                                 "serves two links of the same rail; `downlinks` then counts the broken-out ports.",
                                 omit=True),
        "uplink_breakout": Str("Breakout mode of the uplink ports (`2x400G`, `none`). Default: none; the tier "
                               "above breaks its downlinks out to meet them when its ports are faster.", omit=True),
    }
    if count_doc:
        fields["count"] = Int(count_doc, minimum=1)
    return fields


def fabric_pools(defaults, what):
    return {
        "loopbacks": Net("IPv4 pool for /32 loopbacks of the %s switches; split in four equal blocks "
                         "(leaf, spine, superspine, spare), each switch at its position." % what,
                         default=defaults[0]),
        "leaf_spine": Net("IPv4 pool for the /31 of every leaf-spine link; link k of leaf n takes /31 number "
                          "n * leaf_uplinks + k.", default=defaults[1]),
        "spine_superspine": Net("IPv4 pool for the /31 of every spine-superspine link (three tiers).",
                                default=defaults[2]),
        "loopbacks_ipv6": Net("Optional IPv6 pool for /128 loopbacks (dual stack).", version=6),
        "leaf_spine_ipv6": Net("Optional IPv6 pool for /127 leaf-spine links.", version=6),
        "spine_superspine_ipv6": Net("Optional IPv6 pool for /127 spine-superspine links.", version=6),
    }


SPINE_COUNT = ("Spines in each group a leaf fans out to (the whole plane in two tiers, a pod in three). "
               "Must divide `leaf.uplinks`; each leaf then has uplinks / count links to every spine. "
               "Default: `leaf.uplinks` (one link to each spine).")
SIZE_FOR = Choice(
    "How many spines a two-tier fabric gets when `count` is not set: `hardware_max`, one per leaf uplink, so "
    "the fabric grows to the hardware's largest size without recabling a leaf; `cluster`, the fewest that hold "
    "this cluster's leaves (NVIDIA's SuperPOD tables: 4, 8, 16 spines for 1, 2, 3-4 SUs), so growing past "
    "that size means more spines and every leaf uplink recabled. The summary says which and what it costs.",
    ["hardware_max", "cluster"], default="hardware_max")
SUPER_COUNT = ("Superspines in each superspine plane (spine j of every pod connects to plane j). Must divide "
               "`spine.uplinks`. Default: `spine.uplinks` (one link from a spine to each superspine).")
CORE_COUNT = ("Core switches in each core plane (superspine k of plane j of every zone connects to core plane "
              "(j, k)). Must divide `superspine.uplinks`. Default: `superspine.uplinks`.")
ASN_POOL = AsnRange("Private ASN range `FIRST-LAST` for this network. Default: 64512-65534 when the largest "
                    "cluster the hardware allows fits in it, else a 4-byte range (backend 4200000000-4200999999, "
                    "frontend 4201000000-4201999999).")

DOCS_FIELDS = {
    "layout": Section("Rack geometry for cable lengths.", {
        "rack_width_m": Num("Rack width, m (0.6).", minimum=0),
        "row_pitch_m": Num("Distance between rows: rack depth plus aisle, m (2.4).", minimum=0),
        "core_row": Num("Where the core row stands, in row pitches; SU rows are 0, 1, ... (-1)."),
        "row_racks": Int("Racks in one row of a top_of_rack backend, whose scalable units (a rack or a few) "
                         "stand side by side in rows of at most this many racks (32). Rail designs: one "
                         "scalable unit a row.", minimum=1),
        "tray_drop_m": Num("Per end, from the port up to the overhead tray, m (1.2).", minimum=0),
        "in_rack_m": Num("A cable whose ends are in the same rack, m (1.5).", minimum=0),
        "slack_m": Num("Added to every cable, m (0.5).", minimum=0),
        "slack_ratio": Num("Added fraction of the routed length (0.1).", minimum=0),
    }),
    "stock_lengths_m": List("Lengths cables are bought in; estimates round up to the next one.",
                            Num("A length in m.", minimum=0)),
    "media": List("Cable media by reach, shortest first, replacing the defaults' list whole (DAC to 3 m, AOC to "
                  "50 m, then SR, DR, FR, LR optics): a cable takes the first whose reach holds its stock length. "
                  "A hall cabled with single-mode fibre and no AOC lists DAC, DR and FR.",
                  Section("A media.", {
                      "name": Str("Name (DAC, AOC, SR, DR, FR, LR, ...): transceiver_codes key it by this.",
                                  required=True),
                      "reach_m": Num("Longest stock length it covers, m.", minimum=0, required=True),
                      "optical": Bool("Fibre (counts toward optical ends).", default=False),
                      "transceivers": Bool("Pluggable optics at both ends (else the cable is the media: DAC, AOC).",
                                           default=False),
                      "cable": Str("Cable item name; `{speed}` is the link speed.", required=True),
                  }), omit=True),
    "currency": Str("Currency of the prices (USD)."),
    "prices": MapOf("Unit price by bill-of-materials item (a model, a transceiver, a cable with or without "
                    "its length).", Num("A price.", minimum=0)),
    "reliability": Section("Link failure figures.", {
        "mttf_years": Num("Mean time to failure of one link, years (5; SemiAnalysis).", minimum=0),
        "mttf_years_by_media": MapOf("MTTF per media (DAC, AOC, SR, DR, FR, LR), years.", Num("Years.", minimum=0)),
        "observed_monthly_failure_rate": Num("Observed fraction of links failing per month (0.00057; Alibaba HPN).",
                                             minimum=0),
        "job": Section("The training job of the headline figure.", {
            "hours": Num("Job length, hours (24).", minimum=0),
            "servers": Int("Servers the job spans (all).", minimum=1),
            "table_hours": List("Job lengths of the table, hours ([1, 24, 168]).", Num("Hours.", minimum=0)),
        }),
    }),
    "diagrams": Section("Graphviz diagrams.", {
        "overview_max_groups": Int("Scalable units are merged into at most this many groups (16).", minimum=1),
        "detail_max_nodes": Int("A role with more devices than this in a view is drawn in groups (48).", minimum=1),
        "full_view_max_devices": Int("The full view is drawn only up to this many devices (200).", minimum=1),
    }),
}

TRAFFIC_CLASS = dict(minimum=0, maximum=7)
QOS_OVERRIDES = Section("Keys merged into the QoS profile (data/qos_profiles.yml), key by key; `classes` "
                        "replaces the profile's list whole. The switches, the server NICs and the validation all "
                        "read the merged profile.", {
                            "description": Str("Free text naming the profile."),
                            "default_traffic_class": Int("Traffic class of every DSCP no class lists.", **TRAFFIC_CLASS),
                            "classes": List("Traffic classes; exactly one should be lossless (the RoCEv2 class).",
                                            Section("A traffic class.", {
                                                "name": Str("Name of the class.", required=True),
                                                "dscp": List("DSCP values of the class.",
                                                             Int("A DSCP value.", minimum=0, maximum=63), default=[]),
                                                "traffic_class": Int("Traffic class, queue and PFC priority.",
                                                                     required=True, **TRAFFIC_CLASS),
                                                "lossless": Bool("PFC on this priority, with its own priority group."),
                                                "ecn": Bool("ECN marking (WRED) on this queue."),
                                                "strict_priority": Bool("Strict priority scheduling (CNP)."),
                                                "dwrr_weight": Int("DWRR weight of the queue.", minimum=1, maximum=100),
                                            })),
                            "ecn": Section("ECN marking thresholds of the ECN queues.", {
                                "min_threshold_bytes": Int("Queue depth where marking starts.", minimum=0),
                                "max_threshold_bytes": Int("Queue depth where marking reaches its probability.",
                                                           minimum=0),
                                "mark_probability_percent": Int("Marking probability at the maximum.", minimum=0,
                                                                maximum=100),
                            }),
                            "pfc_watchdog": Section("PFC watchdog (a port paused too long is unstuck).", {
                                "detection_time_ms": Int("Pause time that triggers the watchdog.", minimum=1),
                                "restoration_time_ms": Int("Time before the queue is restored.", minimum=1),
                                "action": Choice("What the watchdog does to the stuck queue.",
                                                 ["drop", "forward", "alert"]),
                                "poll_interval_ms": Int("Watchdog poll interval.", minimum=1),
                            }),
                        })

SWITCH_MODEL = Section("A switch model.", {
    "description": Str("Free text shown in documents and the bill of materials.", default=""),
    "nos": List("Network operating systems the model runs; a switch role's `nos` must be one of them.",
                Choice("A network OS.", list(nos_names())), default=[DEFAULT_NOS]),
    "mgmt_port": Str("Name of the out-of-band management port. Default: the NOS's management interface "
                     "(data/platforms.yml)."),
    "port_name": Str("Port name pattern; `{lane}` is the port's first lane, `{index}` its 0-based and `{number}` "
                     "its 1-based position. Default: the NOS's interface naming (data/platforms.yml)."),
    "breakout_name": Str("Name pattern of a broken-out port's sub-ports: `{port}` (the cage's name), `{sub}` "
                         "(0-based) and `{number}`, e.g. `{port}s{sub}` (swp1s0). Default: the NOS's "
                         "`breakout_name`, else the port_name at the sub-port's first lane (Ethernet0 and "
                         "Ethernet4 of a 2x400G Ethernet0 under `Ethernet{lane}`).", omit=True),
    "rack_units": Int("Height in rack units (1).", minimum=1, omit=True),
    "power_typical_w": Int("Typical power draw, W.", minimum=0, omit=True),
    "power_max_w": Int("Maximum power draw, W: what a rack's power budget must hold.", minimum=0, omit=True),
    "airflow": Str("Airflow direction(s) the model ships with.", omit=True),
    "port_groups": List("Front-panel ports, in order.", Section("A group of identical ports.", {
        "count": Int("Number of ports in the group.", minimum=1, required=True),
        "speed": Int("Port speed in Gb/s.", minimum=1, required=True),
        "lanes": Int("SerDes lanes per port.", minimum=1, default=1),
        "name_step": Int("Step of {lane} between port names. Default: `lanes`.", minimum=1),
        "first_lane": Int("Lane of the group's first port. Default: right after the previous group.", minimum=0),
        "form_factor": Str("Cage type (QSFP-DD, OSFP, SFP28, RJ45, ...).", default=""),
        "use": Choice("Which side the group serves.", ["any", "down", "up", "none"], default="any"),
        "breakouts": List("Breakout modes the platform lists for the port, COUNTxSPEEDG as in the "
                          "vendor's platform files (2x400G, or 2x400G(8) with its lane count); the planner breaks a port out "
                          "only into a listed mode.", Str("A breakout mode."), default=[]),
    }), required=True),
})

NIC = Section("A server port.", {
    "name": Str("Interface name the OS gives the port.", required=True),
    "speed": Int("Speed in Gb/s.", minimum=1, required=True),
    "rdma": Str("RDMA device name (backend NICs), e.g. mlx5_0."),
})

SERVER_MODEL = Section("A server model.", {
    "description": Str("Free text.", default=""),
    "gpus": Int("GPUs per server; also the number of rails.", minimum=1, required=True),
    "rack_units": Int("Height in rack units.", minimum=1, default=2),
    "power_max_w": Int("Maximum power draw, W: what a rack's power budget must hold (`racks`).", minimum=0,
                       omit=True),
    "cooling": Choice("How the server is cooled.", ["air", "liquid"], omit=True),
    "backend_nics": List("Backend NICs in rail order: NIC i serves GPU i and rail i.", NIC, required=True),
    "backend_nic_model": Str("Model of the backend NICs, from the catalog's `nics` (ConnectX-7, BlueField-3): "
                             "its firmware settings join the RoCE settings every rail NIC gets. Default "
                             "ConnectX-7.", omit=True),
    "frontend_ports": List("Frontend ports; with dual-homing, port 0 goes to leaf A and port 1 to leaf B.",
                           NIC, default=[]),
    "mgmt_port": Section("Host management port (to the OOB network).", NIC.fields, required=True),
    "bmc_port": Section("BMC port (iDRAC) (to the OOB network).", NIC.fields, required=True),
})
