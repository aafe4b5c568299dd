"""Validation of a live cluster against its plan, the way ANTA does it for Arista fabrics, for any NOS.

    transport.py   how a command reaches a device (network namespace of the twin, OpenSSH)
    state.py       one DeviceState per device, collected once, shared by every check
    napalm_state.py the same DeviceState through NAPALM getters
    parsers.py     vtysh / lldpcli / ip -j / mlnx_qos output -> plain data (a NOS's own: its collectors.py)
    expect.py      what the plan and the structured configs say each device should show
    checks/        small check classes: PASS / FAIL / SKIP / ERROR naming device, check and object
    runner.py      collect concurrently with a bound, run the checks, time it
    report.py      JSON, Markdown, JUnit XML and a stdout summary
"""
