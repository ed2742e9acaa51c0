"""Instructions per move of the drivers of ``bench_adapters.py``, counted by valgrind's
callgrind instead of timed (not a test; the figures in ``docs/research.md`` come from it).

Why: on this shared machine the same work timed twice can differ by a third, and two
machines of the same kind put the adapter's ratios on either side of a target. An
instruction count is the same on every run and every machine of one build, whatever else
the machine is doing, so it tells a change of the code from a change of the machine. It is
not time: an instruction of the interpreter's loop and one of OpenSpiel's C++ differ in
cost, so the ratios here are a fixed reference for before/after comparisons of the same
driver, and the targets stay read against ``bench_adapters.py``'s moves per second.

Each driver (OpenSpiel's C++ ``pig``, each engine driven directly, each game through the
OpenSpiel adapter: the very loops of ``bench_adapters.py``) runs in a child process under
callgrind, after ``bench_adapters.py``'s warm-up. The child calls ``getppid`` just before
and just after its ``--moves`` moves, and callgrind dumps its counters before each call
(``--dump-before=getppid``), so the second of the three parts counted holds the moves
alone (start-up, imports, warm-up and shutdown fall in the other two); over the moves made
it is the driver's instructions per move (``pig`` makes five times as many moves).
``PYTHONHASHSEED`` is fixed so that every run hashes alike, and numpy's OpenBLAS keeps to
one thread (its idle threads spin, a few million instructions that varied from run to run
and were the only difference between two counts of the same child). The children run
``--jobs`` at a time: counting instructions, they do not disturb each other.

Two runs of one tree print the same counts to the instruction. To compare another
revision, put its sources first on the path: ``git worktree add /tmp/old REV`` and
``PYTHONPATH=/tmp/old/src`` before the command (the children inherit it); a different tree
shifts even an unchanged driver by up to about 0.5% (another memory layout), so smaller
differences between trees are not the code's.

Run: .venv/bin/python bench/bench_instructions.py [--moves 5000] [--seed 1] [--jobs 2]
(about 45 seconds on two cores at the default)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pyspiel

import bench_adapters as bench
import marsdice.adapters.openspiel  # noqa: F401  (registers the games)
from marsdice.games import get_game

#: the drivers, as ``bench_adapters.py`` names them in its tables
DRIVERS = (
    "pig",
    *(f"{name} {kind}" for name, _ in bench.GAMES for kind in ("engine", "adapter")),
)
#: the instructions of one part of a callgrind profile
_TOTALS = re.compile(r"^totals:\s*(\d+)", re.MULTILINE)


def drive(driver: str, moves: int, seed: int) -> int:
    """In the child: the warm-up (``bench_adapters.py``'s), then ``moves`` moves of
    ``driver`` (whole games) between two calls of ``getppid`` (where callgrind dumps its
    counters); the moves made."""
    play: Callable[[int, int], tuple[int, float, int]]
    if driver == "pig":
        pig = pyspiel.load_game(*bench.PIG)
        play = partial(bench.openspiel_moves, pig)
        moves *= bench.PIG_SHARE
    else:
        name, kind = driver.split()
        params = dict(bench.GAMES)[name]
        if kind == "adapter":
            game = pyspiel.load_game(f"python_marsdice_{name}", params)
            play = partial(bench.openspiel_moves, game)
        else:
            play = partial(bench.engine_moves, name, params)
    play(bench.WARM_UP, seed - 1)
    os.getppid()  # callgrind: the moves start
    made = play(moves, seed)[0]
    os.getppid()  # callgrind: the moves end
    return made


def count(driver: str, moves: int, seed: int) -> tuple[int, int]:
    """Run one child under callgrind: (instructions its moves executed, moves it made)."""
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            "valgrind",
            "--tool=callgrind",
            "--dump-before=getppid",
            f"--callgrind-out-file={scratch}/out",
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            driver,
            "--moves",
            str(moves),
            "--seed",
            str(seed),
        ]
        # numpy's OpenBLAS threads spin while they wait, a count that varies from run to run
        env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        parts = sorted(Path(scratch).glob("out.*"))
        moves_part = Path(scratch, "out.2")
        found = _TOTALS.search(moves_part.read_text()) if moves_part.exists() else None
    if done.returncode != 0 or found is None or len(parts) != 2:
        tail = done.stderr.strip().splitlines()[-3:] or [f"{len(parts)} dumps, not 2"]
        raise SystemExit(f"bench_instructions: {driver} failed: {' / '.join(tail)}")
    return int(found.group(1)), int(json.loads(done.stdout.strip().splitlines()[-1])["moves"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=5_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--child", choices=DRIVERS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps({"moves": drive(args.child, args.moves, args.seed)}))
        return
    if args.moves < 1:
        parser.error(f"--moves must be at least 1, got {args.moves}")
    if shutil.which("valgrind") is None:  # a bench that cannot count says so and stops
        print("bench_instructions: skipped: valgrind is not installed (apt-get install valgrind)")
        return
    pool = ThreadPoolExecutor(max(1, args.jobs))
    try:
        counted = dict(
            zip(DRIVERS, pool.map(lambda d: count(d, args.moves, args.seed), DRIVERS), strict=True)
        )
    except KeyboardInterrupt:  # Ctrl-C reaches the children too: nothing is left to wait for
        pool.shutdown(wait=False, cancel_futures=True)
        print("bench_instructions: stopped", file=sys.stderr)
        raise SystemExit(130) from None
    pool.shutdown()
    per_move = {driver: total / made for driver, (total, made) in counted.items()}
    print(
        f"instructions per move (callgrind), {args.moves:,} moves a driver "
        f"(pig {bench.PIG_SHARE * args.moves:,}), seed {args.seed}"
    )
    print(f"OpenSpiel C++ pig (2 players, to 100): {per_move['pig']:,.0f}")
    print("| game | engine | adapter | adapter/engine | adapter/pig |")
    print("|---|---:|---:|---:|---:|")
    for name, _ in bench.GAMES:
        engine, adapter = per_move[f"{name} engine"], per_move[f"{name} adapter"]
        print(
            f"| {get_game(name).title}, 2 players | {engine:,.0f} | {adapter:,.0f} | "
            f"{adapter / engine:.2f} | "
            f"{adapter / per_move['pig']:.1f} |"
        )
    print(
        "\n(instructions, not time: compare a driver with itself before and after a change;"
        " the targets are read against bench_adapters.py)"
    )


if __name__ == "__main__":
    main()
