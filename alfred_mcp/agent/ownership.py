"""Which loop owns a turn in progress, and whether it is still alive.

A turn the bundled loop runs records its owner (driver, pid, a digest of the host, its deadline). A later run
that finds it still in progress ends it when that owner is certainly gone: the process no longer exists on
this host, or the turn is past the deadline by which its loop would have ended it. A stage-driven turn has no
owner and is never ended this way: its client may come back.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from typing import Literal

from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.state.agent_turn import TurnOwner, TurnState

GRACE_SECONDS = 60.0
"""Past its deadline by this much, a loop's turn is dead whoever owned it (tool calls may overrun a little)."""


def new_owner(driver: Literal["headless", "chat_tool"], seconds: float) -> TurnOwner:
    """This process as the owner of a turn allowed `seconds` of wall time."""
    now = time.time()
    return TurnOwner(driver=driver, pid=os.getpid(), host=host_digest(), started=now, deadline=now + seconds)


def host_digest() -> str:
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:12]


def owner_is_gone(owner: TurnOwner, now: float | None = None) -> bool:
    """True when the loop that owns a turn can no longer be running it."""
    now = time.time() if now is None else now
    if now > owner.deadline + GRACE_SECONDS:
        return True
    return owner.host == host_digest() and not _alive(owner.pid)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def live_owner(state: TurnState | None) -> TurnOwner | None:
    """The owner of an unfinished turn when it is still running it (None: done, stage-driven, or dead)."""
    if state is None or state.stage == "done" or state.owner is None or owner_is_gone(state.owner):
        return None
    return state.owner


async def end_if_abandoned(machine: TurnMachine) -> TurnState | None:
    """End the current turn when the loop that owned it is gone; returns the ended turn (None: nothing to do)."""
    state = machine.current()
    if state is None or state.stage == "done" or state.owner is None or not owner_is_gone(state.owner):
        return None
    owner = state.owner
    reason = f"interrupted: the alfred-mcp {owner.driver.replace('_', ' ')} (pid {owner.pid}) running it stopped"
    return await machine.reply_without_model(state, reason, hint="ask again")
