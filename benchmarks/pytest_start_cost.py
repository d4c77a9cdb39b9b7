"""What geonh's pytest plugin adds to every pytest start: fresh processes, medians.

    python benchmarks/pytest_start_cost.py [--runs 9]

pytest loads the module of every ``pytest11`` entry point when it starts, so with geonh
installed each pytest run — in any project of that environment — loads geonh's plugin.  Each
probe is ``pytest.main(["--co", "-q", "-p", "no:cacheprovider", ...])`` on an empty directory
(with an empty ``pytest.ini``, so no ini file or conftest.py of a parent directory is read) in
a fresh interpreter, timed from before ``import pytest`` to the end of the session (wall by
perf_counter, CPU by process_time; the interpreter's own start-up left out), alternating:

``no geonh plugin``
    ``-p no:geonh``: pytest and every other installed plugin, the floor.
``geonh plugin``
    as installed: geonh's ``pytest11`` entry point loaded (``_geonh_pytest`` since session 18).
``old geonh plugin``
    ``-p no:geonh -p geonh.testing.plugin``: a module inside the package loaded as a plugin,
    which is what the entry point loaded before session 18 (importing it runs
    ``geonh/__init__.py``, which imports sympy).

``geonh plugin`` − ``no geonh plugin`` is what geonh's plugin costs every pytest run now.  Run
the script with the interpreter of an environment holding main's entry point for the "before"
figures (its ``geonh plugin`` row then is the old plugin).  The runner (fresh interpreter,
warm-up, alternation, medians) is benchmarks/hypothesis_import_cost.py's.
"""
from __future__ import annotations

import argparse
import os
import tempfile

from hypothesis_import_cost import measure, print_table
from import_time import child_env  # same bytecode-cache policy as benchmarks/import_time.py

_MAIN = "import pytest; pytest.main(['--co', '-q', '-p', 'no:cacheprovider'{extra}, 'empty'])"

#: probe name -> (code timed, HYPOTHESIS_NO_PLUGINS set)
PROBES: dict[str, tuple[str, bool]] = {
    "no geonh plugin": (_MAIN.format(extra=", '-p', 'no:geonh'"), False),
    "geonh plugin": (_MAIN.format(extra=""), False),
    "old geonh plugin": (_MAIN.format(extra=", '-p', 'no:geonh', '-p', 'geonh.testing.plugin'"), False),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    env = {k: v for k, v in child_env(cache=True).items()
           if k not in ("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "GEONH_HYPOTHESIS_PROFILE")}
    with tempfile.TemporaryDirectory(prefix="geonh-pytest-start-") as tmp:
        os.mkdir(os.path.join(tmp, "empty"))
        with open(os.path.join(tmp, "pytest.ini"), "w", encoding="utf-8") as f:
            f.write("[pytest]\n")
        print_table(measure(PROBES, args.runs, env, cwd=tmp), "no geonh plugin")


if __name__ == "__main__":
    main()
