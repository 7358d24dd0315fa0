"""Runs one bot in a sandboxed child process and speaks the wire protocol for it.

This file imports nothing but the standard library: the sandbox copies it next to the bot file
and starts it with a plain interpreter, possibly as an unprivileged user. The harness also
imports it for :func:`load_bot_file` and :func:`find_entry`, so a bot is discovered by exactly the
same rules in-process and in the sandbox.

Start-up, in order, before any bot code runs:

1. ``--confine JSON``: resource limits (address space, CPU, file size, no core dumps); new
   network, mount and PID namespaces with a private ``/proc`` where the OS permits (no network,
   the referee is invisible, and every process the bot starts dies with it; without root inside
   a new user namespace); as root, the switch to the unprivileged user; then ``no_new_privs``
   and a parent-death signal.
2. The protocol moves to private file descriptors; the bot's ``stdout``/``stderr`` (fd 1 and 2)
   both go to the log pipe the referee drains, and its ``stdin`` is ``/dev/null``, so nothing the
   bot prints can corrupt the protocol.
3. ``--exec CMD...`` replaces this process with an external bot (after steps 1 only, so the
   command speaks the protocol on its own stdin/stdout); ``--file PATH [--entry NAME]`` loads a
   Python bot file and serves it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from types import FunctionType, ModuleType

# Start-up time is part of every sandboxed game, so this module imports only what it needs at
# once (typing, inspect, pathlib, importlib and ctypes would add ~25 ms to each bot's launch).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    BotFactory = Callable[[], Any]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_REC = 0x4000
_MS_PRIVATE = 1 << 18
_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38


class BotLoadError(Exception):
    """The bot file cannot be turned into a bot; the message names the problem and the fix."""


# --------------------------------------------------------------------------------------------
# discovery (shared with the in-process loader)


class FunctionBot:
    """Adapts a plain ``act(observation, legal_actions)`` function to the bot interface."""

    def __init__(self, act: Callable[[Any, Any], Any]) -> None:
        self._act = act

    def act(self, observation: Any, legal_actions: Any) -> Any:
        return self._act(observation, legal_actions)


def load_bot_file(path: str | os.PathLike[str], entry: str | None = None,
                  module_name: str = "") -> BotFactory:
    """Execute a bot file as a fresh module and return a factory of fresh bot objects."""
    path = os.fspath(path)
    label = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        raise BotLoadError(
            f"bot file {path!r} cannot be read ({exc.strerror}); check the path"
        ) from None
    name = module_name or f"tourney_bot_{abs(hash(os.path.abspath(path)))}"
    module = ModuleType(name)
    module.__file__ = path
    module.__loader__ = _SourceLoader(source)  # type: ignore[assignment]
    sys.modules[name] = module
    try:
        exec(compile(source, path, "exec"), module.__dict__)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        raise BotLoadError(
            f"syntax error in {label} line {exc.lineno}: {exc.msg}; fix the file"
        ) from None
    except ImportError as exc:
        sys.modules.pop(name, None)
        raise BotLoadError(
            f"{label} failed to import: {type(exc).__name__}: {exc}; a bot may import only "
            "the standard library and the packages installed with tourney"
        ) from None
    except BaseException as exc:  # the bot's module code raised (or exited) while loading
        sys.modules.pop(name, None)
        raise BotLoadError(f"{label} raised while loading: {type(exc).__name__}: {exc}") from None
    return find_entry(module, entry, label)


class _SourceLoader:
    """Gives tracebacks the bot's source lines even after the sandbox deleted its copy."""

    def __init__(self, source: bytes) -> None:
        self.source = source

    def get_source(self, name: str) -> str:
        return self.source.decode("utf-8", "replace")


def find_entry(module: ModuleType, entry: str | None, label: str) -> BotFactory:
    """The bot class (or plain ``act`` function) of a loaded module, by name or by uniqueness."""
    if entry:
        obj = getattr(module, entry, None)
        if obj is None:
            found = ", ".join(_candidates(module)) or "none"
            raise BotLoadError(f"{label} has no {entry!r} (bots found: {found})")
        return _factory(obj, f"{label}:{entry}")
    candidates = _candidates(module)
    if not candidates:
        raise BotLoadError(
            f"{label} defines no bot; define a class with a method "
            "act(self, observation, legal_actions) or a function act(observation, legal_actions)"
        )
    if len(candidates) > 1:
        listed = ", ".join(candidates)
        raise BotLoadError(
            f"{label} defines several bots ({listed}); choose one with {label}:{candidates[0]}"
        )
    return _factory(getattr(module, candidates[0]), f"{label}:{candidates[0]}")


