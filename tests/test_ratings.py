"""The rating model: openskill's Plackett-Luce fed the engines' placings, its errors, the
shown number, and a seeded convergence run with real bots."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from openskill.models import PlackettLuce

from conftest import bust_turn, roll, scoring_turn
from marsdice.bots import make_bot
from marsdice.core.game import GameState, play_out
from marsdice.games import get_game
from marsdice.martian import RolloffMode, State, Variant, new_game
from marsdice.ratings import INITIAL, SHOWN_SCALE, Rating, rate, win_chances
from marsdice.ratings.simulate import main, schedule, simulate

#: some settled ratings, so that the checks do not lean on everyone starting equal
PLAYERS = (Rating(27.0, 3.0), Rating(24.0, 5.5), Rating(31.5, 1.2))


def openskill_update(ratings: tuple[Rating, ...], ranks: list[int]) -> list[Rating]:
    """The update computed by openskill itself with its documented defaults."""
    model = PlackettLuce()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    return [Rating(t[0].mu, t[0].sigma) for t in model.rate(teams, ranks=list(map(float, ranks)))]


# --- the model ------------------------------------------------------------------------------


def test_a_new_player_shows_1000_and_the_scale_is_elos() -> None:
    assert (INITIAL.mu, INITIAL.sigma) == (25.0, 25.0 / 3)
    assert INITIAL.shown == 1000
    assert Rating(30.0, 2.0).shown == round(1000 + SHOWN_SCALE * 24.0) == 1708
    # 400 shown points are 10:1 under the model's two-player law at sigma 0
    beta = 25.0 / 6
    gap = 400 / SHOWN_SCALE
    assert 1 / (1 + math.exp(-gap / (math.sqrt(2) * beta))) == pytest.approx(10 / 11)
    # conservative: the same mean shows less while it is less sure
    assert Rating(30.0, 1.0).shown > Rating(30.0, 4.0).shown


def test_the_update_is_openskills_plackett_luce() -> None:
    assert rate(PLAYERS, [2, 3, 1]) == openskill_update(PLAYERS, [2, 3, 1])
    assert rate([INITIAL] * 4, [4, 1, 3, 2]) == openskill_update((INITIAL,) * 4, [4, 1, 3, 2])


def test_a_win_moves_ratings_the_right_way() -> None:
    winner, loser = rate([INITIAL, INITIAL], [1, 2])
    assert winner.mu > INITIAL.mu > loser.mu
    assert winner.sigma < INITIAL.sigma and loser.sigma < INITIAL.sigma
    assert winner.shown > 1000 > loser.shown
    # beating a much stronger player is worth more than beating a weaker one
    upset = rate([Rating(20.0, 2.0), Rating(35.0, 2.0)], [1, 2])[0].mu - 20.0
    expected = rate([Rating(20.0, 2.0), Rating(5.0, 2.0)], [1, 2])[0].mu - 20.0
    assert upset > expected > 0


def test_only_the_order_of_places_counts_and_seats_keep_their_order() -> None:
    assert rate(PLAYERS, [1, 1, 2]) == rate(PLAYERS, [1, 1, 3])
    forward = rate(PLAYERS, [1, 2, 3])
    backward = rate(PLAYERS[::-1], [3, 2, 1])
    assert forward == backward[::-1]


def test_rate_is_deterministic_and_changes_nothing_given() -> None:
    before = list(PLAYERS)
    placings = [3, 1, 2]
    first = rate(before, placings)
    assert rate(before, placings) == first
    assert before == list(PLAYERS) and placings == [3, 1, 2]


@pytest.mark.parametrize(
    ("ratings", "placings", "message"),
    [
        ((INITIAL, INITIAL), (1,), "2 ratings but 1 placings"),
        ((INITIAL,), (1,), "at least 2 seats, got 1"),
        ((), (), "at least 2 seats, got 0"),
        ((INITIAL, INITIAL), (1, 0), "seat 1: a placing must be at least 1, got 0"),
        ((INITIAL, INITIAL), (-1, 1), "seat 0: a placing must be at least 1"),
        ((INITIAL, INITIAL), (1, 1.5), "seat 1: a placing must be a whole number"),
        ((INITIAL, INITIAL), (1, math.inf), "seat 1: a placing must be a whole number"),
        ((INITIAL, INITIAL), (True, 2), "seat 0: a placing must be a whole number"),
        ((INITIAL, Rating(math.nan, 1.0)), (1, 2), "seat 1: mu and sigma must be finite"),
        ((Rating(25.0, math.inf), INITIAL), (1, 2), "seat 0: mu and sigma must be finite"),
        ((INITIAL, Rating(-math.inf, 1.0)), (1, 2), "seat 1: mu and sigma must be finite"),
        ((INITIAL, Rating(25.0, 0.0)), (1, 2), "seat 1: sigma must be positive"),
        ((INITIAL, (25.0, 1.0)), (1, 2), "seat 1: not a Rating"),
        ((Rating(1e6, 1.0), INITIAL), (2, 1), "too far apart"),
    ],
)
def test_bad_input_is_refused_clearly(
    ratings: tuple[Rating, ...], placings: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        rate(ratings, placings)


def test_win_chances_favour_the_stronger_and_sum_to_one() -> None:
    chances = win_chances(PLAYERS)
    assert sum(chances) == pytest.approx(1.0)
    assert chances[2] > chances[0] > chances[1]
    with pytest.raises(ValueError, match="at least 2 seats"):
        win_chances([INITIAL])


# --- what the engines give -------------------------------------------------------------------


def martian_tie_for_first(mode: RolloffMode, rays: tuple[str, ...]) -> State:
    """Three seats: 0 and 1 score 5 and go to a roll-off (``rays``: its rolls in order),
    seat 2 scores 2."""
    state = new_game(Variant(players=3, target=5, rolloff_mode=mode))
    state = scoring_turn(scoring_turn(scoring_turn(state, 5), 5), 2)
    assert state.rolloff_seats == (0, 1)
    for faces in rays:
        state = roll(state, faces)
    assert state.is_terminal and state.scores == (5, 5, 2)
    return state


def test_a_tied_game_is_rated_as_the_models_tie() -> None:
    # Board Game Arena's single roll-off: equal rays again, so first place is shared
    final = martian_tie_for_first(RolloffMode.SINGLE, ("RRHHHH", "RRCCCC"))
    assert final.winners == (0, 1)
    assert final.placings() == (1, 1, 3)
    assert rate(PLAYERS, final.placings()) == openskill_update(PLAYERS, [1, 1, 3])
    # and a tie is its own result, neither seat's win
    assert rate(PLAYERS, final.placings()) != rate(PLAYERS, [1, 2, 3])
    assert rate(PLAYERS, final.placings()) != rate(PLAYERS, [2, 1, 3])
    # equal players sharing first move together
    first, second, third = rate([INITIAL] * 3, final.placings())
    assert first == second and first.mu > INITIAL.mu > third.mu


def test_a_rolloff_game_is_rated_as_a_plain_win() -> None:
    # the project's repeated roll-off: tied at two rays, then seat 1 rolls more
    final = martian_tie_for_first(RolloffMode.REPEAT, ("RRHHHH", "RRCCCC", "RHHHHH", "RRRHHH"))
    assert final.winners == (1,) and len(final.rolloff_history) == 2
    assert final.placings() == (2, 1, 3)
    # the same update as a game seat 1 won outright: 6 to seat 0's 5, seat 2 on 2
    outright = scoring_turn(new_game(Variant(players=3, target=5)), 5)
    outright = scoring_turn(scoring_turn(outright, 6), 2)
    assert outright.is_terminal and not outright.rolloff_history
    assert outright.placings() == final.placings()
    plain = openskill_update(PLAYERS, [2, 1, 3])
    assert rate(PLAYERS, final.placings()) == rate(PLAYERS, outright.placings()) == plain
    assert rate(PLAYERS, final.placings()) != rate(PLAYERS, [1, 1, 3])


def test_a_three_way_rolloff_decides_first_place_only() -> None:
    state = new_game(Variant(players=3, target=5))
    state = scoring_turn(scoring_turn(scoring_turn(state, 5), 5), 5)
    # seat 2 drops out of the first round, seat 0 wins the second
    for faces in ("RRRHHH", "RRRHHH", "RHHHHH", "RRHHHH", "RHHHHH"):
        state = roll(state, faces)
    assert state.winners == (0,) and state.placings() == (1, 2, 2)
    assert rate(PLAYERS, state.placings()) == openskill_update(PLAYERS, [1, 2, 2])


def test_level_totals_below_the_winner_share_a_place() -> None:
    # two seats level on 0 below a winner: the engine ties them, the model ties them
    state = scoring_turn(new_game(Variant(players=3, target=5)), 6)
    final = bust_turn(bust_turn(state))
    assert final.placings() == (1, 2, 2)
    assert rate(PLAYERS, final.placings()) == openskill_update(PLAYERS, [1, 2, 2])


def attacks_tie_on_points() -> tuple[GameState, str]:
    """The first seeded Mars Attacks game between random bots whose top score was level: its
    tie-break (more cards, then who reached the score first) names one winner."""
    game = get_game("attacks")
    for index in range(200):
        rng = random.Random(f"ratings:{index}")
        bots = [make_bot("attacks", "random", seed=rng.randrange(2**32)) for _ in range(2)]
        final = play_out(game.start(game.default_variant(2), rng), [b.choose for b in bots], rng)
        scores = final.final.scores
        if scores[0] == scores[1]:
            return final.final, game.tie_rule(final.final, (0, 1))
    raise AssertionError("no level game in 200: the search needs a wider range")


def test_a_mars_attacks_tie_break_is_rated_as_a_plain_win() -> None:
    final, rule = attacks_tie_on_points()
    assert rule in ("cards", "reached_first")
    placings = final.placings()
    assert sorted(placings) == [1, 2] and len(final.winners) == 1
    assert rate(PLAYERS[:2], placings) == openskill_update(PLAYERS[:2], list(placings))
    assert rate(PLAYERS[:2], placings) != rate(PLAYERS[:2], [1, 1])


# --- convergence ----------------------------------------------------------------------------


def test_a_cycle_seats_every_bot_everywhere_equally() -> None:
    bots = ("a", "b", "c", "d")
    cycle = schedule(bots, (2, 3))
    assert len(cycle) == 6 * 2 + 4 * 3
    for size in (2, 3):
        seats = Counter(
            (name, seat)
            for lineup in cycle
            if len(lineup) == size
            for seat, name in enumerate(lineup)
        )
        # each bot sits in each seat once per line-up it is in
        assert set(seats.values()) == {math.comb(len(bots) - 1, size - 1)}
        assert len(seats) == len(bots) * size
    with pytest.raises(ValueError, match="game size must be 2-4"):
        schedule(bots, (5,))


def test_ratings_order_bots_as_their_win_rates() -> None:
    result = simulate(("random", "cautious", "winprob"), games=90, seed=0, sizes=(2, 3))
    assert result.games == 90 and all(e.games == 70 for e in result.entries)
    by_rating = [e.name for e in result.by_rating()]
    assert by_rating == [e.name for e in result.by_win_rate()]
    assert result.orders_agree()
    # and that is the order of their known strength, well apart
    assert by_rating == ["winprob", "cautious", "random"]
    shown = [e.rating.shown for e in result.by_rating()]
    assert shown[0] - shown[1] > 400 and shown[1] - shown[2] > 400
    assert len({e.win_rate for e in result.entries}) == 3


def test_the_simulation_is_seeded() -> None:
    one = simulate(("random", "cautious"), games=12, seed=5, sizes=(2,))
    assert simulate(("random", "cautious"), games=12, seed=5, sizes=(2,)) == one
    assert simulate(("random", "cautious"), games=12, seed=6, sizes=(2,)) != one


def test_settled_is_the_mean_over_the_second_half() -> None:
    # the first three games of a run of four are a run of three: games 3 and 4 are the half
    three, four = (simulate(("random", "cautious"), games=n, seed=2, sizes=(2,)) for n in (3, 4))
    for before, after in zip(three.entries, four.entries, strict=True):
        assert after.settled == (before.rating.shown + after.rating.shown) / 2
    assert four.entries[1].settled != four.entries[1].rating.shown


@pytest.mark.parametrize(
    ("bots", "games", "sizes", "message"),
    [
        (("random", "cautious"), 0, (2,), "at least 1, got 0"),
        (("random", "random"), 4, (2,), "two different bots"),
        (("random",), 4, (2,), "two different bots"),
        (("random", "nobody"), 4, (2,), "unknown bot 'nobody'"),
        (("random", "cautious"), 4, (), "at least one game size"),
    ],
)
def test_a_simulation_refuses_bad_settings(
    bots: tuple[str, ...], games: int, sizes: tuple[int, ...], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        simulate(bots, games=games, seed=0, sizes=sizes)


def test_the_command_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--games", "12", "--seed", "1", "--bots", "random", "cautious", "--sizes", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "martian: 12 games of 2 players, seed 1" in out
    assert out.index("cautious ") < out.index("random ")
    assert "agrees with the order of the win rates" in out
    assert "random v cautious" in out
    with pytest.raises(SystemExit):
        main(["--games", "12", "--bots", "random", "cautious", "--sizes", "3"])
    assert "game size must be 2-2" in capsys.readouterr().err
