"""What a tool of tools/ needs of Python, checked before it imports it.

need("report.py", ["matplotlib", "pandas"]) returns when the running
python3 has every module. Otherwise, when Debian's /usr/bin/python3 has
them, it runs the tool again under that interpreter (same arguments, same
environment); else it exits 2 with one line saying what to install.
"""
import importlib.util
import os
import subprocess
import sys

DEBIAN_PYTHON = "/usr/bin/python3"
APT = {"matplotlib": "python3-matplotlib", "pandas": "python3-pandas", "yaml": "python3-yaml"}
_REEXEC = "FLASHSTACK_PYDEPS_REEXEC"


def missing(modules):
    return [m for m in modules if importlib.util.find_spec(m) is None]


def need(tool, modules):
    lacking = missing(modules)
    if not lacking:
        return
    here = os.path.realpath(sys.executable or "")
    if (not os.environ.get(_REEXEC) and os.access(DEBIAN_PYTHON, os.X_OK)
            and os.path.realpath(DEBIAN_PYTHON) != here
            and subprocess.call([DEBIAN_PYTHON, "-c", "import " + ", ".join(lacking)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0):
        os.environ[_REEXEC] = "1"
        sys.stdout.flush()
        os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
    pkgs = " ".join(APT.get(m, m) for m in lacking)
    sys.stderr.write(f"{tool}: needs Python modules {', '.join(lacking)} (Debian: apt install {pkgs}; "
                     f"{sys.executable} lacks them)\n")
    sys.exit(2)
