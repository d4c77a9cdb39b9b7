"""On-disk cache of compiled functions: a second process starts without compiling.

Compiling a system's right-hand side or the Jacobian of its equations with LLVM costs seconds
on a large system (the Whipple bicycle: ~1 s); a symengine LLVM ``Lambdify`` pickles as its
machine code (an ELF object), so the compiled code is kept in files, one per function, keyed
by a hash of what was compiled:

    key = SHA-256(pickle(material), geonh, symengine, Python versions, machine, CPU flags)

where ``material`` is what the caller compiles (the expressions, the argument symbols, the
backend, the optimization level, the kind of function): the same equations give the same key
in every process; different equations, parameters, backends or versions give another.
:func:`cached_compile` looks the key up and else builds the function and stores it.

Location: the directory ``GEONH_CACHE_DIR`` if set, else the platform's user cache directory
(``$XDG_CACHE_HOME/geonh`` or ``~/.cache/geonh`` on Linux, ``~/Library/Caches/geonh`` on
macOS, ``%LOCALAPPDATA%\\geonh\\Cache`` on Windows), subdirectory ``compiled``.  Opt out with
``GEONH_CACHE=off`` (or ``0``, ``no``, ``false``, ``none``).  Both are read at every compile.
:func:`cached_compile` is the hook geonh's compilers call (:mod:`geonh.numerics.compiled`,
:mod:`geonh.analysis.linearize`); :func:`stats` counts what happened in this process.

Trust model.  Loading a file unpickles it, and unpickling runs code, so the cache directory is
trusted exactly like the user's own site-packages: it must be owned by the user and writable
by nobody else (on POSIX; the directory is created with mode 0700, and a directory that is
group- or world-writable, or owned by someone else, disables the cache with a warning).  A file
starts with a header (magic, format version, the key) and the SHA-256 of its payload; a file
whose header, key or digest does not match — truncated, corrupt, written by another geonh
version, or copied from another key — is ignored and rebuilt, never unpickled.  The digest
protects against corruption, not against someone who can write into the directory (who could
also write into site-packages).  Writes are atomic: a temporary file in the same directory,
then ``os.replace``.  Only LLVM functions are stored (the numpy backend's functions are cheap
to rebuild and do not pickle); anything that fails to store is simply not cached.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import platform
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable


__all__ = ["ModuleFiles", "cache_dir", "clear", "module_files", "stats"]

MAGIC = b"GEONH-COMPILED\n"
FORMAT = 1
_OFF = {"0", "off", "no", "false", "none"}

_stats = {"hits": 0, "builds": 0, "stores": 0, "rejected": 0}


def stats() -> dict:
    """Counts in this process: ``hits`` (functions loaded from disk), ``builds`` (functions
    compiled through the cache), ``stores`` (files written), ``rejected`` (files ignored:
    corrupt, foreign or unreadable)."""
    return dict(_stats)


def _default_dir() -> Path:
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local") / "geonh" / "Cache"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches" / "geonh"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "geonh"
    return base


def cache_dir() -> Path | None:
    """The directory of the compiled functions (``GEONH_CACHE_DIR``/compiled, else the user
    cache directory's), or None when the cache is off (``GEONH_CACHE=off``).  Read from the
    environment at every use."""
    if os.environ.get("GEONH_CACHE", "on").strip().lower() in _OFF:
        return None
    root = os.environ.get("GEONH_CACHE_DIR")
    return (Path(root) if root else _default_dir()) / "compiled"


def _trusted(directory: Path) -> bool:
    """Create ``directory`` (mode 0700) if needed; True when it is the user's own and nobody
    else can write to it (POSIX; elsewhere: it exists)."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except OSError:
        return False
    if os.name != "posix":
        return True
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        warnings.warn(f"geonh: the compile cache {directory} is not owned by you or is writable by others; "
                      "not using it (set GEONH_CACHE_DIR to a directory of your own)", RuntimeWarning,
                      stacklevel=3)
        return False
    return True


def _cpu() -> str:
    """The CPU model and flags (LLVM compiles for the host CPU: code from another CPU may not run)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            lines = [ln for ln in fh.read(65536).splitlines() if ln.startswith(("model name", "flags", "Features"))]
        return "\n".join(dict.fromkeys(lines))
    except OSError:
        return platform.processor()


#: the modules whose source decides what is compiled: their text is part of every key, so that
#: a changed code generator never loads functions generated by the old one
SOURCES = ("numerics/codegen.py", "numerics/compiled.py", "numerics/cache.py", "analysis/linearize.py")
_env: list[bytes] = []


def _environment() -> bytes:
    """What besides the material decides the compiled code: the cache format, geonh's version
    and the source of :data:`SOURCES`, symengine's and Python's versions, the machine and
    its CPU (computed once per process)."""
    if not _env:
        import importlib.metadata

        import symengine
        try:
            version = importlib.metadata.version("geonh")
        except importlib.metadata.PackageNotFoundError:
            version = "unknown"
        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for rel in SOURCES:
            try:
                h.update((root / rel).read_bytes())
            except OSError:
                h.update(b"missing " + rel.encode())
        _env.append("|".join((f"format {FORMAT}", version, h.hexdigest(), symengine.__version__,
                              platform.python_version(), platform.machine(), sys.platform, _cpu())).encode())
    return _env[0]


def key_of(material: Any) -> str | None:
    """The hex key of ``material`` (None when it does not pickle: nothing is cached)."""
    try:
        blob = pickle.dumps(material, protocol=4)
    except Exception:  # noqa: BLE001 - an unpicklable material is simply not cached
        return None
    h = hashlib.sha256(_environment())
    h.update(blob)
    return h.hexdigest()


def _read(path: Path, key: str):
    """The payload of the file at ``path`` if its header and digest check, else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = MAGIC + key.encode() + b"\n"
    if not data.startswith(head) or len(data) < len(head) + 32:
        return None
    digest, payload = data[len(head):len(head) + 32], data[len(head) + 32:]
    if hashlib.sha256(payload).digest() != digest:
        return None
    return payload


def _write(path: Path, key: str, payload: bytes) -> bool:
    """Write header, digest and payload atomically (:func:`_write_raw`)."""
    return _write_raw(path, MAGIC + key.encode() + b"\n" + hashlib.sha256(payload).digest() + payload)


def _lambdify_of(fn) -> Any:
    """The symengine LLVM Lambdify behind a compiled function (its ``into`` is the Lambdify's
    ``unsafe_real``), or None."""
    into = getattr(fn, "into", None)
    lam = getattr(into, "__self__", None)
    if lam is None or type(lam).__name__ not in ("LLVMDouble", "Lambdify", "LambdaDouble") \
            or getattr(fn, "backend", None) != "llvm":
        return None
    return lam


def cached_compile(material: Any, build: Callable[[], Any], load: Callable[..., Any]):
    """The compiled function of ``material`` from the cache, else ``build()`` (a
    :class:`~geonh.numerics.codegen.CompiledFunction`) stored for the next process.
    ``material`` identifies what ``build`` compiles (expressions, arguments, options); it is
    hashed into the key with the versions (module doc), never stored; None: not cached.
    ``load(args, shape, size, lam)`` makes the function of a Lambdify read from disk
    (:meth:`~geonh.numerics.codegen.CompiledFunction.of_lambdify`: the cache sits below the
    code generator and does not import it)."""
    directory = cache_dir() if material is not None else None
    key = key_of(material) if directory is not None else None
    if key is None or directory is None or not _trusted(directory):
        _stats["builds"] += 1
        return build()
    path = directory / f"{key}.pkl"
    if path.exists():
        payload = _read(path, key)
        if payload is not None:
            try:
                args, shape, size, lam = pickle.loads(payload)
                fn = load(args, tuple(shape), int(size), lam)
                _stats["hits"] += 1
                return fn
            except Exception:  # noqa: BLE001 - a file that does not load is rebuilt
                pass
        _stats["rejected"] += 1
    _stats["builds"] += 1
    fn = build()
    lam = _lambdify_of(fn)
    if lam is not None:
        try:
            payload = pickle.dumps((fn.args, fn.shape, fn.size, lam), protocol=4)
        except Exception:  # noqa: BLE001 - what does not pickle is not cached
            return fn
        if _write(path, key, payload):
            _stats["stores"] += 1
    return fn


class ModuleFiles:
    """Built C extension modules (:mod:`geonh.numerics.cbackend`) kept in the cache directory:
    ``<key>.so`` beside ``<key>.sha256``, the digest of the file as it was built.  ``get``
    returns a file's path only when its digest checks (a truncated or replaced file is ignored
    and rebuilt); the key is the C backend's, which covers the generated source, the compiler
    and its flags, the CPU it resolves to and Python's extension suffix.  The trust model is
    the cache's (module doc): loading a module runs its code."""

    def __init__(self, directory: Path):
        self.directory = directory

    def _paths(self, key: str) -> tuple[Path, Path]:
        return self.directory / f"{key}.so", self.directory / f"{key}.sha256"

    def get(self, key: str) -> str | None:
        so, digest = self._paths(key)
        try:
            ok = hashlib.sha256(so.read_bytes()).hexdigest() == digest.read_text(encoding="ascii").strip()
        except OSError:
            return None
        if not ok:
            _stats["rejected"] += 1
            return None
        _stats["hits"] += 1
        return str(so)

    def put(self, key: str, path: str) -> None:
        so, digest = self._paths(key)
        try:
            data = Path(path).read_bytes()
        except OSError:
            return
        if _write_raw(so, data) and _write_raw(digest, hashlib.sha256(data).hexdigest().encode()):
            _stats["stores"] += 1


def module_files() -> ModuleFiles | None:
    """The store of built C modules in :func:`cache_dir`, or None when the cache is off or the
    directory is not trusted."""
    directory = cache_dir()
    if directory is None or not _trusted(directory):
        return None
    return ModuleFiles(directory)


def _write_raw(path: Path, data: bytes) -> bool:
    """Write ``data`` atomically (a temporary file in the same directory, then os.replace)."""
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".geonh")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


def clear() -> int:
    """Delete every cached file; returns how many."""
    directory = cache_dir()
    if directory is None or not directory.is_dir():
        return 0
    count = 0
    for p in [*directory.glob("*.pkl"), *directory.glob("*.so"), *directory.glob("*.sha256")]:
        try:
            p.unlink()
            count += 1
        except OSError:
            pass
    return count
