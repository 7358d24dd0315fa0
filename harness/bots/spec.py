"""Bot specs: the text that names a bot, parsed once into a :class:`BotSpec` value.

A bot spec names a bot:

* ``path/to/bot.py``: a Python bot file with exactly one bot (a class with ``act``, or a plain
  ``act`` function); ``path/to/bot.py:ClassName`` picks one when the file defines several.
* ``random``, ``greedy``, ``mcts``: the built-in bots (ordinary bot files in the ``agents``
  package). A built-in takes options as ``NAME:key=value,...`` (``greedy:p=0.3``,
  ``mcts:ms=200``, ``mcts:iters=2000,c=0.5``), passed to its constructor as keyword arguments;
  :data:`BUILTIN_OPTIONS` lists each built-in's options. The options are part of the spec's text
  and of the bot's default name, so ``greedy`` and ``greedy:p=0.3`` are different bots in a league.
* ``path/to/mybot/``: a bot directory (its modules and data files; the entry point is ``bot.py``
  or the module a ``bot.toml`` manifest names); ``mybot/:ClassName`` picks the class.
* ``cmd:<command line>``: any executable that speaks the wire protocol on stdin/stdout;
  ``cmd[cwd=DIR]:<command line>`` runs it in ``DIR`` instead of the current directory.

Bot files run sandboxed in their own process; built-ins run in the referee's process (trusted,
fast). The prefixes ``sandbox:`` and ``inproc:`` override that choice explicitly, e.g.
``sandbox:greedy`` or ``inproc:mybot.py`` (an in-process bot is trusted: it is not time-limited
by killing and could read the referee's memory).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.records import TourneyError

AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"
BUILTINS = ("random", "greedy", "mcts")
SPEC_HELP = ("a .py bot file, file.py:ClassName, a bot directory DIR/, a built-in (random, "
             "greedy, mcts; options as greedy:p=0.3 or mcts:ms=200) or cmd:COMMAND")
MANIFEST = "bot.toml"  # a bot directory's optional manifest
DEFAULT_MODULE = "bot"  # a bot directory's entry module without a manifest (bot.py)
MAX_DIR_BYTES = 64 << 20  # largest bot directory (its files' total size)
MAX_DIR_FILES = 2000  # most files in a bot directory
_NAME = re.compile(r"^[A-Za-z0-9_.+-]+$")  # a display name (as a league's NAME=SPEC)


@dataclass(frozen=True)
class Option:
    """One option of a built-in: how its text becomes a value, and which values are allowed."""

    kind: Callable[[str], Any]  # int, float or str
    allowed: Callable[[Any], bool]
    rule: str  # the allowed values in words, for the error message


def _choice(*words: str) -> Option:
    return Option(str, lambda v: v in words, "one of " + ", ".join(words))


_POSITIVE_INT = Option(int, lambda v: v >= 1, "a whole number >= 1")
_COUNT = Option(int, lambda v: v >= 0, "a whole number >= 0")

# The keyword arguments each built-in's constructor takes (agents/<name>.py documents them).
BUILTIN_OPTIONS: dict[str, dict[str, Option]] = {
    "random": {},
    "greedy": {"p": Option(float, lambda v: 0.0 <= v <= 1.0, "a probability from 0 to 1")},
    "mcts": {
        "iters": _POSITIVE_INT,
        "ms": Option(float, lambda v: v > 0, "a positive number of milliseconds"),
        "c": Option(float, lambda v: v >= 0, "a number >= 0"),
        "depth": _COUNT,
        "worlds": _COUNT,
        "rollout": _choice("policy", "random", "greedy"),
        "prior": _COUNT,
        "bias": _COUNT,
        "top": _COUNT,
        "reply": Option(int, lambda v: v in (0, 1), "1 (the reply ply) or 0 (the tree)"),
        "expand": _choice("order", "random"),
        "widen": Option(float, lambda v: v >= 0, "a number >= 0 (0: no widening)"),
        "scale": _POSITIVE_INT,
        "learned": Option(int, lambda v: v in (0, 1),
                          "1 (the game's learned judgement) or 0 (its default one)"),
    },
}


class BotSpecError(TourneyError, ValueError):
    """A bot spec that names nothing usable; the message says what to write instead."""


@dataclass(frozen=True)
class BotSpec:
    """A parsed bot spec. ``str(spec)`` is its canonical text (a bot file's path absolute, so
    a league resumes from any directory), which parses back to an equal value.

    >>> str(parse_spec("sandbox:greedy")), parse_spec("greedy").sandboxed
    ('sandbox:greedy', False)
    """

    path: Path | None  # the bot file (None for cmd:)
    entry: str | None  # explicit class or function name
    command: tuple[str, ...]  # cmd: bots
    builtin: str  # the built-in's name, or ""
    sandboxed: bool  # run in its own process
    forced: bool = False  # the mode was asked for with a sandbox: or inproc: prefix
    command_line: str = ""  # a cmd: bot's command line as written
    module: str = ""  # a bot directory's entry module (then ``path`` is the directory)
    given_name: str = ""  # the display name a bot directory's manifest gives
    cwd: Path | None = None  # a cmd: bot's working directory, when chosen (cmd[cwd=DIR]:)
    options: tuple[tuple[str, str], ...] = ()  # a built-in's options, canonical text, in order

    @property
    def prefix(self) -> str:
        """``sandbox:`` or ``inproc:`` when the spec asks for its mode, else empty."""
        if not self.forced:
            return ""
        return "sandbox:" if self.sandboxed else "inproc:"

    @property
    def is_directory(self) -> bool:
        """Whether the bot is a bot directory (``path`` is then the directory)."""
        return bool(self.module)

    @property
    def builtin_text(self) -> str:
        """The built-in with its options, e.g. ``greedy:p=0.3`` (empty for other bots)."""
        if not self.builtin or not self.options:
            return self.builtin
        return self.builtin + ":" + ",".join(f"{k}={v}" for k, v in self.options)

    def kwargs(self) -> dict[str, Any]:
        """The options as the bot's constructor takes them (typed values).

        >>> parse_spec("mcts:iters=50,rollout=greedy").kwargs()
        {'iters': 50, 'rollout': 'greedy'}
        """
        table = BUILTIN_OPTIONS.get(self.builtin, {})
        return {key: table[key].kind(value) for key, value in self.options}

    @property
    def label(self) -> str:
        if self.is_directory:
            return _directory_text(self, full=False)
        if self.builtin:
            return self.builtin_text
        if self.path is not None:
            return self.path.name + (f":{self.entry}" if self.entry else "")
        return " ".join(self.command)

    @property
    def name(self) -> str:
        """A default display name: the built-in's with its options (``greedy:p=0.3``), the
        file's stem (``mybot.py:Fast`` gives ``mybot.Fast``) or the command's program name."""
        if self.is_directory:
            return _directory_name(self)
        if self.builtin:
            return self.builtin_text
        if self.path is not None:
            return self.path.stem + (f".{self.entry}" if self.entry else "")
        return _command_name(self.command)

    def __str__(self) -> str:
        if self.command:
            return _command_text(self)
        if self.is_directory:
            return self.prefix + _directory_text(self)
        if self.builtin:
            return f"{self.prefix}{self.builtin_text}"
        return f"{self.prefix}{self.path}" + (f":{self.entry}" if self.entry else "")

    def in_sandbox(self) -> BotSpec:
        """The same bot, run sandboxed in its own process."""
        if self.command:
            return self
        return replace(self, sandboxed=True, forced=self.forced or not self.sandboxed)

    def sha256(self) -> str:
        """SHA-256 of the bot's file, of a bot directory's whole content
        (:func:`directory_sha256`), or of what an external command runs
        (:func:`command_sha256`): results name the exact code. Raises OSError when a file cannot
        be read."""
        if self.command:
            return command_sha256(self)
        if self.path is None:
            return ""
        if self.is_directory:
            return directory_sha256(self.path)
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def parse_spec(spec: str, *, check: bool = True) -> BotSpec:
    """Parse a bot spec; :class:`BotSpecError` if it cannot name a bot (e.g. a missing file).

    ``check=False`` reads the text alone, without touching the file system (a bot file's
    path is then neither checked nor made absolute).
    """
    text = spec.strip()
    force: bool | None = None
    if text.startswith("sandbox:"):
        force, text = True, text.removeprefix("sandbox:")
    elif text.startswith("inproc:"):
        force, text = False, text.removeprefix("inproc:")
    if text.startswith(("cmd:", "cmd[")):
        if force is False:
            raise BotSpecError(f"{spec!r}: an external command always runs in its own process")
        return _parse_command(spec, text, check)
    builtin, sep, option_text = text.partition(":")
    if builtin in BUILTINS:
        options = parse_options(builtin, option_text) if sep else ()
        path = AGENTS_DIR / f"{builtin}.py"
        found = BotSpec(path, None, (), builtin, force is True, forced=force is not None,
                        options=options)
        if check and builtin == "mcts":
            _check_learned(found)
        return found
    directory = _parse_directory(spec, text, force, check)
    if directory is not None:
        return directory
    file_part, entry = text, None
    head, sep, tail = text.rpartition(":")
    if sep and head.endswith(".py") and tail.isidentifier():
        file_part, entry = head, tail
    if not file_part.endswith(".py"):
        raise BotSpecError(f"{spec!r} is not a bot spec; give {SPEC_HELP}")
    path = Path(file_part).expanduser()
    if check:
        if not path.is_file():
            raise BotSpecError(
                f"bot file {file_part!r} not found; check the path (or use {SPEC_HELP})")
        path = path.resolve()
    return BotSpec(path, entry, (), "", force is not False, forced=force is not None)


def _check_learned(spec: BotSpec) -> None:
    """Refuse an ``mcts`` whose learned judgement's weights file does not fit the features
    its code reads (one line naming the file and ``make learn``), before a game starts."""
    from agents.mcts import check_learned
    from agents.value_weights import WeightsMismatch

    try:
        check_learned(spec.kwargs())
    except WeightsMismatch as exc:
        raise BotSpecError(str(exc)) from None


def parse_options(builtin: str, text: str) -> tuple[tuple[str, str], ...]:
    """``"ms=200.0,c=.5"`` for ``builtin`` -> its options as canonical text (``ms=200``), in the
    order written; :class:`BotSpecError` names an unknown option or a bad value.

    >>> parse_options("greedy", "p=.3")
    (('p', '0.3'),)
    """
    table = BUILTIN_OPTIONS[builtin]
    known = ", ".join(table) or "none"
    out: dict[str, str] = {}
    parts = [p.strip() for p in text.split(",")]
    if not any(parts):
        raise BotSpecError(f"{builtin}:{text} gives no options; write {builtin} alone or "
                           f"{builtin}:key=value (options: {known})")
    for part in parts:
        key, sep, value = (s.strip() for s in part.partition("="))
        if key not in table:
            raise BotSpecError(f"{builtin} has no option {key!r}; its options: {known}")
        if not sep or not value:
            raise BotSpecError(f"{builtin} option {key!r} needs a value: write {key}=VALUE")
        if key in out:
            raise BotSpecError(f"{builtin} option {key!r} is given twice; give it once")
        option = table[key]
        try:
            typed = option.kind(value)
        except ValueError:
            typed = None
        if typed is None or not option.allowed(typed):
            raise BotSpecError(f"{builtin} option {key}={value}: give {option.rule}")
        out[key] = _canonical(typed)
    return tuple(out.items())


def _canonical(value: Any) -> str:
    """An option's value as the spec's text: ``200.0`` is written ``200``, ``.3`` as ``0.3``."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def is_sandboxed(spec: str) -> bool:
    """Whether ``spec`` runs in its own process, read from the text alone (no file system
    access): everything but trusted built-ins and ``inproc:``; a spec that names nothing
    usable counts as sandboxed (the referee will judge it).

    >>> [is_sandboxed(s) for s in ("random", "sandbox:greedy", "bot.py", "inproc:bot.py")]
    [False, True, True, False]
    """
    try:
        return parse_spec(spec, check=False).sandboxed
    except BotSpecError:
        return True


