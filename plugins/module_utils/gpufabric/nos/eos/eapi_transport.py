"""Validation's way to an EOS switch over its own API: eAPI (JSON-RPC ``runCmds`` over HTTPS) through napalm's eos
driver (eapi.py: the switch's certificate checked against a CA bundle), one connection a device, each of the
collectors' commands its own runCmds call so a command the switch refuses fails only its own observation.

Tool ``eos`` asks for EOS's JSON (the answer is handed to the collectors as a JSON text), ``eos_text`` for its text
(``{"output": ...}``, which the collectors read too). Where a device is reached comes from its host variables
(collectors.API_VARS): {"host", "port", "ca", "user", "password"} per device; no password goes into a message.
"""
import json

from ...device_command import CommandFailed, Unavailable, Unreachable
from ...validate.transport import Transport
from . import eapi

ENCODINGS = {"eos": "json", "eos_text": "text"}


class EapiTransport(Transport):
    """``hosts``: {device: {"host", "port", "ca", "user", "password"}}; ``opener`` opens a napalm eos driver
    (eapi.open_driver's arguments), a stand-in in the unit tests."""
    name = "eapi"

    def __init__(self, hosts, timeout=60, opener=None):
        self.hosts = hosts
        self.timeout = timeout
        self.opener = opener or eapi.open_driver

    def _open(self, device):
        conf = self.hosts.get(device)
        if not conf or not conf.get("host"):
            raise Unreachable("%s: no eAPI address (host variable of collectors.API_VARS)" % device)
        try:
            return self.opener(device, conf["host"], conf.get("user"), conf.get("password"),
                               conf.get("port") or eapi.DEFAULT_PORT, True, conf.get("ca") or None, self.timeout)
        except eapi.EapiError as exc:
            raise Unreachable(str(exc)) from None

    @staticmethod
    def _ask(driver, device, command):
        tool, text = command
        encoding = ENCODINGS.get(tool)
        if encoding is None:
            return Unavailable("%s: eAPI has no %s" % (device, tool))
        from pyeapi.eapilib import CommandError
        try:
            answer = driver.device.run_commands([text], encoding=encoding, send_enable=driver.send_enable)
        except CommandError as exc:
            return CommandFailed("%s: %r refused: %s" % (device, text, " ".join(str(exc).split())[:300]))
        except Exception as exc:  # pyeapi's ConnectionError, ssl's, socket's: the switch stopped answering
            return CommandFailed("%s: %r over eAPI: %s" % (device, text, " ".join(str(exc).split())[:300]))
        return json.dumps(answer[-1] if isinstance(answer, list) and answer else answer)

    def run_many(self, device, commands):
        driver = self._open(device)
        try:
            return [self._ask(driver, device, command) for command in commands]
        finally:
            # Closing a connection that broke may raise anything.
            try:
                driver.close()
            except Exception:  # pylint: disable=broad-except
                pass

    def run(self, device, command):
        out = self.run_many(device, [command])[0]
        if isinstance(out, Exception):
            raise out
        return out
