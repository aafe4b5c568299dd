"""spec -> plan: every device, rack and cable of the cluster, with its addresses and ASNs.

Everything is allocated from positions (scalable unit, rail, pod, port), never from a running
counter, so growing `servers.count` adds devices and cables at the end and changes nothing that is
already allocated. Where each kind of number comes from:

- ports: ``_backend_links`` / ``_frontend_links`` / ``_oob`` (leaf port = server position in its unit)
- /31s and server-link blocks: ``_address_backend`` / ``_address_frontend``
- loopbacks, management IPs and ASNs: ``_address_*`` and ``_asn_base``
"""
from .catalog import Catalog
from .errors import SpecError
from .ipam import Pool, block_size_for
from .model import Device, Link, Plan, Rack
from .sizing import Clos, ceil_div
from .spec import ROLES, validate

# The private 2-byte ASN range is shared by the two networks; each falls back to a 4-byte range of
# its own when the largest cluster its hardware allows would not fit in its half.
ASN_AUTO = {"backend": ((64512, 65023), (4200000000, 4200999999)),
            "frontend": ((65024, 65534), (4201000000, 4201999999))}
ASN_MAX = 4294967294


def build_plan(raw_spec):
    """Validate a spec (a dict as read from YAML) and return its Plan."""
    spec = validate(raw_spec)
    return Planner(spec, Catalog(spec["models"])).build()