# ------------------------------------------------------------------------ external commands


def _parse_command(spec: str, text: str, check: bool) -> BotSpec:
    """``cmd:LINE`` or ``cmd[cwd=DIR]:LINE`` (``check`` makes DIR absolute and checks it)."""
    cwd: Path | None = None
    if text.startswith("cmd["):
        options, sep, line = text.removeprefix("cmd[").partition("]:")
        key, eq, value = options.partition("=")
        if not sep or key.strip() != "cwd" or not eq or not value.strip():
            raise BotSpecError(f"{spec!r}: the one option of an external command is its working "
                               "directory; write cmd[cwd=DIR]:<command line>")
        cwd = Path(value.strip()).expanduser()
        if check:
            if not cwd.is_dir():
                raise BotSpecError(f"{spec!r}: working directory {value.strip()!r} not found; "
                                   "check the path")
            cwd = cwd.resolve()
    else:
        line = text.removeprefix("cmd:")
    try:
        command = tuple(shlex.split(line))
    except ValueError as exc:
        raise BotSpecError(f"{spec!r}: cannot split the command line ({exc})") from None
    if not command:
        raise BotSpecError(f"{spec!r} names no command; write cmd:<command line>")
    if check:
        _refuse_shim(spec, command[0])
    return BotSpec(None, None, command, "", True, command_line=line, cwd=cwd)