def _candidates(module: ModuleType) -> list[str]:
    """Classes defined in the module that have ``act``, and a module-level ``act`` function."""
    found: list[str] = []
    for key, value in vars(module).items():
        if key.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        is_bot_class = isinstance(value, type) and callable(getattr(value, "act", None))
        if is_bot_class or (key == "act" and isinstance(value, FunctionType)):
            found.append(key)
    return found


def _factory(obj: Any, label: str) -> BotFactory:
    if isinstance(obj, type):
        if not callable(getattr(obj, "act", None)):
            raise BotLoadError(f"{label} has no act(observation, legal_actions) method")
        return obj
    if isinstance(obj, FunctionType):
        return lambda: FunctionBot(obj)
    raise BotLoadError(f"{label} is neither a bot class nor an act function")


# --------------------------------------------------------------------------------------------
# confinement (runs first, before any bot code)


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def confine(cfg: dict[str, Any]) -> dict[str, Any]:
    """Apply the limits and isolation in ``cfg`` to this process (see the module docstring).

    Returns what was achieved (reported to the referee in the ``ready`` message).
    """
    import resource

    memory = int(cfg.get("memory", 0))
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(cfg.get("cpu", 0))
    if cpu > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    fsize = int(cfg.get("fsize", 0))
    if fsize > 0:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    libc = _libc() if sys.platform.startswith("linux") else None
    uid = cfg.get("uid")
    achieved: dict[str, Any] = {"network": False, "pid_namespace": False}
    if libc is not None and cfg.get("isolate", True):
        # root creates the namespaces directly; anyone else first needs a user namespace
        as_root = uid is not None and os.geteuid() == 0
        achieved.update(_isolate(libc, not as_root, [str(p) for p in cfg.get("hide", [])]))
    if uid is not None and os.geteuid() == 0:
        gid = int(cfg.get("gid", uid))
        os.setgroups([])
        os.setgid(gid)  # as root these set the real, effective and saved ids alike
        os.setuid(int(uid))
    if libc is not None:
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        parent = int(cfg.get("parent", 0))
        if parent and not achieved["pid_namespace"] and os.getppid() != parent:
            os._exit(70)  # the parent died before the death signal was armed
    achieved["uid"] = os.getuid()
    return achieved


def _isolate(libc: Any, user_namespace: bool, hide: list[str]) -> dict[str, Any]:
    """New network, mount and PID namespaces, with three processes from here on.

    This process stays outside and waits (the referee's child); its child is PID 1 of the new
    namespace: it mounts a private ``/proc`` (so the bot sees none of the referee's processes)
    and waits in turn; its child, PID 2, returns from here and becomes the bot. The bot is not
    PID 1 so signals such as SIGXCPU (the CPU rlimit) act on it normally; when PID 1 dies the
    kernel kills everything the bot started. Without root this needs a new user namespace too
    (most Linux kernels allow it). Each directory in ``hide`` (the results folders, which hold
    the league seed the deals derive from) is covered by an empty read-only tmpfs. Namespaces
    the OS refuses (e.g. in an unprivileged container) are skipped silently.
    """
    user = _CLONE_NEWUSER if user_namespace else 0
    if libc.unshare(user | _CLONE_NEWNET | _CLONE_NEWNS | _CLONE_NEWPID) != 0:
        return {"network": libc.unshare(user | _CLONE_NEWNET) == 0}
    _wait_and_pass_on(libc, os.fork())  # returns only in the child
    private = libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    own_proc = private and libc.mount(b"proc", b"/proc", b"proc", flags, None) == 0
    hidden = [path for path in hide if private and libc.mount(
        b"tmpfs", path.encode(), b"tmpfs", flags | _MS_RDONLY, b"size=4k,mode=0555") == 0]
    _wait_and_pass_on(libc, os.fork())
    return {"network": True, "pid_namespace": True, "private_proc": own_proc, "hidden": hidden}


