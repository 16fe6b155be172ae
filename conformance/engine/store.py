"""Cases drawn once, read ever after: the cases of generated tests kept on disk.

Drawing a generated test's cases is deterministic for a seed, the specs, the code that draws them and a profile,
and it costs more processor time than the requests the cases become. So what one run draws is kept in a folder
(`CONFORMANCE_CASES_DIR`, else the user's cache folder), under a key made of exactly those: a second run, the runs
of a fleet, a CI job run again and the self-tests read the cases instead of drawing them, while another seed, a
changed spec or a changed strategy draws anew. Cases drawn from values a run discovers (the chain a generated
request goes to) are kept under those values too: they serve every run of a target whose identifiers stay.

Two runs may share the folder at once: each file is written whole under a temporary name and renamed into place,
and a file that cannot be read is drawn again. Runs that start together (a fleet's) split the drawing: a test's
cases are drawn by the run that claims them first, and the others read them (`claim`), waiting at most `PATIENCE`
for a claim whose run went away. The folder is kept under `MAX_BYTES`: past it, the least recently
used keys' cases are removed.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import platform
import shutil
import time
from functools import cache
from pathlib import Path
from typing import Any
from collections.abc import Callable

import hypothesis
import schemathesis

from conformance import specs

#: Where the cases are kept, when the environment names no folder.
DEFAULT_DIR = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "conformance" / "cases"
#: The folder's size past which the least recently used keys are removed.
MAX_BYTES = 256 * 2**20
#: Seconds a claim holds before another run draws the cases itself (its run went away, or stalls).
PATIENCE = 30.0
#: Seconds between looks at a test whose cases another run is drawing.
WAITING = 0.02
#: The variable naming the folder (the run's own setting of it).
VARIABLE = "CONFORMANCE_CASES_DIR"
#: The code whose change changes what is drawn: the strategies, the generated tests and the way cases are drawn.
_DRAWING_CODE = ("strategies", "suite", "generated.py", "schemathesis_support.py", "engine/cases.py", "profiles.py")


@cache
def code_digest() -> str:
    """A digest of the specs and of the code that draws cases, with the versions of the libraries that draw."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    roots = [specs.specs_dir(), *(package / name for name in _DRAWING_CODE)]
    for root in roots:
        # the miner's verdicts (mined.yaml) draw no case: editing them keeps the cases drawn
        files = sorted(root.rglob("*.py") if root.is_dir() else [root]) if root != specs.specs_dir() else \
            sorted(path for path in root.rglob("*") if path.is_file() and path.name != "mined.yaml")
        for path in files:
            digest.update(str(path.relative_to(root.parent)).encode())
            digest.update(path.read_bytes())
    digest.update(f"{hypothesis.__version__} {schemathesis.__version__} {platform.python_version()}".encode())
    return digest.hexdigest()


class CaseStore:
    """The cases of one seed and profile, under the current specs and code."""

    def __init__(self, folder: Path | None, seed: int | None, profile: str) -> None:
        self.root = folder if folder is not None else Path(os.environ.get(VARIABLE) or DEFAULT_DIR)
        key = hashlib.sha256(f"{code_digest()} {seed} {profile}".encode()).hexdigest()[:32]
        self.folder = self.root / key
        self.read = 0      # tests whose cases were read
        self.written = 0   # tests whose cases were drawn and kept

    def _path(self, test: str) -> Path:
        return self.folder / f"{hashlib.sha256(test.encode()).hexdigest()[:32]}.cases"

    def claim(self, test: str) -> bool:
        """Claims the drawing of `test`'s cases: False while another run holds a claim younger than PATIENCE."""
        claim = self._path(test).with_suffix(".claim")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return True
        except FileExistsError:
            try:
                return time.time() - claim.stat().st_mtime > PATIENCE
            except OSError:   # released meanwhile
                return True
        except OSError:       # a folder that cannot be written: draw, keep nothing
            return True

    def release(self, test: str) -> None:
        """Ends a claim (the cases are kept, or could not be drawn)."""
        try:
            self._path(test).with_suffix(".claim").unlink()
        except OSError:
            pass

    def get(self, test: str) -> list[dict[str, Any]] | None:
        """The cases kept for `test`, or None."""
        try:
            payload = self._path(test).read_bytes()
            cases: list[dict[str, Any]] = pickle.loads(payload)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError):
            return None
        self.read += 1
        return cases

    def put(self, test: str, cases: list[dict[str, Any]]) -> None:
        """Keeps the cases drawn for `test` (a folder that cannot be written keeps nothing: the run goes on)."""
        try:
            payload = pickle.dumps(cases)
            self.folder.mkdir(parents=True, exist_ok=True)
            final = self._path(test)
            temporary = final.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_bytes(payload)
            os.replace(temporary, final)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            return
        finally:
            self.release(test)
        self.written += 1

    def kept_or_drawn(self, test: str, drawing: Callable[[], list[dict[str, Any]]]) -> list[dict[str, Any]]:
        """The cases kept for `test`, else those `drawing` draws, kept for the next run. While another run draws
        them (a fleet's runs start together), this one waits for them rather than drawing them twice, at most
        PATIENCE."""
        kept = self.get(test)
        while kept is None:
            if self.claim(test):
                try:
                    drawn = drawing()
                except BaseException:
                    self.release(test)
                    raise
                self.put(test, drawn)
                return drawn
            time.sleep(WAITING)
            kept = self.get(test)
        return kept

    def tidy(self) -> None:
        """Marks this key used and keeps the folder under MAX_BYTES, removing the least recently used keys."""
        try:
            if self.folder.is_dir():
                os.utime(self.folder)
            keys = sorted((path for path in self.root.iterdir() if path.is_dir()), key=lambda p: p.stat().st_mtime)
            sizes = {key: sum(f.stat().st_size for f in key.iterdir() if f.is_file()) for key in keys}
        except OSError:
            return
        total = sum(sizes.values())
        for key in keys:
            if total <= MAX_BYTES or key == self.folder:
                continue
            shutil.rmtree(key, ignore_errors=True)
            total -= sizes[key]
        # what runs that were killed while drawing or writing left
        cutoff = time.time() - 3600
        for stale in [*self.folder.glob("*.tmp"), *self.folder.glob("*.claim")] if self.folder.is_dir() else ():
            try:
                if stale.stat().st_mtime < cutoff:
                    stale.unlink()
            except OSError:
                pass
