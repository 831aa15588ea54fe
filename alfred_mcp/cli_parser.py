"""An argument parser whose every refusal is one line naming the flag, the bad value and what it takes.

argparse's own refusal is the whole usage dump and a terse message ("invalid int value"); an operator needs the
flag, what was given and what is allowed, on one line, and the command's exit code 2 (could not start).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn


class UsageError(Exception):
    """A command line that cannot be run; the message is the whole line to print."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad command line raises UsageError with one clear line instead of printing usage and exiting."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("exit_on_error", False)
        super().__init__(*args, **kwargs)

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        misplaced = self._command_option_before_its_command(list(args) if args is not None else sys.argv[1:])
        if misplaced:
            raise UsageError(misplaced)
        try:
            parsed, extra = self.parse_known_args(args, namespace)
        except argparse.ArgumentError as error:
            unknown = self._first_unknown_option(args)
            if unknown and isinstance(_action_named(error, self), argparse._SubParsersAction):
                raise UsageError(self._unknown(unknown, None)) from None  # `--store bogus`: bogus was read as the command
            raise UsageError(_explain(error, self)) from None
        if extra:
            raise UsageError(self._unknown(extra, getattr(parsed, "command", None)))
        return parsed

    def error(self, message: str) -> NoReturn:
        """What argparse still reports by message only (a missing required argument)."""
        if message.startswith("the following arguments are required: "):
            names = message.removeprefix("the following arguments are required: ")
            wanted = [a for a in self._actions if a.dest in names.split(", ")]
            helps = "; ".join(f"{a.help}" for a in wanted if a.help)
            raise UsageError(f"{self.prog} needs {names}" + (f": {helps}" if helps else "") + ".")
        raise UsageError(f"{message}.")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            allowed = ", ".join(map(str, action.choices))
            if isinstance(action, argparse._SubParsersAction):
                raise argparse.ArgumentError(action, f"unknown command {value!r}: the commands are {allowed}")
            raise argparse.ArgumentError(action, f"{_flag(action)} takes one of {allowed} (got {value!r})")

    def _unknown(self, extra: list[str], command: str | None) -> str:
        parser = self._command_parser(command)
        options = sorted({s for a in parser._actions for s in a.option_strings if s.startswith("--")})
        word = extra[0].split("=", 1)[0]
        where = f"alfred-mcp {command}" if command else "alfred-mcp"
        if not word.startswith("-"):
            return f"{where} does not take {word!r} (`{where} --help` says what it takes)."
        close = difflib.get_close_matches(word, options, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return (f"unknown option {word}{hint}; {where} takes {', '.join(options)} "
                f"(`{where} --help` says what each does).")

    def _command_option_before_its_command(self, given: list[str]) -> str | None:
        """The line for an option only a command takes (`--json-mode`, `--http`) given before any command, which argparse
        would otherwise report as its value being an unknown command."""
        commands = {name: parser for action in self._actions if isinstance(action, argparse._SubParsersAction)
                    for name, parser in action.choices.items()}
        own = {s for a in self._actions for s in a.option_strings}
        for word in given:
            if word in commands:
                return None
            option = word.split("=", 1)[0]
            if not option.startswith("--") or option in own:
                continue
            owners = [name for name, parser in commands.items() if option in {s for a in parser._actions for s in a.option_strings}]
            if owners:
                return (f"{option} is an option of {' and '.join(owners)}: put it after the command, "
                        f"e.g. alfred-mcp {owners[0]} {option} ...")
        return None

    def _first_unknown_option(self, args: Sequence[str] | None) -> list[str]:
        """The first option no parser of the command knows, with what follows it."""
        known = {s for a in _all_actions(self) for s in a.option_strings}
        given = list(args) if args is not None else sys.argv[1:]
        for at, word in enumerate(given):
            if word.startswith("--") and word.split("=", 1)[0] not in known and not any(k.startswith(word) for k in known):
                return given[at:]
        return []

    def _command_parser(self, command: str | None) -> argparse.ArgumentParser:
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                found: argparse.ArgumentParser = action.choices[command]
                return found
        return self


def _flag(action: argparse.Action) -> str:
    return action.option_strings[-1] if action.option_strings else str(action.dest)


def _explain(error: argparse.ArgumentError, parser: argparse.ArgumentParser) -> str:
    """The line for an argument argparse refused: a missing value names what the flag takes."""
    action = _action_named(error, parser)
    if action is None:
        return str(error)
    if error.message.startswith("expected "):
        return f"{_flag(action)} needs a value: {action.help}."
    if isinstance(action, argparse._SubParsersAction) or error.message.startswith(_flag(action)):
        return error.message + "."
    if error.message.startswith("takes "):
        return f"{_flag(action)} {error.message}."
    return f"{_flag(action)}: {error.message}."


def _action_named(error: argparse.ArgumentError, parser: argparse.ArgumentParser) -> argparse.Action | None:
    return next((a for a in _all_actions(parser) if error.argument_name in ("/".join(a.option_strings), a.metavar, a.dest)), None)


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                actions += command._actions
    return actions


def checked(kind: Callable[[str], float], what: str, *, above_zero: bool = True) -> Callable[[str], float]:
    """A `type=` for argparse that refuses anything but a number of `kind` (> 0 when `above_zero`), saying `what` it takes."""

    def convert(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value != value or (above_zero and not value > 0) or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"takes {what} (got {text!r})")
        return value

    return convert