SHIM_MANAGERS = {".pyenv": "pyenv", ".rbenv": "rbenv", ".asdf": "asdf", ".nodenv": "nodenv",
                 ".goenv": "goenv", ".jenv": "jenv"}


def _refuse_shim(spec: str, program: str) -> None:
    """A version manager's shim (``~/.pyenv/shims/python3``) is a script that runs the
    manager's own files, which the sandbox does not show: refuse it with the command that
    names the real interpreter."""
    found = shutil.which(program) if "/" not in program else program
    if found is None:
        return
    parts = Path(found).parts
    if "shims" not in parts[:-1]:
        return
    manager = next((SHIM_MANAGERS[p] for p in parts if p in SHIM_MANAGERS), "your version manager")
    which = f"$({manager} which {program})" if manager in SHIM_MANAGERS.values() else \
        "the interpreter's real path"
    raise BotSpecError(f"{spec!r}: {program} is {manager}'s shim {found}, which cannot run in "
                       f"the sandbox (it needs {manager}'s own files); name the interpreter "
                       f"itself: cmd:{which} ...")


def _command_name(command: tuple[str, ...]) -> str:
    """An external command's default name: its script's (the first argument that looks like a
    file: ``python3 -u bots/fox.py`` gives ``fox``), else its program's (``./engine``).

    >>> _command_name(("python3", "-u", "bots/fox.py")), _command_name(("./engine", "--fast"))
    ('fox', 'engine')
    """
    for arg in command[1:]:
        if not arg.startswith("-") and ("/" in arg or "." in arg.strip(".")):
            return Path(arg).stem or Path(arg).name
    return Path(command[0]).stem or command[0]