class Planner:
    def __init__(self, spec, catalog):
        self.spec = spec
        self.catalog = catalog
        self.plan = Plan(spec, catalog)
        self.cluster = spec["cluster"]["name"]
        self.server_model = catalog.server(spec["servers"]["model"], "servers.model")
        self.R = self.server_model.gpus
        self.N = spec["servers"]["count"]
        self._racks = {}
        self._names = {}
        self.used_pools = []

    # ----------------------------------------------------------------- sizing
    def _size(self):
        be = self.spec["backend"]
        design = be["design"]
        if design == "rail_only":
            for key in ("spine", "superspine"):
                if be[key] is not None:
                    raise SpecError("backend." + key, "rail_only has no %ss: remove backend.%s or choose "
                                    "rail_optimized or rail_planes" % (key, key))
        elif be["spine"] is None:
            raise SpecError("backend.spine", "missing: %s needs spines (or choose design rail_only)" % design)
        group, planes = (self.R, 1) if design == "rail_optimized" else (1, self.R if design == "rail_planes" else 1)
        if design == "rail_only":
            group = self.R
        nic_speeds = [n["speed"] for n in self.server_model.backend_nics]
        self.be = Clos("backend", "backend", self.catalog, be["leaf"], be["spine"], be["superspine"], group, planes,
                       nic_speeds, label=design)
        self.design = design
        self.d = self.be.d                      # servers per scalable unit
        self.n_su = ceil_div(self.N, self.d)
        leaves_per_plane = self.n_su * group
        if design == "rail_only":
            self.servers_max = self.d
            if self.n_su > 1:
                ports = len(self.be.leaf_model.ports)
                raise SpecError("servers.count", "rail_only with %d-port switches holds at most %d GPUs; the spec asks "
                                "for %d: use rail_optimized or a larger switch" % (
                                    ports, self.d * self.R, self.N * self.R))
        else:
            self.servers_max = self.be.max_leaves // group * self.d
            self.be.check_fits(leaves_per_plane, self.N, self.servers_max, self.R)
        self.be_pods = 1 if self.be.tiers < 3 else self.be.pods_for(leaves_per_plane)
        self.sus_per_pod = self.be.leaves_per_pod // group

        fe = self.spec["frontend"]
        self.fe = None
        if fe is not None:
            ports = self.server_model.frontend_ports
            if len(ports) < 2:
                raise SpecError("servers.model", "%s has %d frontend port(s); a dual-homed frontend needs 2 "
                                "(add frontend_ports to the model or remove the frontend section)" % (
                                    self.server_model.name, len(ports)))
            peer = fe["peer_links"] if fe["peer_links"] is not None else (2 if fe["dual_homing"] == "mclag" else 0)
            if fe["dual_homing"] == "evpn_mh" and peer:
                raise SpecError("frontend.peer_links", "EVPN multihoming has no peer link: set it to 0 or use mclag")
            self.fe = Clos("frontend", "frontend", self.catalog, fe["leaf"], fe["spine"], fe["superspine"], 2, 1,
                           [p["speed"] for p in ports[:2]], reserve_up=peer, label="frontend")
            self.spp = self.fe.d                # servers per leaf pair
            self.n_pairs = ceil_div(self.N, self.spp)
            self.fe.check_fits(2 * self.n_pairs, self.N, self.fe.max_leaves // 2 * self.spp, self.R)
            self.fe_pods = 1 if self.fe.tiers < 3 else self.fe.pods_for(2 * self.n_pairs)
            self.fe_pod_servers = self.fe.leaves_per_pod // 2 * self.spp

    # ------------------------------------------------------------------ layout
    def _layout(self):
        """Rack geometry. Each scalable unit is a row: its server racks, then its network racks (its
        rail leaves, the frontend pairs and pod spines that start in it). Fixed-size tiers sit in a core row."""
        spr = self.spec["layout"]["switches_per_rack"]
        self.spr = spr
        self.server_racks_per_su = ceil_div(self.d, self.spec["servers"]["per_rack"])
        slots = self.R
        self.off_fe_leaf = slots
        if self.fe:
            self.max_pairs_su = ceil_div(self.d, self.spp)
            slots += 2 * self.max_pairs_su
        self.off_be_spine = slots
        if self.be.tiers == 3:
            slots += self.be.planes * self.be.S
        self.off_fe_spine = slots
        if self.fe and self.fe.tiers == 3:
            self.max_fepods_su = ceil_div(self.d, self.fe_pod_servers)
            slots += self.max_fepods_su * self.fe.S
        self.net_racks_per_su = ceil_div(slots, spr)
        self.max_cols = self.server_racks_per_su + self.net_racks_per_su
        core = 0
        if self.be.tiers == 2:
            core += self.be.planes * self.be.S
        if self.be.tiers == 3:
            core += self.be.planes * self.be.S * self.be.SS
        if self.fe:
            core += self.fe.S if self.fe.tiers == 2 else self.fe.S * self.fe.SS
        self.core_racks = ceil_div(core, spr)
        self._core_next = 0

    def _rack(self, su, col):
        key = (su, col)
        rack = self._racks.get(key)
        if rack is None:
            if su < 0:
                rack = Rack("core-r%02d" % (col + 1), -1, col, "core", col)
            else:
                kind = "server" if col < self.server_racks_per_su else "network"
                rack = Rack("su%02d-r%02d" % (su + 1, col + 1), su, col, kind,
                            self.core_racks + su * self.max_cols + col)
            self._racks[key] = rack
        return rack

    def _net_place(self, su, slot):
        return self._rack(su, self.server_racks_per_su + slot // self.spr), slot % self.spr

    def _core_place(self):
        slot = self._core_next
        self._core_next += 1
        return self._rack(-1, slot // self.spr), slot % self.spr

    # ----------------------------------------------------------------- naming
    def _default_patterns(self):
        c = "{cluster}"
        planes = self.design == "rail_planes"
        r = "-r{rail}" if planes else ""
        be_spine = c + r + ("-pod{pod:02d}" if self.be.tiers == 3 else "") + "-spine{n:02d}"
        fe_spine = c + "-fe" + ("-pod{pod:02d}" if self.fe and self.fe.tiers == 3 else "") + "-spine{n:02d}"
        return {
            "server": c + "-gpu{n:04d}",
            "backend_leaf": c + "-r{rail}-leaf{n:02d}",
            "backend_spine": be_spine,
            "backend_superspine": c + r + "-ssp{plane}-{n:02d}",
            "frontend_leaf": c + "-fe-leaf{n:02d}{side}",
            "frontend_spine": fe_spine,
            "frontend_superspine": c + "-fe-ssp{plane}-{n:02d}",
            "oob_switch": c + "-oob-{rack}" + ("-{n}" if self.oob_per_rack > 1 else ""),
        }

    def _name(self, role, **fields):
        pattern = self.patterns[role]
        fields["cluster"] = self.cluster
        try:
            name = pattern.format_map(fields)
        except (KeyError, IndexError, ValueError, AttributeError) as exc:
            raise SpecError("cluster.hostnames." + role, "cannot use %r (%s: %s); fields for this role: %s" % (
                pattern, type(exc).__name__, exc, ", ".join("{%s}" % k for k in sorted(fields))))
        prev = self._names.get(name)
        if prev is not None:
            raise SpecError("cluster.hostnames." + role, "pattern %r gives the name %r to two devices (%s and %s): add {n} or another "
                            "field that tells them apart" % (pattern, name, prev, role))
        self._names[name] = role
        return name

    # ---------------------------------------------------------------- devices
    def build(self):
        self._size()
        self._layout()
        oob_model = self.catalog.switch(self.spec["oob"]["switch"]["model"], "oob.switch.model")
        self.oob_model = oob_model
        self.oob_ports = oob_model.usable("down") + oob_model.usable("any")
        if not self.oob_ports:
            raise SpecError("oob.switch.model", "%s has no access ports (groups with use down or any)" % oob_model.name)
        self.oob_per_rack = ceil_div(max(2 * self.spec["servers"]["per_rack"], self.spr), len(self.oob_ports))
        self.spec_patterns = {k: v for k, v in self.spec["cluster"]["hostnames"].items() if v}
        self.patterns = dict(self._default_patterns(), **self.spec_patterns)

        self._servers()
        self._backend()
        if self.fe:
            self._frontend()
        self._oob()
        self._address_backend()
        if self.fe:
            self._address_frontend()
        self._address_mgmt()
        self._check_pool_overlap()
        self.plan.racks = sorted(self._racks.values(), key=lambda r: r.ordinal)
        from .summary import summarize
        self.plan.summary = summarize(self)
        return self.plan

    def _servers(self):
        per_rack = self.spec["servers"]["per_rack"]
        add = self.plan.add
        self.servers = []
        for i in range(self.N):
            su, pos = divmod(i, self.d)
            rack = self._rack(su, pos // per_rack)
            dev = Device(self._name("server", n=i + 1, index=i, su=su + 1, rack=rack.name), "gpu_server",
                         self.server_model, i, rack, pos % per_rack, su=su)
            self.servers.append(add(dev))

    def _clos_devices(self, clos, role_prefix, leaf_place, leaf_fields, n_leaves, pods, spine_place):
        """Leaves (given), spines per pod and plane, superspines per plane: devices in position order."""
        leaves = []
        for idx in range(n_leaves):
            fields, plane, pos = leaf_fields(idx)
            rack, slot = leaf_place(idx)
            pod = pos // clos.leaves_per_pod if clos.tiers == 3 else 0
            fields.update(index=idx, rack=rack.name, pod=pod + 1)
            dev = Device(self._name(role_prefix + "_leaf", **fields), role_prefix + "_leaf", clos.leaf_model, idx,
                         rack, slot, rail=fields.get("rail"), su=fields.get("su", 0) - 1 if "su" in fields else None,
                         pod=pod, plane=plane, side=fields.get("side"))
            leaves.append(self.plan.add(dev))
        spines, supers = [], []
        rails = self.design == "rail_planes" and role_prefix == "backend"
        for pod in range(pods if clos.tiers else 0):
            for plane in range(clos.planes):
                for j in range(clos.S):
                    idx = (pod * clos.planes + plane) * clos.S + j
                    rack, slot = spine_place(pod, plane, j)
                    fields = dict(n=j + 1, index=idx, pod=pod + 1, plane=plane + 1, rack=rack.name,
                                  rail=plane if rails else "")
                    dev = Device(self._name(role_prefix + "_spine", **fields), role_prefix + "_spine",
                                 clos.spine_model, idx, rack, slot, rail=plane if rails else None, pod=pod, plane=plane)
                    spines.append(self.plan.add(dev))
        if clos.tiers == 3:
            for plane in range(clos.planes):
                for j in range(clos.S):
                    for k in range(clos.SS):
                        idx = (plane * clos.S + j) * clos.SS + k
                        rack, slot = self._core_place()
                        fields = dict(n=k + 1, index=idx, plane=j + 1, rack=rack.name, rail=plane if rails else "")
                        dev = Device(self._name(role_prefix + "_superspine", **fields), role_prefix + "_superspine",
                                     clos.super_model, idx, rack, slot, rail=plane if rails else None, plane=j)
                        supers.append(self.plan.add(dev))
        return leaves, spines, supers

    def _backend(self):
        R, be = self.R, self.be
        planes = self.design == "rail_planes"

        def leaf_fields(idx):
            su, rail = divmod(idx, R)
            return dict(rail=rail, su=su + 1, n=su + 1), (rail if planes else 0), (su if planes else idx)

        def spine_place(pod, plane, j):
            if be.tiers == 2:
                return self._core_place()
            return self._net_place(pod * self.sus_per_pod, self.off_be_spine + plane * be.S + j)

        self.leaves, self.spines, self.supers = self._clos_devices(
            be, "backend", lambda idx: self._net_place(idx // R, idx % R), leaf_fields, self.n_su * R,
            self.be_pods, spine_place)
        self._backend_links()

    def _backend_links(self):
        be, R, connect = self.be, self.R, self.plan.connect
        nics = [n["name"] for n in self.server_model.backend_nics]
        leaf_ports = [p[0] for p in be.leaf_model.ports]
        down = [leaf_ports[p] for p in be.leaf_down]
        speed = self.server_model.backend_nics[0]["speed"]
        for dev in self.servers:
            su, pos = divmod(dev.index, self.d)
            for rail in range(R):
                connect(Link("backend", "server", self.leaves[su * R + rail], down[pos], dev, nics[rail], speed))
        if be.tiers < 2:
            return
        self._fabric_links("backend", be, self.leaves, self.spines, self.supers,
                           lambda leaf: (leaf.plane, leaf.index if self.design != "rail_planes" else leaf.index // R))

    def _fabric_links(self, network, clos, leaves, spines, supers, plane_pos):
        """Leaf uplink k goes to spine k // m1 of its pod; spine uplink k to superspine k // m2 of its plane."""
        connect = self.plan.connect
        lp, sp = clos.leaf_model.ports, clos.spine_model.ports
        leaf_up = [lp[p][0] for p in clos.leaf_up]
        spine_down = [sp[p][0] for p in clos.spine_down]
        speed = lp[clos.leaf_up[0]][1]
        S, m1, P = clos.S, clos.m1, clos.planes
        for leaf in leaves:
            plane, pos = plane_pos(leaf)
            pod, in_pod = divmod(pos, clos.leaves_per_pod)
            base = (pod * P + plane) * S
            for k, port in enumerate(leaf_up):
                j, link = divmod(k, m1)
                connect(Link(network, "leaf-spine", spines[base + j], spine_down[in_pod * m1 + link], leaf, port, speed))
        if clos.tiers < 3:
            return
        up = [sp[p][0] for p in clos.spine_up]
        ssp = clos.super_model.ports
        super_down = [ssp[p][0] for p in clos.super_down]
        speed = sp[clos.spine_up[0]][1]
        SS, m2 = clos.SS, clos.m2
        for spine in spines:
            base = (spine.plane * S + spine.index % S) * SS
            for k, port in enumerate(up):
                s, link = divmod(k, m2)
                connect(Link(network, "spine-superspine", supers[base + s], super_down[spine.pod * m2 + link],
                             spine, port, speed))

    def _frontend(self):
        fe, spp, d = self.fe, self.spp, self.d

        def pair_su(p):
            return p * spp // d

        def leaf_place(idx):
            p, side = divmod(idx, 2)
            su = pair_su(p)
            q = p - ceil_div(su * d, spp)
            return self._net_place(su, self.off_fe_leaf + 2 * q + side)

        def leaf_fields(idx):
            p, side = divmod(idx, 2)
            return dict(n=p + 1, side="ab"[side], su=pair_su(p) + 1), 0, idx

        def spine_place(pod, plane, j):
            if fe.tiers == 2:
                return self._core_place()
            first = pod * self.fe_pod_servers
            su = first // d
            q = pod - ceil_div(su * d, self.fe_pod_servers)
            return self._net_place(su, self.off_fe_spine + q * fe.S + j)

        self.fe_leaves, self.fe_spines, self.fe_supers = self._clos_devices(
            fe, "frontend", leaf_place, leaf_fields, 2 * self.n_pairs, self.fe_pods, spine_place)
        for leaf in self.fe_leaves:
            leaf.side = "ab"[leaf.index % 2]
        lp = fe.leaf_model.ports
        down = [lp[p][0] for p in fe.leaf_down]
        ports = self.server_model.frontend_ports
        connect = self.plan.connect
        for dev in self.servers:
            p, pos = divmod(dev.index, spp)
            for side in (0, 1):
                connect(Link("frontend", "server", self.fe_leaves[2 * p + side], down[pos], dev, ports[side]["name"],
                             ports[side]["speed"]))
        for p in range(self.n_pairs):
            for port in fe.leaf_reserved:
                connect(Link("frontend", "peer", self.fe_leaves[2 * p], lp[port][0], self.fe_leaves[2 * p + 1],
                             lp[port][0], lp[port][1]))
        if fe.tiers >= 2:
            self._fabric_links("frontend", fe, self.fe_leaves, self.fe_spines, self.fe_supers,
                               lambda leaf: (0, leaf.index))

    def _oob(self):
        """One or more management switches per rack; every BMC, host management port and switch
        management port lands on the switch of its own rack, at a port given by its slot."""
        per_rack = {}
        for dev in self.plan.devices:
            per_rack.setdefault(dev.rack.ordinal, []).append(dev)
        A = len(self.oob_ports)
        oob_ports = [self.oob_model.ports[p][0] for p in self.oob_ports]
        speed = self.oob_model.ports[self.oob_ports[0]][1]
        connect = self.plan.connect
        for ordinal in sorted(per_rack):
            devs = per_rack[ordinal]
            rack = devs[0].rack
            ends = []
            for dev in devs:
                if dev.role == "gpu_server":
                    ends.append((2 * dev.slot, dev, self.server_model.bmc_port["name"]))
                    ends.append((2 * dev.slot + 1, dev, self.server_model.mgmt_port["name"]))
                else:
                    ends.append((dev.slot, dev, dev.model.mgmt_port))
            switches = {}
            for e, dev, port in sorted(ends, key=lambda x: x[0]):
                k, pidx = divmod(e, A)
                sw = switches.get(k)
                if sw is None:
                    idx = rack.ordinal * self.oob_per_rack + k
                    sw = Device(self._name("oob_switch", n=k + 1, index=idx, rack=rack.name), "oob_switch",
                                self.oob_model, idx, rack, None)
                    switches[k] = sw
                    self.plan.add(sw)
                connect(Link("oob", "oob", sw, oob_ports[pidx], dev, port, speed))

    # -------------------------------------------------------------- addressing
    def _asn_base(self, network, clos, units_max, units_used):
        """First ASN of a network: unit 0 is the superspine layer, then one per spine group
        (pod x plane), then one per leaf unit (a backend leaf, a frontend pair)."""
        groups_max = clos.planes * clos.max_pods
        need_max = 1 + groups_max + units_max
        raw = self.spec[network]["asn_pool"]
        path = network + ".asn_pool"
        if raw is None:
            (lo, hi), wide = ASN_AUTO[network]
            first, last = (lo, hi) if need_max <= hi - lo + 1 else wide
        else:
            first, last = (int(x) for x in raw.split("-"))
            if not 1 <= first <= last <= ASN_MAX:
                raise SpecError(path, "%r is not a range FIRST-LAST within 1-%d" % (raw, ASN_MAX))
        need = 1 + groups_max + units_used
        if need > last - first + 1:
            raise SpecError(path, "ASN range %d-%d is exhausted: the plan needs %d ASNs (1 superspine layer, %d spine "
                            "groups reserved for growth, %d leaf units), the range holds %d: widen it, e.g. 4-byte "
                            "private ASNs %d-%d" % (first, last, need, groups_max, units_used, last - first + 1,
                                                    ASN_AUTO[network][1][0], ASN_AUTO[network][1][1]))
        return first, 1 + groups_max

    def _pool(self, path, cidr):
        pool = Pool(path, cidr)
        self.used_pools.append(pool)
        return pool

    def _role_blocks(self, path, cidr):
        return self._pool(path, cidr).split(4)

    @staticmethod
    def _place_loopbacks(devices, block, v6=False):
        if not devices:
            return
        block.require(max(d.index for d in devices) + 2, "%d %s loopbacks" % (len(devices), devices[0].role))
        for dev in devices:
            if v6:
                dev.loopback6 = block.base + 1 + dev.index
            else:
                dev.loopback = block.base + 1 + dev.index

    def _address_fabric(self, network, clos, leaves, spines, supers):
        pools = self.spec[network]["pools"]
        path = network + ".pools."
        for key, v6 in (("loopbacks", False), ("loopbacks_ipv6", True)):
            if pools[key] is None:
                continue
            blocks = self._role_blocks(path + key, pools[key])
            for devs, block in zip((leaves, spines, supers), blocks):
                self._place_loopbacks(devs, block, v6)
        tiers = (("leaf-spine", "leaf_spine", clos.u), ("spine-superspine", "spine_superspine", len(clos.spine_up)))
        for tier, key, per in tiers:
            lower = leaves if tier == "leaf-spine" else spines
            if not lower or clos.tiers < (2 if tier == "leaf-spine" else 3):
                continue
            for suffix, attr, width in (("", "ipv4", 2), ("_ipv6", "ipv6", 2)):
                if pools[key + suffix] is None:
                    continue
                pool = self._pool(path + key + suffix, pools[key + suffix])
                pool.require(width * per * (max(d.index for d in lower) + 1), "%d %s links" % (per * len(lower), tier))
                for dev in lower:
                    first = dev.index * per
                    k = 0
                    for link in dev.links:
                        if link.tier == tier and link.b is dev:
                            setattr(link, attr, pool.base + width * (first + k))
                            k += 1

    def _address_backend(self):
        be = self.spec["backend"]
        pools = be["pools"]
        if be["ipv6"] and not (pools["loopbacks_ipv6"] and pools["server_links_ipv6"]):
            missing = "loopbacks_ipv6" if not pools["loopbacks_ipv6"] else "server_links_ipv6"
            raise SpecError("backend.pools." + missing, "backend.ipv6 is true but this pool is not set: give an "
                            "IPv6 CIDR such as fd00:%s::/48" % ("1" if missing.startswith("loop") else "2"))
        first, off = self._asn_base("backend", self.be, self.be.planes * self.be.max_leaves, len(self.leaves))
        R, P = self.R, self.be.planes
        for leaf in self.leaves:
            leaf.asn = first + off + leaf.index
        for spine in self.spines:
            spine.asn = first + 1 + spine.pod * P + spine.plane
        for sup in self.supers:
            sup.asn = first
        block = block_size_for(2 * self.d)
        for key, attr in (("server_links", "ipv4"), ("server_links_ipv6", "ipv6")):
            if pools[key] is None or (attr == "ipv6" and not be["ipv6"]):
                continue
            pool = self._pool("backend.pools." + key, pools[key])
            pool.require(block * len(self.leaves), "%d leaves x %d addresses (2 x %d downlinks, aligned)"
                         % (len(self.leaves), block, self.d))
            prefix = pool.prefix_for(block)
            for leaf in self.leaves:
                base = pool.base + leaf.index * block
                if attr == "ipv4":
                    leaf.server_block = (base, prefix)
            for dev in self.servers:
                su, pos = divmod(dev.index, self.d)
                for rail, link in enumerate(x for x in dev.links if x.network == "backend"):
                    setattr(link, attr, pool.base + (su * R + rail) * block + 2 * pos)
        if not be["ipv6"]:
            for key in ("loopbacks_ipv6", "leaf_spine_ipv6", "spine_superspine_ipv6"):
                pools[key] = None
        self._address_fabric("backend", self.be, self.leaves, self.spines, self.supers)

    def _address_frontend(self):
        fe = self.spec["frontend"]
        first, off = self._asn_base("frontend", self.fe, self.fe.max_leaves // 2, self.n_pairs)
        for leaf in self.fe_leaves:
            leaf.asn = first + off + leaf.index // 2
        for spine in self.fe_spines:
            spine.asn = first + 1 + spine.pod
        for sup in self.fe_supers:
            sup.asn = first
        block = block_size_for(self.spp + 5)  # network, gateway, leaf A, leaf B, servers, broadcast
        pool = self._pool("frontend.pools.servers", fe["pools"]["servers"])
        pool.require(block * self.n_pairs, "%d leaf pairs x %d addresses (%d servers + network, gateway, 2 leaves, "
                     "broadcast)" % (self.n_pairs, block, self.spp))
        prefix = pool.prefix_for(block)
        for leaf in self.fe_leaves:
            p, side = divmod(leaf.index, 2)
            base = pool.base + p * block
            leaf.frontend_block = (base, prefix)
            leaf.frontend_ip = base + 2 + side
        for dev in self.servers:
            p, pos = divmod(dev.index, self.spp)
            base = pool.base + p * block
            dev.frontend_block = (base, prefix)
            dev.frontend_ip = base + 4 + pos
        for key in ("loopbacks_ipv6", "leaf_spine_ipv6", "spine_superspine_ipv6"):
            fe["pools"][key] = None
        self._address_fabric("frontend", self.fe, self.fe_leaves, self.fe_spines, self.fe_supers)

    def _address_mgmt(self):
        """Flat management pool: first quarter for switches (eight blocks, one per role, each switch at
        its position), the rest for servers (BMC, then host port), the last usable address the gateway."""
        pool = self._pool("oob.pool", self.spec["oob"]["pool"])
        if pool.size < 64:
            raise SpecError("oob.pool", "pool %s is too small: use a /26 or larger" % pool.cidr)
        quarter = pool.size // 4
        block = quarter // 8
        by_role = {}
        for dev in self.plan.devices:
            if dev.role != "gpu_server":
                by_role.setdefault(dev.role, []).append(dev)
        for i, role in enumerate(ROLES):
            devs = by_role.get(role)
            if not devs:
                continue
            need = max(d.index for d in devs) + 2
            if need > block:
                raise SpecError("oob.pool", "pool %s is too small: %s management addresses reach position %d but "
                                "each switch role has a block of %d (an eighth of the first quarter): use a /%d or "
                                "larger" % (pool.cidr, role, need - 1, block,
                                            pool.bits - ((need * 32 - 1).bit_length())))
            base = pool.base + i * block + 1
            for dev in devs:
                dev.mgmt = base + dev.index
        region = pool.base + quarter
        last = pool.base + pool.size - 3  # broadcast and gateway above it
        if region + 2 * self.N > last:
            need = 2 * self.N * 4 // 3 + 4
            raise SpecError("oob.pool", "pool %s is too small: %d servers need %d BMC and host addresses in the "
                            "last three quarters, which hold %d: use a /%d or larger" % (
                                pool.cidr, self.N, 2 * self.N, last - region + 1,
                                pool.bits - ((need - 1).bit_length())))
        for dev in self.servers:
            dev.bmc = region + 1 + 2 * dev.index
            dev.mgmt = dev.bmc + 1
        self.plan.mgmt_gateway = pool.base + pool.size - 2
        self.plan.mgmt_prefix = pool.bits - (pool.size.bit_length() - 1)

    def _check_pool_overlap(self):
        pools = sorted(self.used_pools, key=lambda p: (p.version, p.base))
        for a, b in zip(pools, pools[1:]):
            if a.overlaps(b):
                raise SpecError(b.path, "%s overlaps %s (%s): address pools must not overlap" % (b.cidr, a.path, a.cidr))
