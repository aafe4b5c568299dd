"""Per-device pages: interfaces with peers and addresses, BGP neighbours, QoS profile."""
from docs_helpers import cables_of, plan_of
from gpufabric.docs.device_pages import render_device_pages


def _pages():
    return render_device_pages(plan_of("lab"), cables_of("lab"))


def test_a_page_per_device():
    assert len(_pages()) == len(plan_of("lab").devices)


def test_leaf_bgp_neighbours_are_the_spines():
    page = _pages()["docs/devices/lab-r0-leaf01.md"]
    bgp = page.split("## BGP neighbours")[1].split("##")[0]
    spines = [d for d in plan_of("lab").devices if d.role == "backend_spine"]
    for spine in spines:
        assert "| %s | %d |" % (spine.name, spine.asn) in bgp
    assert "lab-gpu" not in bgp                       # servers do not run BGP

    assert "`rocev2_lossless`" in page               # the profile the switch configs render


def test_bgp_neighbours_are_the_sessions_of_the_switch_config():
    from gpufabric.build import structured
    plan = plan_of("lab")
    pages = _pages()
    for host, cfg in structured(plan).items():
        if "bgp" not in cfg:
            continue
        bgp = pages["docs/devices/%s.md" % host].split("## BGP neighbours")[1].split("##")[0]
        rows = [line for line in bgp.splitlines() if line.startswith("| ") and "---" not in line][1:]
        assert sorted((n["peer"], n["ip"]) for n in cfg["bgp"]["neighbors"]) == sorted(
            (r.split(" | ")[0][2:], r.split(" | ")[2]) for r in rows), host


def test_server_page_has_addresses_and_no_bgp():
    page = _pages()["docs/devices/lab-gpu0001.md"]
    assert "## BGP neighbours" not in page
    assert "| ens1np0 | backend | 400G | lab-r0-leaf01 | Ethernet0 | 10.0.0.1/31 | 10.0.0.0 |" in page