def command_files(spec: BotSpec) -> list[Path]:
    """The files an external command names, as this machine resolves them now: its program
    when given as a path (``./engine``), and every argument that is an existing file, relative
    to the command's working directory (its ``cwd``, else the current one)."""
    base = spec.cwd if spec.cwd is not None else Path.cwd()
    named = [spec.command[0]] if "/" in spec.command[0] else []
    found = []
    for arg in [*named, *spec.command[1:]]:
        path = base / Path(arg).expanduser()
        if path.is_file() and path not in found:
            found.append(path)
    return found


def command_sha256(spec: BotSpec) -> str:
    """The identity of an external command: SHA-256 over its command line, the files it names
    (:func:`command_files`: each as written, its size and its bytes) and, when it runs in a
    directory of its own (``cmd[cwd=DIR]:``), that directory's files as a bot directory's
    (:func:`directory_sha256`). A changed script or data file is a changed bot."""
    digest = hashlib.sha256(b"tourney-bot-command-v1\0" + spec.command_line.encode() + b"\0")
    base = spec.cwd if spec.cwd is not None else Path.cwd()
    for path in command_files(spec):
        data = path.read_bytes()
        rel = os.path.relpath(path, base)
        digest.update(os.fsencode(rel) + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    if spec.cwd is not None:
        digest.update(b"\0dir\0" + directory_sha256(spec.cwd).encode())
    return digest.hexdigest()


def _command_text(spec: BotSpec) -> str:
    if spec.cwd is None:
        return f"cmd:{spec.command_line}"
    return f"cmd[cwd={spec.cwd}]:{spec.command_line}"


# -------------------------------------------------------------------------- bot directories


def _parse_directory(spec: str, text: str, force: bool | None, check: bool) -> BotSpec | None:
    """A bot directory ``DIR/`` or ``DIR/:Class`` (without the slash: an existing directory,
    when ``check``), or None when ``text`` names no directory."""

    def is_dir(part: str) -> bool:
        return part.endswith("/") or (check and bool(part) and Path(part).expanduser().is_dir())

    dir_part, entry = text, None
    head, sep, tail = text.rpartition(":")
    if sep and tail.isidentifier() and is_dir(head):
        dir_part, entry = head, tail
    elif not is_dir(text):
        return None
    if force is False:
        raise BotSpecError(f"{spec!r}: a bot directory always runs sandboxed, in its own process "
                           "with its own modules and working directory; drop inproc:")
    path = Path(dir_part).expanduser()
    module, given = DEFAULT_MODULE, ""
    if check:
        if not path.is_dir():
            raise BotSpecError(f"bot directory {dir_part!r} not found; check the path "
                               f"(or use {SPEC_HELP})")
        path = path.resolve()
        module, manifest_class, given = read_manifest(path)
        entry = entry or manifest_class
    return BotSpec(path, entry, (), "", True, forced=force is not None, module=module,
                   given_name=given)


def _directory_text(spec: BotSpec, full: bool = True) -> str:
    """``/abs/mybot/:Class`` (``full``) or ``mybot/:Class``."""
    assert spec.path is not None
    where = str(spec.path).rstrip("/") if full else spec.path.name
    return f"{where}/" + (f":{spec.entry}" if spec.entry else "")


def _directory_name(spec: BotSpec) -> str:
    assert spec.path is not None
    if spec.given_name:
        return spec.given_name
    return spec.path.name + (f".{spec.entry}" if spec.entry else "")


def read_manifest(directory: Path) -> tuple[str, str | None, str]:
    """A bot directory's entry: (module, class or None, display name or "").

    From ``bot.toml`` when there is one (keys ``module``, ``class``, ``name``, ``protocol``),
    else the module ``bot`` (``bot.py``). :class:`BotSpecError` names what is wrong.
    """
    from harness.bots.protocol import PROTOCOL_VERSION

    manifest = directory / MANIFEST
    fix = f"fix {manifest}"
    data: dict[str, object] = {}
    if manifest.is_file():
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise BotSpecError(f"{manifest} is not valid TOML ({exc}); {fix}") from None
        except OSError as exc:
            raise BotSpecError(f"cannot read {manifest} ({exc.strerror}); {fix}") from None
    unknown = sorted(set(data) - {"module", "class", "name", "protocol"})
    if "command" in data:  # a bot in another language: the server builds and runs it
        raise BotSpecError(f"{manifest} names a command: here, build the bot yourself and give "
                           f"cmd[cwd={directory}]:{data['command']} (a competition server and "
                           f"tourney arena add take the directory as it is)")
    if unknown:
        raise BotSpecError(f"{manifest} sets unknown keys ({', '.join(unknown)}); a manifest "
                           "sets module, class, name and protocol")
    module, klass = data.get("module", DEFAULT_MODULE), data.get("class")
    name, protocol = data.get("name", ""), data.get("protocol", PROTOCOL_VERSION)
    if not isinstance(module, str) or not all(p.isidentifier() for p in module.split(".")):
        raise BotSpecError(f"{manifest}: module must be a module name such as \"bot\" or "
                           f"\"engine.main\", not {module!r}; {fix}")
    if klass is not None and not (isinstance(klass, str) and klass.isidentifier()):
        raise BotSpecError(f"{manifest}: class must be a class name, not {klass!r}; {fix}")
    if not isinstance(name, str) or (name and not _NAME.match(name)):
        raise BotSpecError(f"{manifest}: name must be letters, digits and _.+- only, not "
                           f"{name!r}; {fix}")
    if protocol != PROTOCOL_VERSION:
        raise BotSpecError(f"{manifest} asks for protocol {protocol!r}, but tourney speaks "
                           f"protocol {PROTOCOL_VERSION}; {fix}")
    if module_file(directory, module) is None:
        where = module.replace(".", "/")
        if data:
            raise BotSpecError(f"{directory.name}/ has no {where}.py, the module {manifest.name} "
                               f"names; {fix}")
        raise BotSpecError(f"bot directory {directory.name}/ has neither {DEFAULT_MODULE}.py nor "
                           f"{MANIFEST}; add {DEFAULT_MODULE}.py (the entry module) or a "
                           f"{MANIFEST} naming it (module = \"...\")")
    return module, klass, name


def module_file(directory: Path, module: str) -> str | None:
    """The file of ``module`` inside ``directory`` (relative, '/'-separated), or None."""
    base = module.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if (directory / candidate).is_file():
            return candidate
    return None


def directory_files(directory: Path) -> list[tuple[str, Path]]:
    """The files that make up a bot directory, sorted by relative ('/'-separated) path.

    Every regular file, except hidden ones (a name starting with ``.``: ``.git``, editor files)
    and ``__pycache__``. :class:`BotSpecError` for a symbolic link or special file, or beyond
    :data:`MAX_DIR_FILES` files or :data:`MAX_DIR_BYTES` bytes.
    """
    found: list[tuple[str, Path]] = []
    total = 0
    pending = [(directory, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise BotSpecError(f"cannot read bot directory {folder} ({exc.strerror})") from None
        for entry in entries:
            if entry.name.startswith(".") or entry.name == "__pycache__":
                continue
            rel = prefix + entry.name
            if entry.is_symlink():
                raise BotSpecError(f"bot directory {directory}: {rel} is a symbolic link; "
                                   "replace it with the file itself (a bot travels as its files)")
            if entry.is_dir(follow_symlinks=False):
                pending.append((Path(entry.path), rel + "/"))
                continue
            if not entry.is_file(follow_symlinks=False):
                raise BotSpecError(f"bot directory {directory}: {rel} is not a regular file; "
                                   "remove it")
            total += entry.stat(follow_symlinks=False).st_size
            found.append((rel, Path(entry.path)))
            if len(found) > MAX_DIR_FILES or total > MAX_DIR_BYTES:
                raise BotSpecError(
                    f"bot directory {directory} is too large: a bot directory may hold at most "
                    f"{MAX_DIR_FILES} files and {MAX_DIR_BYTES >> 20} MB; move other files out "
                    "(or into a hidden .folder, which is not part of the bot)")
    return sorted(found)


def directory_sha256(directory: Path) -> str:
    """The identity of a bot directory: SHA-256 over its files (:func:`directory_files`) in
    order of relative path, each as its path, its size and its bytes. A changed data file is a
    changed bot; a moved or renamed directory with the same files is the same bot."""
    digest = hashlib.sha256(b"tourney-bot-directory-v1\0")
    for rel, path in directory_files(directory):
        data = path.read_bytes()
        digest.update(os.fsencode(rel) + b"\0" + str(len(data)).encode() + b"\0")
        digest.update(data)
    return digest.hexdigest()
