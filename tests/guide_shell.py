"""One bash that runs a guide's command blocks in order, as an operator's terminal would.

Each block is sourced from a file (stdin /dev/null, so no command eats the next one) under
`set -euo pipefail`: a failing command or an unset variable ends the shell, and `run` raises with
the block's output. Variables, functions and background processes carry over from block to block.
The shell leads its own process group; everything it started in the background is stopped with it.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

STOP_WAIT = 10.0


class BlockFailed(AssertionError):
    """A block's command failed, used an unset variable, or did not finish in time."""


class GuideShell:
    """`with GuideShell(folder, env) as shell: shell.run(block_text)`; the shell runs in `folder`."""

    def __init__(self, folder: Path, env: Mapping[str, str]) -> None:
        self.folder = folder
        self._count = 0
        self._process = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=folder, env=dict(env), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True, text=True, bufsize=1,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._send("set -euo pipefail\n")

    def __enter__(self) -> GuideShell:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.stop()

    def run(self, text: str, *, timeout: float = 60.0) -> str:
        """Run one block; what it printed (stdout and stderr), exactly.

        Raises:
            BlockFailed: the shell ended (a command failed), or the block ran past `timeout` seconds (the shell is
                stopped then); every later block fails too.
        """
        self._count += 1
        script = self.folder / f".guide-block-{self._count}.sh"
        script.write_text(text + "\n", encoding="utf-8")
        marker = f"__guide_block_{self._count}_done__"
        self._send(f"source {script.name} </dev/null\nprintf '\\n%s\\n' {marker}\n")
        output: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._lines.get(timeout=0.2)
            except queue.Empty:  # quiet, or the shell exited while a background process holds the output open
                if self._process.poll() is not None:
                    line = None
                elif time.monotonic() > deadline:
                    self.stop()  # what it left running can't be trusted by the next block
                    raise BlockFailed(f"the block did not finish within {timeout:.0f} s; its output so far:\n{''.join(output)}") from None
                else:
                    continue
            if line is None:
                code = self._process.wait(timeout=STOP_WAIT)
                time.sleep(0.2)  # the reader may still hold the last lines
                while not self._lines.empty():
                    output.append(self._lines.get() or "")
                raise BlockFailed(f"a command of the block failed (the shell exited with {code}); its output:\n{''.join(output)}")
            if line.rstrip("\n") == marker:
                return "".join(output).removesuffix("\n")
            output.append(line)

    def stop(self) -> None:
        """End the shell and every process it started (SIGTERM to its group, SIGKILL after STOP_WAIT s)."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            try:
                self._process.stdin.close()
            except BrokenPipeError:  # the shell has exited already
                pass
        for signum in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self._process.pid, signum)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + STOP_WAIT
            while time.monotonic() < deadline:
                try:
                    os.killpg(self._process.pid, 0)
                except ProcessLookupError:
                    self._process.wait(timeout=STOP_WAIT)
                    return
                self._process.poll()
                time.sleep(0.05)

    def _send(self, text: str) -> None:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(text)
            self._process.stdin.flush()
        except (BrokenPipeError, ValueError):  # the shell exited, or was stopped (its stdin closed)
            raise BlockFailed(f"the shell exited ({self._process.wait(timeout=STOP_WAIT)}) before this block") from None

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._lines.put(line)
        self._lines.put(None)