def _wait_and_pass_on(libc: Any, child: int) -> None:
    """In the parent of a fork: reap children until ``child`` ends, then end the same way.

    A death by signal is passed on as exit status 128 + the signal (PID 1 cannot kill itself),
    and the outermost process turns that back into the signal, so the referee can say how the
    bot died. In the child (``child == 0``) this returns at once.
    """
    if child == 0:
        return
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    while True:
        pid, status = os.wait()
        if pid == child:
            break
    code = os.waitstatus_to_exitcode(status)
    sig = -code if code < 0 else code - 128 if code > 128 else 0
    if sig and os.getpid() != 1:
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(128 + sig if sig else code)


# --------------------------------------------------------------------------------------------
# serving the protocol


class _Wire:
    """The protocol on private descriptors; fd 0 becomes /dev/null and fd 1 joins fd 2 (the log)."""

    def __init__(self) -> None:
        self.inp = os.fdopen(os.dup(0), "rb")
        self.out = os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)

    def read(self) -> dict[str, Any] | None:
        line = self.inp.readline()
        if not line:
            return None
        message = json.loads(line)
        return message if isinstance(message, dict) else {"type": "?"}

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        view = memoryview(data)
        while view:
            view = view[os.write(self.out, view) :]


def _describe_error(where: str, exc: BaseException) -> str:
    import traceback

    traceback.print_exc()  # the full traceback goes to the bot's log
    return f"{where} raised {type(exc).__name__}: {exc}"


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return {"unserialisable": f"{type(value).__name__}: {repr(value)[:80]}"}
    return value


def serve(
    factory: BotFactory | None, load_error: str, wire: _Wire, sandbox: dict[str, Any]
) -> None:
    """Answer requests until ``quit`` or end of input.

    The bot's own output is flushed to its log before each reply, so the log is complete up to
    the moment the referee hears back (it may kill the process right after the last reply).
    """
    bot: Any = None
    while True:
        message = wire.read()
        if message is None or message.get("type") == "quit":
            return
        kind = message.get("type")
        reply: dict[str, Any]
        try:
            if kind == "start" and factory is None:
                reply = {"type": "error", "message": load_error}
            elif kind == "start":
                assert factory is not None
                bot = factory()
                if callable(getattr(bot, "start", None)):
                    bot.start(message.get("info", {}))
                reply = {"type": "ready", "sandbox": sandbox}
            elif kind == "act":
                action = bot.act(message["observation"], message["legal_actions"])
                reply = {"type": "action", "action": _jsonable(action)}
            elif kind == "end":
                if callable(getattr(bot, "end", None)):
                    bot.end(message.get("result", {}))
                reply = {"type": "ok"}
            else:
                reply = {"type": "error", "message": f"runner got unknown request {kind!r}"}
        except Exception as exc:
            reply = {"type": "error", "message": _describe_error(str(kind), exc)}
        _flush_output()
        wire.send(reply)


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # the bot replaced or closed its own stream: nothing to keep
            continue


def _with_options(factory: BotFactory, options: dict[str, Any]) -> BotFactory:
    """A factory that passes ``options`` to the bot's constructor (a built-in's spec options)."""
    return lambda: factory(**options)


def main(argv: list[str]) -> None:
    """``bot_runner.py [--confine JSON] (--file PATH [--entry NAME] [--options JSON] |
    --exec CMD...)``."""
    args = list(argv)
    sandbox: dict[str, Any] = {}
    if args[:1] == ["--confine"]:
        sandbox = confine(json.loads(args[1]))
        args = args[2:]
    if args[:1] == ["--exec"]:
        try:
            os.execvp(args[1], args[1:])
        except OSError as exc:  # answer the referee's first request with the reason
            message = f"could not run {args[1]!r}: {exc.strerror}; check the cmd: command line"
            os.write(1, json.dumps({"type": "error", "message": message}).encode() + b"\n")
            os._exit(127)
    wire = _Wire()
    path = args[args.index("--file") + 1]
    entry = args[args.index("--entry") + 1] if "--entry" in args else None
    factory: BotFactory | None = None
    error = ""
    try:
        factory = load_bot_file(path, entry, module_name="bot")
    except BotLoadError as exc:
        error = f"could not load bot: {exc}"
    if factory is not None and "--options" in args:  # keyword arguments for the constructor
        factory = _with_options(factory, json.loads(args[args.index("--options") + 1]))
    serve(factory, error, wire, sandbox)
    _flush_output()
    os._exit(0)  # do not wait for threads the bot may have left running


if __name__ == "__main__":
    main(sys.argv[1:])
