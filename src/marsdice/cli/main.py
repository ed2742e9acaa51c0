"""The ``marsdice`` command: one subcommand per module, each with ``add_arguments`` and ``run``.

Every command ends with a documented exit code and, on failure, one line on stderr; a
traceback is printed only with ``MARSDICE_DEBUG=1`` (see ``docs/cli.md``):

====  =====================================================================================
0     done
1     the work ran but a result could not be written where asked (it was saved to a fallback
      file, whose path is printed), or an unexpected internal error (please report it)
2     bad arguments, a bad input file or an unusable output path; nothing was done
130   interrupted (Ctrl-C); anything finished was kept (a partial tournament, a record)
141   the output pipe was closed by the reader (``marsdice replay x | head``); silent
====  =====================================================================================
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from importlib import import_module
from typing import Final

from marsdice import __version__
from marsdice.cli.args import DefaultsHelpFormatter, print_error
from marsdice.core.errors import MarsDiceError

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130
EXIT_BROKEN_PIPE: Final = 141
#: set to 1 to see the traceback behind an error message
DEBUG_ENV: Final = "MARSDICE_DEBUG"

#: subcommand -> module. All are imported to build the parser; each keeps numpy, the solvers
#: and matplotlib out of its module-level imports, so start-up stays light (tested).
COMMANDS: Final = {
    "play": "marsdice.cli.play",
    "replay": "marsdice.cli.replay",
    "tournament": "marsdice.cli.tournament",
    "analyze": "marsdice.cli.analyze",
    "review": "marsdice.cli.review",
    "verify": "marsdice.cli.verify",
    "serve": "marsdice.cli.serve",
    "connect": "marsdice.cli.connect",
    "accounts": "marsdice.cli.accounts",
}

_HELP: Final = {
    "play": "play a game in the terminal, against people or the computer",
    "replay": "print a recorded game turn by turn",
    "tournament": "play bots against each other over many seeded games",
    "analyze": "Martian Dice: every choice in a position with its expected score and win chance",
    "review": "what each decision of a recorded game cost, and the luck of the dice",
    "verify": "check a fair game's record: every roll and the deal against the revealed seed",
    "serve": "run the online server: a lobby and WebSocket play (docs/server.md)",
    "connect": "play (or watch) at a table of an online server, in person or with a bot",
    "accounts": "a server's accounts: create, reset a password, disable, sign-up on or off",
}

_EPILOG: Final = (
    "exit codes: 0 done; 1 a result saved to a fallback file, or an internal error; "
    "2 bad arguments or input; 130 interrupted. See docs/cli.md."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="marsdice",
        description="Martian Dice and Mars Attacks: The Dice Game, with exact solvers and bots.",
        epilog=_EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"marsdice {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMANDS.items():
        sub = commands.add_parser(
            name,
            help=_HELP.get(name),
            description=_HELP.get(name),
            epilog=_EPILOG,
            formatter_class=DefaultsHelpFormatter,
        )
        import_module(module).add_arguments(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit code (never raises, except
    ``SystemExit`` from nowhere and errors writing stderr itself)."""
    debug = os.environ.get(DEBUG_ENV, "") not in ("", "0")
    try:
        return _run(argv)
    except SystemExit as stop:  # argparse: --help, --version, a usage error (already printed)
        if isinstance(stop.__context__, BrokenPipeError):  # rich's own broken-pipe exit
            _silence_stdout()
            return EXIT_BROKEN_PIPE
        return _system_exit_code(stop)
    except KeyboardInterrupt:
        _trace(debug)
        print_error("interrupted", kind="stopped")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _trace(debug)
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except MarsDiceError as error:
        _trace(debug)
        print_error(str(error) or type(error).__name__)
        code = getattr(error, "exit_code", EXIT_USAGE)
        return code if isinstance(code, int) else EXIT_USAGE
    except OSError as error:
        _trace(debug)
        print_error(os_message(error))
        return EXIT_USAGE
    except ValueError as error:  # a bad option value found past argparse
        _trace(debug)
        print_error(str(error) or type(error).__name__)
        return EXIT_USAGE
    except MemoryError:
        _trace(debug)
        print_error("out of memory: try smaller settings (a lower target, fewer dice or games)")
        return EXIT_FAILED
    except Exception as error:
        _trace(debug)
        what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        hint = "" if debug else f" (run with {DEBUG_ENV}=1 to see the traceback)"
        print_error(f"internal error: {what}; please report it{hint}")
        return EXIT_FAILED


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        print_error(f"give a command: {', '.join(COMMANDS)} (marsdice --help says more)")
        return EXIT_USAGE
    from marsdice.solve.progress import stderr_progress  # rich only: no numpy at start-up

    with stderr_progress():  # a bar for any solve that runs longer than half a second
        code = import_module(COMMANDS[args.command]).run(args)
    return code if isinstance(code, int) else EXIT_FAILED


def os_message(error: OSError) -> str:
    """``missing.mdr: No such file or directory`` (the path and the reason, no errno)."""
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is not None:
        target = os.fsdecode(error.filename)
        if error.filename2 is not None:
            target += f" -> {os.fsdecode(error.filename2)}"
        return f"{target}: {reason}"
    return reason


def _system_exit_code(stop: SystemExit) -> int:
    if stop.code is None:
        return EXIT_OK
    if isinstance(stop.code, int):
        return stop.code
    print_error(str(stop.code))
    return EXIT_FAILED


def _trace(debug: bool) -> None:
    if debug:
        traceback.print_exc()


def _silence_stdout() -> None:
    """After the reader closed the pipe, point stdout at /dev/null so that Python's final
    flush does not print "Exception ignored ... BrokenPipeError"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests, embedding)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
