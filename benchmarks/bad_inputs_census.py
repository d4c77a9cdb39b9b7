"""Census of bad inputs: run every case of tests/test_bad_inputs.py (``CASES``) and count the
outcomes — a clear geonh error (the expected class, the key words in the message), another
geonh error, another exception (a bare Python/sympy/numpy/scipy one), a silent result (no error
at all), or a hang (no answer within the time limit).

    python benchmarks/bad_inputs_census.py              # counts by outcome and by area
    python benchmarks/bad_inputs_census.py -v           # and one line per case
    PYTHONPATH=/path/to/old/checkout python benchmarks/bad_inputs_census.py   # an older geonh

Each case runs in this process under a SIGALRM time limit (default 60 s; Unix only).
"""
from __future__ import annotations

import argparse
import signal
import sys
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import geonh  # noqa: E402
import test_bad_inputs as T  # noqa: E402


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def classify(case, limit: int) -> tuple[str, str]:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(limit)
    try:
        result = case.run()
    except _Hang:
        return "hang", f"no answer in {limit} s"
    except geonh.GeonhError as e:
        signal.alarm(0)
        msg = str(e)
        ok = isinstance(e, case.error) if case.error else True
        ok = ok and all(w.lower() in msg.lower() for w in case.words)
        return ("clear geonh error" if ok else "other geonh error"), f"{type(e).__name__}: {msg[:140]}"
    except BaseException as e:  # noqa: BLE001 - the census counts everything
        signal.alarm(0)
        if isinstance(e, KeyboardInterrupt):
            raise
        return "other exception", f"{type(e).__name__}: {str(e)[:140]}"
    finally:
        signal.alarm(0)
    if case.cli:
        code, err = result
        if code in (0, None):
            return "silent result", f"exit code {code}"
        if "Traceback" in err:
            return "other exception", err.strip().splitlines()[-1][:140]
        ok = all(w.lower() in err.lower() for w in case.words)
        return ("clear geonh error" if ok else "other geonh error"), f"exit {code}: {err.strip()[:140]}"
    return "silent result", f"returned {type(result).__name__}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--limit", type=int, default=60, help="seconds per case")
    args = p.parse_args(argv)
    total: Counter = Counter()
    by_area: dict[str, Counter] = {}
    side_effects = 0
    import builtins
    for case in T.CASES:
        T.MARKER.unlink(missing_ok=True)          # each injection case starts clean
        if hasattr(builtins, "geonh_pwned"):
            delattr(builtins, "geonh_pwned")
        outcome, detail = classify(case, args.limit)
        if case.after is not None:
            try:
                case.after()
            except AssertionError:
                side_effects += 1
                detail += "  [SIDE EFFECT]"
        total[outcome] += 1
        by_area.setdefault(case.area, Counter())[outcome] += 1
        if args.verbose:
            print(f"{outcome:18s} {case.area:13s} {case.name:40s} {' '.join(detail.split())}")
    print(f"geonh {geonh.__file__}")
    print(f"{len(T.CASES)} bad inputs:")
    for k in ("clear geonh error", "other geonh error", "other exception", "silent result", "hang"):
        print(f"  {k:18s} {total[k]}")
    print(f"  injected code ran  {side_effects} (of {sum(c.after is not None for c in T.CASES)} injection cases)")
    for area, c in by_area.items():
        print(f"  {area:13s} " + ", ".join(f"{k}: {v}" for k, v in sorted(c.items())))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
