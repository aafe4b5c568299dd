"""Tenant isolation on a Cumulus Linux switch as NVUE objects (structured/tenant_acl.py, structured/tenant_vrf.py)."""


def tenants(cfg, doc):
    """Tenant isolation as NVUE objects: ipv4 ACLs bound inbound to the server ports (ACL mode, and the
    free pool in VRF mode); one VRF per tenant holding its ports, leaking through BGP by community."""
    ti = cfg["tenant_isolation"]
    for acl in ti["acls"]:
        rules = {}
        for n, rule in enumerate(acl["rules"], 1):
            dest = "ANY" if rule["destination"] == "any" else rule["destination"]
            rules[str(10 * n)] = {"match": {"ip": {"dest-ip": dest}},
                                  "action": {"permit" if rule["action"] == "permit" else "deny": {}},
                                  "remark": rule["why"][:255]}
        doc.setdefault("acl", {})[acl["name"]] = {"type": "ipv4", "rule": rules}
        for port in acl["ports"]:
            doc["interface"][port].setdefault("acl", {})[acl["name"]] = {"inbound": {}}
    vrfs = ti.get("vrfs") or []
    if not vrfs:
        return
    bgp = cfg["bgp"]
    policy = doc["router"].setdefault("policy", {})
    for vrf in vrfs:
        policy.setdefault("community-list", {})[vrf["community_list"]] = {"rule": {"5": {
            "action": "permit", "community": {vrf["community"]: {}}}}}
        policy.setdefault("route-map", {})[vrf["import_route_map"]] = {"rule": {"10": {
            "match": {"community-list": vrf["community_list"]}, "action": {"permit": {}}}}}
    policy["route-map"][ti["export_route_map"]] = {"rule": {str(10 * k): {
        "match": {"source-vrf": vrf["name"]}, "set": {"community": {vrf["community"]: {}}},
        "action": {"permit": {}}} for k, vrf in enumerate(vrfs, 1)}}
    default_af = doc["vrf"]["default"]["router"]["bgp"]["address-family"]["ipv4-unicast"]
    default_af["route-import"] = {"from-vrf": {"enable": "on", "route-map": ti["export_route_map"],
                                               "list": {vrf["name"]: {} for vrf in vrfs}}}
    for vrf in vrfs:
        for port in vrf["ports"]:
            doc["interface"][port]["ip"]["vrf"] = vrf["name"]
        doc["vrf"][vrf["name"]] = {"router": {"bgp": {
            "enable": "on", "autonomous-system": bgp["asn"], "router-id": bgp["router_id"],
            "address-family": {"ipv4-unicast": {
                "enable": "on", "multipaths": {"ebgp": bgp["max_paths"]},
                "redistribute": {"connected": {"enable": "on"}},
                "route-import": {"from-vrf": {"enable": "on", "route-map": vrf["import_route_map"],
                                              "list": {"default": {}}}}}}}}}
