"""The one error of the EOS emulator's translation (translate.py, acl.py, vrfs.py)."""


class Unsupported(ValueError):
    """A committed line the twin cannot make real (the message names it)."""
