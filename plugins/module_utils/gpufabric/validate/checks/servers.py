"""Server NICs against the plan: each rail NIC's /31 address, and per-NIC policy routing (a rule from the
NIC's address to its own table, whose routes leave through that NIC towards its leaf)."""
from ...ipam import fmt
from .base import FAIL, PASS, Check, for_roles


class ServerAddressing(Check):
    name = "server_addressing"
    description = "every backend NIC holds exactly its planned /31 address"
    sources = for_roles(("gpu_server",), ("addrs",))

    def run(self, ctx):
        results = []
        for dev, state in self.usable(ctx, results):
            for nic in ctx.expect.server_nics(dev.name):
                have = (state.addrs.get(nic.name) or {}).get("ipv4", [])
                if have == [nic.ipv4]:
                    results.append(self.result(dev.name, nic.name, PASS, "%s has %s" % (nic.label(), nic.ipv4)))
                else:
                    results.append(self.result(dev.name, nic.name, FAIL, "%s has %s, planned %s (leaf %s %s): fix the "
                                               "address" % (nic.label(), ", ".join(have) or "no IPv4 address", nic.ipv4,
                                                            nic.peer, nic.peer_port)))
        return results


class ServerPolicyRouting(Check):
    name = "server_policy_routing"
    description = "a source rule and a table per backend NIC, routing through that NIC to its leaf"
    sources = for_roles(("gpu_server",), ("rules", "route_tables"))

    def run(self, ctx):
        results = []
        for dev, state in self.usable(ctx, results):
            for nic in ctx.expect.server_nics(dev.name):
                address = nic.ipv4.split("/")[0]
                gateway = fmt(nic.link.ipv4)   # the leaf holds the lower address of the /31
                tables = [r["table"] for r in state.rules if r["src"] == address]
                if not tables:
                    results.append(self.result(dev.name, nic.name, FAIL, "%s: no `ip rule from %s`; traffic sourced "
                                               "from it may leave through another NIC" % (nic.label(), address)))
                    continue
                routes = state.route_tables.get(tables[0], [])
                if not any(r["dev"] == nic.name and r["gateway"] == gateway for r in routes):
                    results.append(self.result(dev.name, nic.name, FAIL, "%s: table %s (rule from %s) has no route via "
                                               "%s dev %s" % (nic.label(), tables[0], address, gateway, nic.name)))
                    continue
                results.append(self.result(dev.name, nic.name, PASS, "%s: rule from %s -> table %s via %s"
                                           % (nic.label(), address, tables[0], gateway)))
        return results
