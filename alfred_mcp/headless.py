"""Headless turns: `alfred-mcp chat` in a terminal and `alfred-mcp run FILE` for a transcript.

Each turn runs in a unit of work of its own, owned by this process, with a progress line per stage and model
call on stderr. `run` writes each turn's record as one JSON line the moment the turn ends, and exits 1 when a
turn ended blocked. SIGINT/SIGTERM end the turn in flight as blocked ("interrupted"), keep it, and exit
130/143. A turn left in progress by a run that is no longer alive is ended (said on stderr) before the next.
"""

from __future__ import annotations

import json
import queue
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

import anyio

from alfred_mcp.agent.interrupt import Interrupt
from alfred_mcp.agent.loop import TurnEvent, TurnLimits, describe_event, run_turn
from alfred_mcp.agent.machine import TurnMachine, is_answered
from alfred_mcp.agent.ownership import end_if_abandoned, live_owner, new_owner
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.errors import ConfigError, OutOfOrderError, StateError
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnState

EXIT_BLOCKED = 1
_SIGNALS = {signal.SIGINT: "interrupted (Ctrl-C)", signal.SIGTERM: "interrupted (SIGTERM)"}
INPUT_POLL_SECONDS = 0.05


async def chat_in_terminal(settings: Settings, stdin: TextIO | None = None, stdout: TextIO | None = None,
                           stderr: TextIO | None = None) -> int:
    """Read messages from the terminal; a progress line per stage on stderr and the reply on stdout (the streams
    default to the process's as they are when called)."""
    app = _app_with_model(settings)
    await app.open()
    try:
        return await _with_signals(lambda interrupt: _converse(app, _Lines(stdin or sys.stdin), stdout or sys.stdout,
                                                               stderr or sys.stderr, interrupt))
    finally:
        await app.close()


