"""Runs a tool under Debian's python3 when the python3 that started it lacks
the Debian packages it needs (matplotlib, pandas, yaml).

`python3 tools/X.py` may start a python3 first on PATH that is not Debian's
(a pyenv or venv one without those packages): the tool then re-executes
itself with /usr/bin/python3, or, when that is not possible, exits 2 with
one line naming the interpreter and the packages it needs.
"""
import os
import sys

DEBIAN_PYTHON = "/usr/bin/python3"


def require(modules, packages):
    """Imports every module of `modules` (names) or re-executes the tool
    under Debian's python3; `packages` names the Debian packages for the
    message."""
    missing = []
    for m in modules:
        try:
            __import__(m)
        except ImportError:
            missing.append(m)
    if not missing:
        return
    here = os.path.realpath(sys.executable or "")
    if here != os.path.realpath(DEBIAN_PYTHON) and os.access(DEBIAN_PYTHON, os.X_OK) \
            and not os.environ.get("FLASHSTACK_TOOLS_REEXEC"):
        os.environ["FLASHSTACK_TOOLS_REEXEC"] = "1"
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: needs Python modules {', '.join(missing)}: run it with "
                     f"{DEBIAN_PYTHON} and the Debian packages {packages} installed\n")
    sys.exit(2)
