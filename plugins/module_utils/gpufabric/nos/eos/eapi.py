"""The way to an EOS switch's eAPI: napalm's eos driver over HTTPS (pyeapi's ``https`` transport) with the switch's
certificate checked against a CA bundle, and eAPI's JSON answers read in one runCmds call.

pyeapi 1.0's https transport skips the certificate check unless it is given an SSL context (pyeapi/eapilib.py,
HttpsEapiConnection), so a context is always passed: one that checks the certificate and the switch's name (or
address) against ``ca_path`` (else the system's CAs), or, with ``validate_certs`` false (a lab only), one that
does not. napalm and pyeapi are imported when a switch is opened, not with this module."""
import json
import ssl

DEFAULT_PORT = 443


class EapiError(Exception):
    """The switch could not be reached or refused the deploy's account; the message says which and why."""


class Refused(Exception):
    """The switch answered, refusing a command (eAPI's error object): EOS's words, one line."""


def ssl_context(validate_certs=True, ca_path=None):
    if not validate_certs:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    return ssl.create_default_context(cafile=ca_path or None)


def open_driver(hostname, host, user, password, port=DEFAULT_PORT, validate_certs=True, ca_path=None, timeout=60):
    """An opened napalm eos driver for the switch at ``host``:``port`` (``hostname`` names it in messages)."""
    try:
        from napalm.eos import EOSDriver
    except ImportError:
        raise EapiError("%s: napalm (its eos driver) is not installed on the controller: pip install napalm "
                        "(requirements.txt)" % hostname) from None
    try:
        context = ssl_context(validate_certs, ca_path)
    except (OSError, ssl.SSLError) as exc:
        raise EapiError("%s: the CA bundle %s cannot be read: %s" % (hostname, ca_path, exc)) from None
    driver = EOSDriver(host, user, password, timeout=int(timeout),
                       optional_args={"transport": "https", "port": int(port), "context": context})
    try:
        driver.open()
    except Exception as exc:  # napalm's ConnectionException, pyeapi's errors, ssl's, socket's
        raise EapiError("%s: eAPI at https://%s:%s/command-api did not open: %s"
                        % (hostname, host, port, " ".join(str(exc).split())[:300])) from None
    return driver


def run_json(driver, commands):
    """[answer] of EOS ``commands`` in JSON, in one runCmds call, as a JSON text (what the home's readers take).
    Raises Refused when the switch refuses one; what cannot reach it raises as pyeapi raises it."""
    from pyeapi.eapilib import CommandError

    try:
        return json.dumps(driver.device.run_commands(list(commands), encoding="json", send_enable=driver.send_enable))
    except CommandError as exc:
        raise Refused(" ".join(str(exc).split())[:300]) from None