async def run_script(settings: Settings, script: str, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run each line of `script` (`-`: stdin) as a turn; print each turn's record as a JSON line when it ends (the
    streams default to the process's as they are when called)."""
    app = _app_with_model(settings)
    messages = _messages(script)
    await app.open()
    try:
        return await _with_signals(lambda interrupt: _run_messages(app, messages, stdout or sys.stdout, stderr or sys.stderr, interrupt))
    finally:
        await app.close()


def _messages(script: str) -> list[str]:
    """The non-blank lines of the file (or stdin).

    Raises:
        ConfigError: the file cannot be read.
    """
    try:
        text = sys.stdin.read() if script == "-" else Path(script).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is not UTF-8 text"
        raise ConfigError(
            f"Cannot read the messages file {script}: {why}; give run a text file with one message per line, or - for stdin.",
            path=script,
        ) from exc
    return [line.strip() for line in text.splitlines() if line.strip()]


def _app_with_model(settings: Settings) -> AlfredApp:
    """The app, or a ConfigError when its model is missing or unusable."""
    app = AlfredApp.from_settings(settings, needs_model=True)
    if app.llm is None:
        raise app.model_error or ConfigError(
            "chat and run need a model: pass --model or set ALFRED_MODEL (e.g. anthropic:claude-sonnet-4-5, "
            "or scripted:demo to try the packaged demo)."
        )
    return app


async def _converse(app: AlfredApp, lines: _Lines, stdout: TextIO, stderr: TextIO, interrupt: Interrupt) -> int:
    _say(stdout, "alfred: what are we cooking? (Ctrl-D to leave)")
    while interrupt.reason is None:
        with interrupt.scope():
            line = await lines.next()
        if interrupt.reason is not None or line is None:
            break
        if line.strip():
            state = await _one_turn(app, line.strip(), interrupt, stderr, prefix="  ")
            _say(stdout, f"alfred: {state.reply}")
    return 0


async def _run_messages(app: AlfredApp, messages: list[str], stdout: TextIO, stderr: TextIO, interrupt: Interrupt) -> int:
    blocked = 0
    for number, message in enumerate(messages, 1):
        if interrupt.reason is not None:
            break
        state = await _one_turn(app, message, interrupt, stderr, prefix=f"turn {number}/{len(messages)} ")
        _say(stdout, json.dumps(state.model_dump(mode="json", exclude_none=True), ensure_ascii=False))
        blocked += state.outcome == "blocked"
    return EXIT_BLOCKED if blocked else 0


async def _one_turn(app: AlfredApp, message: str, interrupt: Interrupt, stderr: TextIO, *, prefix: str) -> TurnState:
    assert app.llm is not None
    limits = TurnLimits.from_options(app.model_options)
    async with app.work("chat") as work:
        machine = TurnMachine(work, tool_runner(app, work.session.name))
        ended = await end_if_abandoned(machine)
        if ended is not None:
            _say(stderr, f"alfred-mcp: turn {ended.turn} was left in progress; ended it ({ended.blocked_reason})")
        _check_no_turn_in_progress(machine)
        observe = _progress(stderr, prefix)
        return await run_turn(
            machine, app.llm, message, limits=limits, observe=observe, interrupt=interrupt, owner=new_owner("headless", limits.seconds)
        )


def _check_no_turn_in_progress(machine: TurnMachine) -> None:
    current = machine.current()
    if current is None or current.stage == "done" or is_answered(machine.session, current):
        return  # a turn answered (from its rows or by the state's account) is closed as the turn begins
    owner = live_owner(current)
    if owner is not None:
        raise StateError(
            f"Turn {current.turn} is being run by another alfred-mcp process (pid {owner.pid}); wait for it to end, or stop it."
        )
    raise OutOfOrderError(
        f"Turn {current.turn} was started stage by stage by an MCP client and waits for its {current.stage} output; "
        "finish it there, or end it with the turn_abandon tool, before running turns here.",
        expected=current.stage,
    )


def _progress(stream: TextIO, prefix: str) -> Callable[[TurnEvent], Awaitable[None]]:
    async def observe(event: TurnEvent) -> None:
        _say(stream, f"{prefix}· {describe_event(event)}")

    return observe


async def _with_signals(body: Callable[[Interrupt], Awaitable[int]]) -> int:
    """Run `body` with SIGINT/SIGTERM turned into an interrupt; exit code 128 + the signal when one came."""
    interrupt = Interrupt()
    codes: list[int] = []
    failures: list[Exception] = []
    async with anyio.create_task_group() as group:
        await group.start(_watch_signals, interrupt)
        try:
            codes.append(await body(interrupt))
        except Exception as error:  # raised below, not wrapped in the group's ExceptionGroup
            failures.append(error)
        group.cancel_scope.cancel()
    if failures:
        raise failures[0]
    return 128 + interrupt.signal if interrupt.signal is not None else codes[0]


async def _watch_signals(interrupt: Interrupt, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
    with anyio.open_signal_receiver(*_SIGNALS) as signals:
        task_status.started()
        async for signum in signals:
            interrupt.request(_SIGNALS.get(signal.Signals(signum), "interrupted"), signal=int(signum))


class _Lines:
    """Lines of a text stream, read by a daemon thread: waiting for input never blocks the event loop or the exit."""

    def __init__(self, stream: TextIO) -> None:
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        threading.Thread(target=self._pump, args=(stream,), name="alfred-stdin", daemon=True).start()

    def _pump(self, stream: TextIO) -> None:
        try:
            for line in stream:
                self._queue.put(line)
        finally:
            self._queue.put(None)

    async def next(self) -> str | None:
        """The next line, or None at the end of input."""
        while True:
            try:
                return self._queue.get_nowait()
            except queue.Empty:
                await anyio.sleep(INPUT_POLL_SECONDS)


def _say(stream: TextIO, line: str) -> None:
    stream.write(f"{line}\n")
    stream.flush()
