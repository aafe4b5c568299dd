"""Offline stand-in for the get-pip.py script that ansible-test bootstraps pip with.

ansible-test creates each sanity test virtual environment without pip and
downloads get-pip.py from ci-files.testing.ansible.com to install it; that
host is not reachable here. ansible-test first looks for a cached copy in
~/.ansible/test/cache/get_pip_<version>.py, so `make sanity` puts this file
there: it installs pip from the interpreter's bundled wheel (ensurepip), then
lets that pip install the exact pip version ansible-test asked for from the
package index.
"""

from __future__ import annotations

import subprocess
import sys

# Options that only get-pip.py understands; `pip install` rejects them.
GET_PIP_ONLY_OPTIONS = {"--no-setuptools", "--no-wheel"}


def main() -> None:
    """Install pip, then pip install the arguments ansible-test passed."""
    subprocess.run([sys.executable, "-m", "ensurepip", "--default-pip"], check=True, stdout=subprocess.DEVNULL)
    pip_args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY_OPTIONS]
    subprocess.run([sys.executable, "-m", "pip", "install", "--upgrade", *pip_args], check=True)


if __name__ == "__main__":
    main()
