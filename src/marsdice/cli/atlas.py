"""The strategy atlas: where the first player stands, and when optimal play stops rolling.

Three panels: the win probability of the player about to start a turn over every pair of
totals (first seat); then, for the turn itself, where the player stops or rolls on by dice left
and Earthlings banked, under the expected-score policy and under the win-probability policy of
a player well ahead. matplotlib is imported here only.

Colours are readable with every common colour-vision deficiency: the win probability in
*cividis* (blue to yellow, designed for it, and monotone in lightness so it also prints in
grey), and roll on / stop in the Okabe-Ito blue and orange, never red against green.

:func:`draw_atlas` refuses a path it cannot write before any work (a folder, a missing or
read-only folder) and turns a failure while saving into :class:`AtlasError`: one line, no
traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import numpy as np

from marsdice.core.errors import MarsDiceError
from marsdice.martian import Phase, Variant, position
from marsdice.solve.model import FloatArray
from marsdice.solve.policy import action_values, solution_for
from marsdice.solve.turn import expected_score_solution
from marsdice.solve.winprob import winprob_table

#: Earthling types taken in the turn states drawn (the usual mid-turn case)
TYPES_TAKEN = 2
#: Okabe-Ito colours (safe for colour-blind readers): roll on, stop
ROLL_COLOUR: Final = "#0072B2"  # blue
STOP_COLOUR: Final = "#E69F00"  # orange
HEAT_MAP: Final = "cividis"


class AtlasError(MarsDiceError, OSError):
    """The atlas cannot be written where asked; the message is one line."""


def check_plot_path(path: Path) -> None:
    """Refuse a path the atlas could not be saved to (before the tables are solved)."""
    if path.is_dir():
        raise AtlasError(f"cannot write the atlas to {path}: it is a folder; give a file name")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise AtlasError(f"cannot write the atlas to {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise AtlasError(f"cannot write the atlas to {path}: permission denied")


def stop_map(variant: Variant, scores: tuple[int, ...], *, expected: bool) -> FloatArray:
    """``grid[banked, left]``: 1 where the first seat stops, 0 where it rolls on, NaN where no
    such position exists. Two Earthling types are taken, and the other dice set aside are rays
    and tanks split as evenly as possible, rays ahead by one on odd counts: the knife edge where
    the choice is hardest."""
    dice = variant.dice
    if expected:
        solution = expected_score_solution(dice)
    else:
        table = winprob_table(variant.target, dice)
        solution = solution_for(table.after_turn(scores[0], scores[1], 0), dice)
    grid = np.full((dice, dice), np.nan)
    for left in range(1, dice):
        for banked in range(TYPES_TAKEN, dice - left + 1):
            military = dice - left - banked
            tanks = military // 2
            aside = (tanks, military - tanks, banked - 1, 1, 0)
            state = position(variant, scores, set_aside=aside)
            assert state.phase is Phase.DECIDE
            (_, stop), (_, go) = action_values(state, solution)
            grid[banked, left] = 1.0 if go <= stop else 0.0
    return grid


def draw_atlas(path: Path, *, target: int = 25, dice: int = 13) -> None:
    """Draw the atlas to ``path`` (the format from its suffix, .png or .svg); raises
    :class:`AtlasError` if it cannot be written, ImportError without matplotlib."""
    path = Path(path)
    check_plot_path(path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    table = winprob_table(target, dice)
    variant = Variant(players=2, target=target, dice=dice)
    figure, axes = plt.subplots(1, 3, figsize=(17, 5.2), constrained_layout=True)

    heat = axes[0].imshow(table.first, origin="lower", cmap=HEAT_MAP, vmin=0, vmax=1)
    axes[0].set_title("P(win) of the first seat about to roll")
    axes[0].set_xlabel("opponent's total")
    axes[0].set_ylabel("own total")
    level = axes[0].contour(table.first, levels=[0.25, 0.5, 0.75], colors="k", linewidths=0.9)
    axes[0].clabel(level, fmt="%.2f", fontsize=8)
    figure.colorbar(heat, ax=axes[0], shrink=0.85)

    leader = (max(0, target - 5), target // 2)
    panels = [
        (axes[1], stop_map(variant, (0, 0), expected=True), "expected-score policy"),
        (
            axes[2],
            stop_map(variant, leader, expected=False),
            f"win-probability policy, leading {leader[0]} to {leader[1]}",
        ),
    ]
    colours = ListedColormap([ROLL_COLOUR, STOP_COLOUR])
    for axis, grid, title in panels:
        axis.imshow(grid, origin="lower", cmap=colours, vmin=0, vmax=1, aspect="auto")
        axis.set_title(f"Roll on (blue) or stop (orange):\n{title}", fontsize=10)
        axis.set_xlabel("dice left")
        axis.set_ylabel("Earthlings banked (2 types taken)")
        axis.set_xlim(0.5, dice - 0.5)
        axis.set_ylim(TYPES_TAKEN - 0.5, dice - 0.5)
        axis.text(
            dice - 1,
            dice - 1.5,
            "rays = tanks (+1 if odd)\nwhite: impossible",
            ha="right",
            va="top",
            fontsize=8,
        )
    figure.suptitle(
        f"Martian Dice strategy atlas (target {target}, {dice} dice)",
        fontsize=11,
    )
    try:
        figure.savefig(path, dpi=110)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise AtlasError(f"cannot write the atlas to {path}: {reason}") from None
    except ValueError as error:  # an unknown format
        raise AtlasError(f"cannot write the atlas to {path}: {error}") from None
    finally:
        plt.close(figure)
