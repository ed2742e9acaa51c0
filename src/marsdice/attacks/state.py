"""The immutable Mars Attacks position and its transitions.

A turn: start-of-turn abilities (the owner's green cards, then New York), declare a target,
roll ten dice (chance), nukes and ray guns lock, then the roll is judged: bombed, captured, or
the player stops or rerolls the heads (possibly switching to another city). Every ability that
needs a decision is an action (its transitions are in :mod:`marsdice.attacks.abilities`);
every random event (dice, Memphis's card from the box) is an explicit chance node with exact
probabilities. Each step's :attr:`State.events` say what it did. See ``docs/rules-attacks.md``.

>>> from marsdice.attacks.setup import new_game
>>> from marsdice.attacks.variant import Variant
>>> stacks = [["Seattle", "Miami"], ["Boston", "Dallas"], ["Toronto", "Phoenix"], ["Denver"]]
>>> state = new_game(Variant(players=2), stacks)
>>> state.phase, [a.text() for a in state.legal_actions()]
(<Phase.TARGET: 'target'>, ['@seattle', '@boston', '@toronto', '@denver'])
>>> state = state.apply(state.parse_action("target boston"))
>>> state.is_chance_node, state.nuke_limit, [e.kind for e in state.events]
(True, 6, ['target-declared'])
>>> state = state.apply(state.parse_action("HHHRRRRRNN"))
>>> [a.text() for a in state.legal_actions()][:3]
['reroll', 'stop', 'reroll@seattle']
>>> state = state.apply(state.parse_action("reroll"))
>>> state = state.apply(state.parse_action("RNH"))
>>> [state.card(c).name for c in state.owned[0]], state.scores, state.seat
(['Boston'], (2, 0), 1)
>>> [e.kind for e in state.events][:4]
['rolled', 'captured', 'card-turned-up', 'turn-ended']
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from typing import TypeVar

from marsdice.attacks import abilities
from marsdice.attacks.actions import (
    ACTION_TYPES,
    PASS,
    RESTART,
    STOP,
    Action,
    BostonMove,
    Draw,
    MemphisPlace,
    Pass,
    Reroll,
    Restart,
    Roll,
    SeattleSet,
    Stop,
    Target,
    TorontoReroll,
    parse_decision,
    resolve_card,
)
from marsdice.attacks.cards import Ability, Card, Symbol
from marsdice.attacks.events import (
    AbilityDeclined,
    Bombed,
    Captured,
    CardTurnedUp,
    EndTriggered,
    GameOver,
    Rerolling,
    Rolled,
    Stopped,
    TargetDeclared,
    TokenLost,
    TokenPlaced,
    TokensHome,
    TurnBegan,
    TurnEnded,
    TurnPassed,
)
from marsdice.attacks.phases import CHANCE_PHASES, Outcome, Phase
from marsdice.attacks.variant import (
    DICE,
    DIE,
    FACE_PROBABILITIES,
    FACES,
    TOKENS,
    BombedRule,
    Face,
    RerollRule,
    SeattleRule,
    Variant,
)
from marsdice.core.dice import Counts, dice_outcomes, roll_dice
from marsdice.core.errors import IllegalActionError
from marsdice.core.game import CHANCE, TERMINAL, Event
from marsdice.core.game import Action as AnyAction

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TurnResult:
    """How a finished turn went, with every event of the turn (for commentary)."""

    seat: int
    turn: int
    outcome: Outcome
    target: int | None = None
    count: int = 0
    dice: Counts = (0, 0, 0)
    limit: int = 0
    captured: tuple[int, ...] = ()
    token: tuple[int, int] | None = None
    events: tuple[Event, ...] = ()


Tokens = tuple[tuple[int, int], ...]  # (card, value) pairs, sorted by card


@dataclass(frozen=True, slots=True)
class State:
    """One immutable position. Build with :func:`marsdice.attacks.setup.new_game`; advance
    with :meth:`apply`.

    Cards are indices into ``variant.cards``; a stack lists its cards top (face-up) first.
    ``stacks`` below their top cards and ``box`` are hidden from the players: the engine
    holds them, :meth:`marsdice.attacks.game.MarsAttacks.observe` never shows them.
    """

    variant: Variant
    stacks: tuple[tuple[int, ...], ...]
    box: tuple[int, ...]
    tokens: tuple[Tokens, ...]
    owned: tuple[tuple[int, ...], ...]
    reached: tuple[int, ...]
    seat: int = 0
    phase: Phase = Phase.TARGET
    turn: int = 0
    rounds: int = 0
    extra: int = 0
    bonus: bool = False
    end_triggered: bool = False
    # the turn in progress
    target: int | None = None
    heads: int = 0
    rays: int = 0
    nukes: int = 0
    rolls: int = 0
    to_roll: int = 0
    set_face: Face | None = None
    fallback: tuple[int, int] | None = None
    toronto_used: bool = False
    denver_used: bool = False
    new_york_due: bool = False
    memphis_due: bool = False
    memphis_stack: int | None = None
    pending: TurnResult | None = None
    # what happened: in the step that made this state, and in the turn so far
    events: tuple[Event, ...] = ()
    turn_events: tuple[Event, ...] = ()
    # history and result
    log: tuple[TurnResult, ...] = ()
    winners: tuple[int, ...] = ()

    # -- protocol --

    @property
    def current_player(self) -> int:
        if self.phase is Phase.OVER:
            return TERMINAL
        if self.phase in CHANCE_PHASES:
            return CHANCE
        return self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def is_chance_node(self) -> bool:
        return self.phase in CHANCE_PHASES

    @property
    def players(self) -> int:
        return self.variant.players

    def legal_actions(self) -> tuple[Action, ...]:
        phase = self.phase
        if self.is_chance_node:
            return tuple(outcome for outcome, _ in self.chance_outcomes())
        if phase is Phase.BOSTON:
            moves = tuple(BostonMove(self.card(c).slug) for c in abilities.boston_cards(self))
            return (*moves, PASS)
        if phase is Phase.TARGET:
            return tuple(Target(self.card(c).slug) for c in self.targets())
        if phase is Phase.SEATTLE:
            return (*(SeattleSet(face) for face in FACES), PASS)
        if phase is Phase.TORONTO:
            dice = self.dice
            return (*(TorontoReroll(face) for face in FACES if dice[face]), PASS)
        if phase is Phase.DENVER:
            return (RESTART, PASS)
        if phase is Phase.DECIDE:
            return self._decide_actions()
        if phase is Phase.MEMPHIS:
            return tuple(MemphisPlace(i + 1) for i, stack in enumerate(self.stacks) if stack)
        return ()

    def chance_outcomes(self) -> tuple[tuple[Roll | Draw, Fraction], ...]:
        """Every distinct outcome of the pending chance event, with its exact probability."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return _roll_outcomes(self.to_roll)
        if self.phase is Phase.MEMPHIS_DRAW:
            share = Fraction(1, len(self.box))
            return tuple((Draw(self.card(c).slug), share) for c in self.box)
        return ()

    def sample_chance(self, rng: random.Random) -> Roll | Draw:
        """Roll the dice (one by one) or draw from the box with the given generator."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return Roll(roll_dice(rng, self.to_roll, DIE, len(FACES)))
        if self.phase is Phase.MEMPHIS_DRAW:
            return Draw(self.card(self.box[rng.randrange(len(self.box))]).slug)
        raise IllegalActionError(f"nothing random happens in phase {self.phase.value}")

    def parse_action(self, text: str) -> Action:
        """Read notation in context: face letters or ``draw:CARD`` at a chance node, a
        decision otherwise (see :data:`marsdice.attacks.actions.HELP`)."""
        if self.phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            return Roll.parse(text)
        if self.phase is Phase.MEMPHIS_DRAW:
            name = text.strip()
            name = name[5:] if name.lower().startswith("draw:") else name
            return Draw(resolve_card(name, self.variant.cards, [self.card(c) for c in self.box]))
        return self.normalize(parse_decision(text, self.variant.cards, self._preferred_cards()))

    def normalize(self, action: Action) -> Action:
        """The one value of a move written two ways: rerolling as many heads as are showing
        is ``Reroll(None)`` (every head). Used by :meth:`parse_action` and :meth:`apply`."""
        if isinstance(action, Reroll) and action.count is not None and action.count == self.heads:
            return Reroll(None, action.switch)
        return action

    def apply(self, action: AnyAction) -> State:
        """The state after ``action``; raises :class:`IllegalActionError` and changes nothing if
        the action is not legal here (or not a Mars Attacks action)."""
        phase = self.phase
        if not isinstance(action, ACTION_TYPES):
            raise self._illegal(action, "it is not a Mars Attacks action")
        if phase is Phase.OVER:
            raise self._illegal(action, "the game is over")
        action = self.normalize(action)
        state = replace(self, events=())
        if isinstance(action, Roll) and phase in (Phase.ROLL, Phase.TORONTO_ROLL):
            if (
                len(action.counts) != len(FACES)
                or any(c < 0 for c in action.counts)
                or action.dice != self.to_roll
            ):
                raise self._illegal(action, f"the roll must show exactly {self.to_roll} dice")
            return state._after_roll(action.counts)
        if isinstance(action, Draw) and phase is Phase.MEMPHIS_DRAW:
            index = self._index(action.card)
            if index is None or index not in self.box:
                raise self._illegal(action, "that card is not in the box")
            return abilities.memphis_draw(state, index)
        if action not in self.legal_actions():
            raise self._illegal(action, self._why_not(action))
        match action:
            case BostonMove():
                return abilities.boston_move(state, self._card_index(action.card))
            case Target():
                return state._after_target(self._card_index(action.card))
            case SeattleSet():
                return abilities.seattle_set(state, action.face)
            case TorontoReroll():
                return abilities.toronto_reroll(state, action.face)
            case Restart():
                return abilities.denver_restart(state)
            case Reroll():
                return state._after_reroll(action)
            case Stop():
                return state._stop()
            case MemphisPlace():
                return abilities.memphis_place(state, action.stack)
            case Pass():
                return state._after_pass()
        raise self._illegal(action, f"it is not a move of the {phase.value} phase")

    def returns(self) -> tuple[float, ...]:
        """At the end: 1 shared among the winners, 0 to the rest; before the end: all zero."""
        if not self.is_terminal:
            return tuple(0.0 for _ in self.owned)
        share = 1.0 / len(self.winners)
        return tuple(share if seat in self.winners else 0.0 for seat in range(len(self.owned)))

    # -- views of the position --

    def card(self, index: int) -> Card:
        return self.variant.cards[index]

    def slug(self, index: int) -> str:
        return self.variant.cards[index].slug

    @property
    def face_up(self) -> tuple[int | None, ...]:
        """The face-up card of each stack (``None`` for an empty stack)."""
        return tuple(stack[0] if stack else None for stack in self.stacks)

    @property
    def nuke_limit(self) -> int:
        """Nuke symbols on the face-up cards plus the difficulty card's."""
        face_up = (self.card(c).nukes for c in self.face_up if c is not None)
        return sum(face_up) + self.variant.difficulty.nukes

    @property
    def dice(self) -> Counts:
        """This turn's dice: heads showing, ray guns and nukes locked."""
        return (self.heads, self.rays, self.nukes)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(sum(self.card(c).vp for c in cards) for cards in self.owned)

    @property
    def turns(self) -> tuple[int, ...]:
        """Turns each seat has finished (extra turns and passes included)."""
        counts = [0] * self.variant.players
        for result in self.log:
            counts[result.seat] += 1
        return tuple(counts)

    @property
    def empty_stacks(self) -> int:
        return sum(1 for stack in self.stacks if not stack)

    def targets(self) -> tuple[int, ...]:
        """Face-up cards that may be declared a target (all but Las Vegas)."""
        return tuple(c for c in self.face_up if c is not None and self.card(c).targetable)

    def switch_targets(self) -> tuple[int, ...]:
        """Face-up cities other than the target: where a reroll may switch to."""
        return tuple(c for c in self.targets() if c != self.target and self.card(c).is_city)

    def token(self, seat: int, card: int) -> int:
        """The value of ``seat``'s token on ``card`` (0 if none)."""
        for where, value in self.tokens[seat]:
            if where == card:
                return value
        return 0

    def free_tokens(self, seat: int) -> int:
        return TOKENS - len(self.tokens[seat])

    def owns(self, seat: int, ability: Ability) -> bool:
        return any(self.card(c).ability is ability for c in self.owned[seat])

    def face_up_with(self, ability: Ability) -> int | None:
        """The face-up card with this ability, if any."""
        for c in self.face_up:
            if c is not None and self.card(c).ability is ability:
                return c
        return None

    def count(self, card: int, seat: int | None = None) -> int:
        """The count for ``card`` now: the token's value plus this turn's dice of its symbol."""
        seat = self.seat if seat is None else seat
        symbol = self.card(card).symbol
        dice = {Symbol.RAY: self.rays, Symbol.NUKE: self.nukes, Symbol.HEAD: self.heads}
        return self.token(seat, card) + dice.get(symbol, 0)

    def ranking_key(self, seat: int) -> tuple[int, int, int]:
        """Higher is better: VP, then cards, then who reached their score first."""
        return (self.scores[seat], len(self.owned[seat]), -self.reached[seat])

    def placings(self) -> tuple[int, ...]:
        """Final place of each seat by the ranking (ties share a place)."""
        keys = [self.ranking_key(seat) for seat in range(len(self.owned))]
        return tuple(1 + sum(1 for other in keys if other > key) for key in keys)

    @property
    def turns_left_in_round(self) -> int | None:
        """Once the end is triggered: regular turns still to come after this one."""
        if not self.end_triggered:
            return None
        return self.variant.players - 1 - self.seat

    # -- transitions (the abilities' own are in abilities.py) --

    def emit(self, *events: Event) -> State:
        """The state with ``events`` added to this step's and this turn's."""
        return replace(
            self, events=(*self.events, *events), turn_events=(*self.turn_events, *events)
        )

    def fresh_turn(self) -> State:
        """The state with the turn-in-progress fields cleared."""
        return replace(
            self,
            target=None,
            heads=0,
            rays=0,
            nukes=0,
            rolls=0,
            to_roll=0,
            set_face=None,
            fallback=None,
            toronto_used=False,
            denver_used=False,
            new_york_due=False,
            memphis_due=False,
            memphis_stack=None,
            pending=None,
        )

    def begin_turn(self, seat: int, extra: int, bonus: bool) -> State:
        """Seat ``seat`` starts a turn (``bonus``: an extra turn, which starts no round)."""
        state = replace(
            self.fresh_turn(),
            seat=seat,
            extra=extra,
            bonus=bonus,
            turn=self.turn + 1,
            rounds=self.rounds + (seat == 0 and not bonus),
            phase=Phase.TARGET,
            turn_events=(),
        )
        state = state.emit(TurnBegan(seat, state.turn, bonus))
        if not state.targets():
            state = state.emit(TurnPassed(seat)).trigger_end()
            return state.end_turn(TurnResult(seat, state.turn, Outcome.PASSED))
        return replace(state, new_york_due=True).start_from(boston=True, seattle=True)

    def start_from(self, boston: bool, seattle: bool) -> State:
        """The start of the turn, in the seed's order: the owner's green cards (Boston, then
        Seattle under the ``start`` rule), then New York (if still due), then the target."""
        seat = self.seat
        if boston and self.owns(seat, Ability.BOSTON) and abilities.boston_cards(self):
            return replace(self, phase=Phase.BOSTON)
        start = self.variant.seattle is SeattleRule.START
        if seattle and start and self.owns(seat, Ability.SEATTLE):
            return replace(self, phase=Phase.SEATTLE)
        state = abilities.new_york(self) if self.new_york_due else self
        return replace(state, phase=Phase.TARGET, new_york_due=False)

    def _after_target(self, card: int) -> State:
        state = replace(self, target=card, to_roll=DICE - (self.set_face is not None))
        state = state.emit(TargetDeclared(self.seat, self.slug(card), self.token(self.seat, card)))
        after = self.variant.seattle is SeattleRule.AFTER_TARGET
        if after and self.owns(self.seat, Ability.SEATTLE):
            return replace(state, phase=Phase.SEATTLE)
        return replace(state, phase=Phase.ROLL)

    def _after_roll(self, counts: Counts) -> State:
        added = list(counts)
        seattle = ""
        if self.phase is Phase.ROLL and self.set_face is not None:
            added[self.set_face] += 1
            seattle = self.set_face.letter
        state = replace(
            self,
            heads=self.heads + added[0],
            rays=self.rays + added[1],
            nukes=self.nukes + added[2],
            rolls=self.rolls + (self.phase is Phase.ROLL),
            set_face=None,
            to_roll=0,
        )
        toronto_roll = self.phase is Phase.TORONTO_ROLL
        state = state.emit(
            Rolled(
                self.seat,
                Roll(counts).text(),
                seattle,
                toronto_roll,
                state.heads,
                state.rays,
                state.nukes,
            )
        )
        toronto = self.owns(self.seat, Ability.TORONTO) and not self.toronto_used
        if not toronto_roll and toronto:
            return replace(state, phase=Phase.TORONTO)
        return state.judge()

    def _after_pass(self) -> State:
        state = self.emit(AbilityDeclined(self.seat, self.phase.value))
        return state._passed()

    def _passed(self) -> State:
        if self.phase is Phase.BOSTON:
            return self.start_from(boston=False, seattle=True)
        if self.phase is Phase.SEATTLE:
            if self.target is None:  # the start-of-turn rule: on to New York and the target
                return self.start_from(boston=False, seattle=False)
            return replace(self, phase=Phase.ROLL)
        if self.phase is Phase.TORONTO:
            return self.judge()
        assert self.phase is Phase.DENVER
        return self.bombed()

    def judge(self) -> State:
        """After a roll (and Toronto): bombed, captured, a decision, or the attack ends."""
        assert self.target is not None
        card = self.card(self.target)
        if card.symbol is not Symbol.NUKE and self.nukes >= self.nuke_limit:
            if self.rolls == 1 and not self.denver_used and self.owns(self.seat, Ability.DENVER):
                return replace(self, phase=Phase.DENVER)
            return self.bombed()
        count = self.count(self.target)
        if count >= card.requirement:
            result = self._result(Outcome.CAPTURED, captured=(self.target,))
            return self.capture(self.target, count).conclude(result)
        if card.is_city and self.heads > 0:
            return replace(self, phase=Phase.DECIDE)
        return self._stop()

    def _after_reroll(self, action: Reroll) -> State:
        assert self.target is not None
        count = self.heads if action.count is None else action.count
        target = self.target if action.switch is None else self._card_index(action.switch)
        state = replace(
            self,
            fallback=(self.target, self.count(self.target)),
            target=target,
            heads=self.heads - count,
            to_roll=count,
            phase=Phase.ROLL,
        )
        return state.emit(Rerolling(self.seat, count, action.switch or ""))

    def _stop(self) -> State:
        """The attack ends without a capture (the player stopped or no head is left)."""
        assert self.target is not None
        if self.card(self.target).ability is Ability.DETROIT:
            return self.bombed(detroit=True)
        count = self.count(self.target)
        state = self.emit(Stopped(self.seat, self.slug(self.target), count))
        state, token = state._place(self.target, count, kept=False)
        return state.end_turn(self._result(Outcome.STOPPED, token=token))

    def bombed(self, detroit: bool = False) -> State:
        """Bombed (or a failed Detroit): keep what the rule keeps, then Las Vegas."""
        assert self.target is not None
        event = Bombed(
            self.seat,
            self.slug(self.target),
            self.nukes,
            self.nuke_limit,
            detroit,
            self.count(self.target),
        )
        state = self.emit(event)
        token = None
        if self.variant.bombed is BombedRule.LAST_ROLL and self.fallback is not None:
            state, token = state._place(*self.fallback, kept=True)
        state, captured = abilities.las_vegas(state)
        outcome = Outcome.DETROIT if detroit else Outcome.BOMBED
        return state.conclude(self._result(outcome, captured=captured, token=token))

    def _place(self, card: int, value: int, kept: bool) -> tuple[State, tuple[int, int] | None]:
        """Put (or move) the player's token on ``card`` at ``value`` if it may go there."""
        seat = self.seat
        if value < 1 or self.card(card).ability is Ability.DETROIT:
            return self, None
        if value <= self.token(seat, card):
            return self, None
        if not self.token(seat, card) and not self.free_tokens(seat):
            return self.emit(TokenLost(seat, self.slug(card), value)), None
        state = self.set_token(seat, card, value)
        return state.emit(TokenPlaced(seat, self.slug(card), value, kept)), (card, value)

    def capture(self, card: int, count: int) -> State:
        """The player takes ``card``: tokens go home, the stack turns up its next card, the
        card's on-capture ability fires and the end may be triggered."""
        seat = self.seat
        where = self.face_up.index(card)
        owned = replace_at(self.owned, seat, (*self.owned[seat], card))
        reached = replace_at(self.reached, seat, self.turn) if self.card(card).vp else self.reached
        state = replace(self, owned=owned, reached=reached)
        c = self.card(card)
        state = state.emit(Captured(seat, c.slug, count, c.requirement, c.vp, state.scores[seat]))
        state = state.send_home((card,))
        state = replace(state, stacks=replace_at(self.stacks, where, self.stacks[where][1:]))
        state = state.turned_up(where)
        state = abilities.on_capture(state, card, where)
        if state.empty_stacks >= self.variant.end_stacks:
            state = state.trigger_end()
        return state

    def send_home(self, cards: tuple[int, ...]) -> State:
        """Every token on ``cards`` goes back to its owner."""
        state = self
        for card in cards:
            seats = tuple(s for s in range(self.variant.players) if self.token(s, card))
            if seats:
                tokens = tuple(tuple(t for t in mine if t[0] != card) for mine in state.tokens)
                state = replace(state, tokens=tokens).emit(TokensHome(self.slug(card), seats))
        return state

    def turned_up(self, where: int) -> State:
        """The event for stack ``where`` showing its (new) top card."""
        stack = self.stacks[where]
        return self.emit(CardTurnedUp(where + 1, self.slug(stack[0]) if stack else ""))

    def trigger_end(self) -> State:
        if self.end_triggered:
            return self
        return replace(self, end_triggered=True).emit(EndTriggered(self.empty_stacks))

    def conclude(self, result: TurnResult) -> State:
        """End the turn, unless Memphis's card is still to be placed."""
        if self.memphis_due:
            return replace(self, phase=Phase.MEMPHIS, pending=result, memphis_due=False)
        return self.end_turn(result)

    def end_turn(self, result: TurnResult) -> State:
        state = self.emit(TurnEnded(self.seat, result.outcome.value))
        result = replace(result, events=state.turn_events)
        state = replace(state, log=(*self.log, result), pending=None)
        if self.extra > 0:
            return state.begin_turn(self.seat, self.extra - 1, bonus=True)
        if self.end_triggered and self.seat == self.variant.players - 1:
            return state._finish()
        return state.begin_turn((self.seat + 1) % self.variant.players, 0, bonus=False)

    def _finish(self) -> State:
        seats = range(self.variant.players)
        best = max(self.ranking_key(seat) for seat in seats)
        winners = tuple(seat for seat in seats if self.ranking_key(seat) == best)
        over = replace(self.fresh_turn(), phase=Phase.OVER, winners=winners)
        return over.emit(GameOver(winners, self.scores))

    def _result(
        self,
        outcome: Outcome,
        captured: tuple[int, ...] = (),
        token: tuple[int, int] | None = None,
    ) -> TurnResult:
        assert self.target is not None
        return TurnResult(
            seat=self.seat,
            turn=self.turn,
            outcome=outcome,
            target=self.target,
            count=self.count(self.target),
            dice=self.dice,
            limit=self.nuke_limit,
            captured=captured,
            token=token,
        )

    def set_token(self, seat: int, card: int, value: int) -> State:
        mine = [t for t in self.tokens[seat] if t[0] != card]
        if value > 0:
            mine.append((card, value))
        return replace(self, tokens=replace_at(self.tokens, seat, tuple(sorted(mine))))

    def _decide_actions(self) -> tuple[Action, ...]:
        counts: list[int | None] = [None]
        if self.variant.reroll is RerollRule.SUBSET:
            counts += list(range(1, self.heads))
        switches: list[str | None] = [None]
        switches += [self.slug(c) for c in self.switch_targets()]
        rerolls = [Reroll(count, switch) for switch in switches for count in counts]
        return (rerolls[0], STOP, *rerolls[1:])

    # -- names and errors --

    def _index(self, slug: str) -> int | None:
        return _slug_index(self.variant.cards).get(slug)

    def _card_index(self, slug: str) -> int:
        index = self._index(slug)
        assert index is not None
        return index

    def _preferred_cards(self) -> list[Card]:
        """Cards a short name most likely means here: the face-up ones."""
        return [self.card(c) for c in self.face_up if c is not None]

    def _why_not(self, action: Action) -> str:
        phase = self.phase
        match action:
            case Target() if phase is Phase.TARGET:
                index = self._index(action.card)
                if index is not None and self.card(index).ability is Ability.LAS_VEGAS:
                    return "Las Vegas can never be a target"
                return "only a face-up card can be the target"
            case Reroll() if phase is Phase.DECIDE:
                if action.count is not None and self.variant.reroll is RerollRule.ALL:
                    return "every head showing is rerolled (the 'all heads' rule)"
                if action.count is not None and not 0 < action.count <= self.heads:
                    return f"there are {self.heads} heads to reroll"
                return "a reroll may only switch to another face-up city (not a monument)"
            case BostonMove() if phase is Phase.BOSTON:
                return (
                    "Boston moves one of your tokens, not onto the capture space, "
                    "and never on Las Vegas (it counts bombs)"
                )
            case TorontoReroll() if phase is Phase.TORONTO:
                return f"no die shows a {action.face.word}"
        return f"it is not a move of the {phase.value} phase"

    def _illegal(self, action: AnyAction, reason: str) -> IllegalActionError:
        if self.is_chance_node:
            legal = "a draw from the box" if self.phase is Phase.MEMPHIS_DRAW else "a roll"
            legal += f" of {self.to_roll} dice" if self.phase is not Phase.MEMPHIS_DRAW else ""
        elif self.is_terminal:
            legal = "nothing: the game is over"
        else:
            legal = ", ".join(a.text() for a in self.legal_actions())
        return IllegalActionError(f"illegal action {action.text()!r}: {reason}; legal: {legal}")


def as_state(state: object) -> State:
    """``state`` as a Mars Attacks state; a state of another game is a ``TypeError``."""
    if not isinstance(state, State):
        raise TypeError(f"not a Mars Attacks state: {type(state).__name__}")
    return state


@cache
def _roll_outcomes(n: int) -> tuple[tuple[Roll | Draw, Fraction], ...]:
    return tuple((Roll(counts), p) for counts, p in dice_outcomes(n, FACE_PROBABILITIES))


@cache
def _slug_index(cards: tuple[Card, ...]) -> dict[str, int]:
    return {card.slug: i for i, card in enumerate(cards)}


def replace_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """``values`` with the item at ``index`` replaced."""
    return (*values[:index], value, *values[index + 1 :])
