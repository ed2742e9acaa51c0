"""``marsdice verify RECORD``: recompute the deal and every roll of a fair game from its
revealed seed (see ``docs/fairness.md``).

Exit codes: 0 fair (every roll and the deal match the committed seed); 1 unfair (the first
roll or the deal that does not match is named, or the revealed seed does not match the
commitment); 2 cannot verify (no fairness tags, the seed not revealed yet, an unreadable or
illegal record, a missing file).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from marsdice.cli.args import print_error
from marsdice.core.errors import RecordError
from marsdice.core.record import read_record_file
from marsdice.fair import verify_record
from marsdice.games import read_record

EXIT_FAIR: Final = 0
EXIT_UNFAIR: Final = 1
EXIT_CANNOT_VERIFY: Final = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", type=Path, help="the record of a finished fair game (with its ServerSeed tag)"
    )


def run(args: argparse.Namespace) -> int:
    path: Path = args.file
    try:
        _, record = read_record(read_record_file(path))
    except RecordError as error:
        print_error(f"cannot verify {path}: {error}")
        return EXIT_CANNOT_VERIFY
    verdict = verify_record(record)
    if not verdict.checked:
        print_error(f"{path}: {verdict.message}")
        return EXIT_CANNOT_VERIFY
    print(verdict.message)
    return EXIT_FAIR if verdict.fair else EXIT_UNFAIR
