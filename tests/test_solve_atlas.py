"""The strategy atlas: colours readable with colour-vision deficiencies, and clear errors for
paths it cannot write (no traceback)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from marsdice.cli import atlas
from marsdice.core.errors import MarsDiceError


def _rgb(colour: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    red, green, blue = to_rgb(colour)
    return red, green, blue


def test_palette_is_not_red_against_green() -> None:
    import matplotlib

    roll, stop = _rgb(atlas.ROLL_COLOUR), _rgb(atlas.STOP_COLOUR)
    for colour in (roll, stop):
        red, green, blue = colour
        assert not (green > red + 0.2 and green > blue + 0.2)  # not a green
        assert not (red > green + 0.5 and red > blue + 0.5)  # not a pure red

    # the two policy colours differ in lightness, not only in hue
    def lightness(c: tuple[float, float, float]) -> float:
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    assert abs(lightness(roll) - lightness(stop)) > 0.15
    # the heat map is a colour-vision-safe map, monotone in lightness
    cmap = matplotlib.colormaps[atlas.HEAT_MAP]
    shades = [lightness(cmap(x / 10)[:3]) for x in range(11)]
    assert all(a < b for a, b in itertools.pairwise(shades))


def test_atlas_is_drawn(tmp_path: Path) -> None:
    path = tmp_path / "atlas.png"
    atlas.draw_atlas(path, target=6, dice=5)
    assert path.stat().st_size > 1000


@pytest.mark.parametrize("kind", ["folder", "missing folder", "read-only folder", "bad format"])
def test_unwritable_paths_give_one_line_errors(kind: str, tmp_path: Path) -> None:
    if kind == "folder":
        path = tmp_path
    elif kind == "missing folder":
        path = tmp_path / "nowhere" / "atlas.png"
    elif kind == "read-only folder":
        if os.geteuid() == 0:
            pytest.skip("root writes anywhere")
        folder = tmp_path / "locked"
        folder.mkdir()
        folder.chmod(0o500)
        path = folder / "atlas.png"
    else:
        path = tmp_path / "atlas.nope"
    with pytest.raises(atlas.AtlasError) as raised:
        atlas.draw_atlas(path, target=4, dice=3)
    assert isinstance(raised.value, MarsDiceError) and isinstance(raised.value, OSError)
    message = str(raised.value)
    assert "\n" not in message and str(path) in message


def test_failure_while_saving_is_an_atlas_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from matplotlib.figure import Figure

    def full_disk(self: Figure, *args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full_disk)
    with pytest.raises(atlas.AtlasError, match="No space left on device"):
        atlas.draw_atlas(tmp_path / "atlas.svg", target=4, dice=3)
