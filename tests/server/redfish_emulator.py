"""Run sushy-tools' Redfish emulator (its own Flask app, HTTP, routing and templates) for one fake XE9680.

sushy-tools 2.2.0 runs here only with its fake system driver (the libvirt one needs libvirtd), and that driver
answers BIOS and firmware-version calls with NotSupported; its UpdateService also links a FirmwareInventory it
does not serve. This launcher adds the missing parts the way sushy's libvirt driver keeps them (BIOS attributes
and versions per system, in memory) and serves a FirmwareInventory shaped like an iDRAC 9's. Everything else,
including SimpleUpdate (which bumps the BIOS version), PATCH of /BIOS/Settings and ComputerSystem.Reset, is
sushy-tools' own code.

Usage: python redfish_emulator.py PORT [USERNAME PASSWORD]
"""
import sys

import flask
from sushy_tools.emulator import main as emulator
from sushy_tools.emulator.resources.systems import fakedriver

SYSTEM_ID = "27946b59-9e44-4fa7-8e91-f3527a1ef094"
# What a fresh XE9680 reports: a subset of the Dell BIOS registry's names and values.
BIOS = {"BootMode": "Uefi", "SysProfile": "PerfPerWattOptimizedDapc", "LogicalProc": "Enabled",
        "ProcVirtualization": "Enabled", "SriovGlobalEnable": "Disabled", "MmioAbove4Gb": "Enabled",
        "ProcCStates": "Enabled", "NodeInterleave": "Disabled", "WorkloadProfile": "NotAvailable"}
VERSIONS = {"BiosVersion": "1.0.0"}
STATIC_FIRMWARE = [
    ("Installed-25227-7.00.00.00", "Integrated Dell Remote Access Controller", "7.00.00.00", None),
] + [("Installed-0-28.39.1002__NIC.Slot.%d-1-1" % (slot + 31), "Mellanox ConnectX-7 Single Port VPI NDR OSFP Adapter",
      "28.39.1002", None) for slot in range(8)]


class XE9680Driver(fakedriver.FakeDriver):
    """The fake driver plus BIOS attributes and firmware versions."""

    _bios = {}
    _versions = {}

    def get_bios(self, identity):
        return dict(self._bios.setdefault(self.uuid(identity), dict(BIOS)))

    def set_bios(self, identity, attributes):
        self._bios.setdefault(self.uuid(identity), dict(BIOS)).update(attributes)

    def reset_bios(self, identity):
        self._bios[self.uuid(identity)] = dict(BIOS)

    def get_versions(self, identity):
        return dict(self._versions.setdefault(self.uuid(identity), dict(VERSIONS)))

    def set_versions(self, identity, firmware_versions):
        self._versions.setdefault(self.uuid(identity), dict(VERSIONS)).update(firmware_versions)

    def reset_versions(self, identity):
        self._versions[self.uuid(identity)] = dict(VERSIONS)


firmware = flask.Blueprint("FirmwareInventory", __name__, url_prefix="/redfish/v1/UpdateService/FirmwareInventory")


def _items():
    app = flask.current_app
    items = []
    for system in app.systems.systems:
        bios = app.systems.get_versions(system)["BiosVersion"]
        items.append(("Installed-159-" + bios, "BIOS", bios, "/redfish/v1/Systems/" + system))
    return items + STATIC_FIRMWARE


@firmware.route("", methods=["GET"])
def collection():
    members = [{"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/" + i[0]} for i in _items()]
    return flask.jsonify({"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory", "Name": "Firmware Inventory",
                          "Members": members, "Members@odata.count": len(members)})


@firmware.route("/<ident>", methods=["GET"])
def item(ident):
    for i in _items():
        if i[0] == ident:
            body = {"@odata.id": "/redfish/v1/UpdateService/FirmwareInventory/" + ident,
                    "@odata.type": "#SoftwareInventory.v1_5_0.SoftwareInventory", "Id": ident, "Name": i[1],
                    "Version": i[2], "Updateable": True}
            if i[3]:
                body["RelatedItem"] = [{"@odata.id": i[3]}]
            return flask.jsonify(body)
    return flask.jsonify({"error": "not found"}), 404


def run(port, auth_file=None):
    fakedriver.FakeDriver = XE9680Driver
    app = emulator.app
    config = {"SUSHY_EMULATOR_FAKE_DRIVER": True, "SUSHY_EMULATOR_LISTEN_IP": "127.0.0.1",
              "SUSHY_EMULATOR_FAKE_SYSTEMS": [{"uuid": SYSTEM_ID, "name": "lab-gpu0001", "power_state": "On",
                                               "external_notifier": False, "nics": []}]}
    if auth_file:
        config["SUSHY_EMULATOR_AUTH_FILE"] = auth_file
    app.configure(extra_config=config)
    app.register_blueprint(firmware)
    app.run(host="127.0.0.1", port=port)


if __name__ == "__main__":
    run(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
