"""A throwaway PostgreSQL cluster for the tests and benches: ``initdb`` into a temporary
folder, a server listening only on a Unix socket there, stopped and removed at the end.

The server refuses to run as root, and CI runs as root: then the cluster belongs to the
``postgres`` user (``runuser``), as Debian's package creates it. :func:`why_not` says why
no cluster can run here (no server installed, no such user), for a skip with the reason.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path


def _bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian keeps them off PATH)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    return Path(versions[-1]).parent if versions else None


def _version(path: str) -> int:
    part = Path(path).parent.parent.name
    return int(part) if part.isdigit() else 0


def why_not() -> str | None:
    """None when a cluster can be started here, else the reason it cannot."""
    if _bindir() is None:
        return "PostgreSQL's server is not installed (Debian: apt-get install postgresql)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run the server as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'lateseg[postgres]')"
    return None


class Cluster:
    """A running server; :meth:`database` makes a new, empty database and returns its
    URL. Use as a context manager, or call :meth:`stop`."""

    def __init__(self, *, durable: bool = False) -> None:
        """``durable``: fsync as a real server does (benches); tests run without."""
        reason = why_not()
        if reason:
            raise RuntimeError(reason)
        bindir = _bindir()
        assert bindir is not None
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="lateseg-pg-"))
        self.data = self.root / "data"
        self.socket = self.root
        self.durable = durable
        self.user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            self.root.chmod(0o700)
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", self.user, "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        cmd = [str(self.bindir / tool), *args]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root, check=False)
        if done.returncode:
            raise RuntimeError(f"{tool} failed: {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> None:
        opts = f"-k {self.socket} -h '' -c max_connections=60"
        if not self.durable:
            opts += " -c fsync=off"
        log = str(self.root / "server.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", log, "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        """Stop (cutting every connection) and start again."""
        self.stop("fast")
        self.start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@/{database}?host={self.socket}"

    def database(self) -> str:
        """A new, empty database's URL."""
        import psycopg

        name = "t" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
