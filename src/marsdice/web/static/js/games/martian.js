// The Martian Dice plugin (the contract: docs/browser.md): options for a new table, the board
// (the roll, tanks against death rays, the Earthlings taken, the roll-off), event lines, action
// labels, hint rows and tie-break lines. view.board is MartianDice.observe's layout
// (src/marsdice/martian/game.py); whose turn, places and tie-breaks are the view's own keys.

import { h as el } from "../dom.js";
import { choices, initial, settings, typed } from "../variant.js";

const FACES = ["tanks", "rays", "humans", "cows", "chickens"];
const KEYS = { rays: "r", humans: "h", cows: "c", chickens: "k", stop: "s", roll: "g" }; // the terminal's letters too (docs/browser.md)

const ICONS = {
  tanks:
    '<rect x="2" y="15" width="20" height="6" rx="3"/><rect x="5" y="10" width="11" height="6" rx="1.5"/><rect x="14" y="11.5" width="8.5" height="2.2" rx="1"/><circle cx="6" cy="18" r="1.3" class="hole"/><circle cx="12" cy="18" r="1.3" class="hole"/><circle cx="18" cy="18" r="1.3" class="hole"/>',
  rays: '<polygon points="14,1.5 4.5,13.5 11,13.5 8.5,22.5 19.5,9.5 13,9.5 15.5,1.5"/>',
  humans:
    '<circle cx="12" cy="4.5" r="3"/><path d="M12 8.5v7M6.5 11h11M12 15.5l-4.5 6.5M12 15.5l4.5 6.5" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/>',
  cows:
    '<ellipse cx="10.5" cy="13" rx="8" ry="5"/><circle cx="19" cy="9.5" r="3.4"/><path d="M17 6.5l-1-3M21 6.5l1-3M5 17v5M9 17.5v4.5M13 17.5v4.5M17 16.5v5" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><circle cx="8" cy="12" r="1.8" class="hole"/><circle cx="13" cy="14.5" r="1.4" class="hole"/>',
  chickens:
    '<circle cx="10.5" cy="14" r="6.5"/><circle cx="16.5" cy="7" r="3.3"/><polygon points="19.3,6 23,7.4 19.3,8.8"/><path d="M15 3.5q1.2-2.5 2.4 0q1.2-2.5 2.4 0" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M9 20v3M12.5 20v3" fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round"/><circle cx="17.3" cy="6.5" r="0.8" class="hole"/>',
};


function faceName(t, face, count) {
  return t(`martian:face.${face}`, { count });
}

function countText(t, face, count) {
  return t("martian:count", { count, face: faceName(t, face, count) });
}

/** One die: a symbol, a letter and an aria label, so colour is never the only signal. */
function die(t, face, extra = "") {
  const box = el("span", {
    class: `md-die md-die-${face} ${extra}`.trim(),
    role: "img",
    "aria-label": t(`martian:die.${face}`),
    title: t(`martian:die.${face}`),
  });
  box.innerHTML = `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${ICONS[face]}</svg>`;
  box.append(el("span", { class: "md-die-letter", "aria-hidden": "true", text: t(`martian:letter.${face}`) }));
  return box;
}

function diceRow(t, counts, extraFor = () => "") {
  const row = el("div", { class: "md-dice" });
  counts.forEach((count, index) => {
    for (let i = 0; i < count; i++) row.append(die(t, FACES[index], extraFor(index, i)));
  });
  return row;
}

function rollSummary(t, counts) {
  const parts = [];
  counts.forEach((count, index) => {
    if (count) parts.push(countText(t, FACES[index], count));
  });
  return parts.join(", ") || t("martian:nothing");
}

function name(ctx, seat) {
  return ctx.names?.[seat] ?? ctx.t("seat.number", { n: seat + 1 });
}

function names(ctx, seats) {
  return new Intl.ListFormat(ctx.lang || "en", { type: "conjunction" }).format(
    seats.map((seat) => name(ctx, seat)),
  );
}

function numberField(t, id, key, value, min, max) {
  const input = el("input", {
    id,
    type: "number",
    inputmode: "numeric",
    min,
    max,
    value,
    required: true,
    "aria-describedby": `${id}-error`,
  });
  const label = el("label", { for: id, text: t(key) });
  const error = el("span", { class: "field-error", id: `${id}-error`, "data-error-for": id.replace(/^opt-/, "") });
  return { input, row: el("div", { class: "field", "data-field": id.replace(/^opt-/, "") }, label, input, error) };
}

function choiceField(t, name, values, value) {
  const id = `opt-${name}`;
  const select = el(
    "select",
    { id },
    values.map((choice) => el("option", { value: String(choice), text: t(`martian:option.${name}.${choice}`) })),
  );
  select.value = String(value);
  const row = el(
    "div",
    { class: "field", "data-field": name },
    el("label", { for: id, text: t(`martian:option.${name}`) }),
    select,
    el("span", { class: "field-error", "data-error-for": name }),
  );
  return { input: select, row };
}

function lastRollOf(view) {
  for (const event of view.events || []) if (event.type === "rolled") return event;
  return null;
}

/** The roll-off rounds as lines (the board's roll-off history: what was rolled, not a rule). */
function rolloffLines(view, ctx) {
  const { t } = ctx;
  return view.board.rolloff.history.map((round, i) =>
    t("martian:rolloff_line", {
      round: i + 1,
      results: round.seats.map((seat, j) => t("martian:rolloff_result", { name: name(ctx, seat), count: round.rays[j] })).join(", "),
    }),
  );
}

/** The end of the game on the board: every total against the target, winners starred. */
function finalBox(view, ctx) {
  const { t } = ctx;
  const box = el("section", { class: "m-zone m-final", "aria-labelledby": "m-final-title" });
  box.append(el("h3", { id: "m-final-title", text: t("martian:zone.final") }));
  const list = el("ul", { class: "m-totals" });
  const top = Math.max(view.board.target, ...view.scores, 1);
  view.scores.forEach((score, seat) => {
    const won = view.winners.includes(seat);
    const bar = el("span", { class: "m-bar" });
    const fill = el("span", { class: "m-bar-fill" });
    fill.style.setProperty("width", `${Math.round((100 * score) / top)}%`);
    bar.append(fill);
    list.append(
      el(
        "li",
        { class: won ? "won" : null },
        el("span", { class: "m-total-name", text: `${won ? "★ " : ""}${name(ctx, seat)}` }),
        bar,
        el("span", { class: "m-total-score", text: String(score) }),
      ),
    );
  });
  box.append(list);
  return box;
}

function rolloffBox(view, ctx) {
  const { t } = ctx;
  const rolloff = view.board.rolloff;
  const box = el("section", { class: "m-zone m-rolloff", "aria-labelledby": "m-rolloff-title" });
  box.append(el("h3", { id: "m-rolloff-title", text: t("martian:zone.rolloff") }));
  const lines = rolloffLines(view, ctx);
  if (view.phase === "rolloff") {
    rolloff.seats.forEach((seat, i) => {
      const who = name(ctx, seat);
      if (i < rolloff.rays.length) lines.push(t("martian:rolloff_now", { name: who, count: rolloff.rays[i] }));
      else if (seat === rolloff.roller) lines.push(t("martian:rolloff_rolling", { name: who }));
      else lines.push(t("martian:rolloff_waiting", { name: who }));
    });
    // the last roll-off roll: only its death rays count, the other faces are dimmed
    const last = (view.events || []).find((event) => event.type === "rolloff_roll");
    if (last) {
      box.append(
        el("p", { class: "m-caption", text: t("martian:rolloff_now", { name: name(ctx, last.seat), count: last.rays }) }),
        diceRow(t, last.counts, (face) => [face === 1 ? "" : "aside", ctx.freshVersion ? "rolling" : ""].join(" ")),
      );
    }
  }
  const list = el("ul", { class: "m-rolloff-lines" });
  for (const line of lines) list.append(el("li", { text: line }));
  box.append(list);
  return box;
}

// --- the plugin (docs/browser.md) ------------------------------------------------------------

/** The lobby's settings, as the server's schema gives them: a number field for a whole number,
 * a choice for a list of values. */
export function renderOptions(box, ctx) {
  const { t, game } = ctx;
  box.replaceChildren();
  const readers = [];
  for (const [field, property] of settings(game)) {
    const value = initial(game, field, property);
    if (property.type === "integer") {
      const { minimum: min, maximum: max } = property;
      const number = numberField(t, `opt-${field}`, `martian:option.${field}`, value, min, max);
      box.append(number.row);
      readers.push([field, () => {
        const read = Number(number.input.value);
        if (!Number.isInteger(read) || read < min || read > max) {
          throw { field, message: t("martian:option.range", { min, max }) };
        }
        return read;
      }]);
    } else {
      const values = choices(game, field, property);
      if (!values) continue; // nothing this form can offer: the server's default stands
      const choice = choiceField(t, field, values, value);
      box.append(choice.row);
      readers.push([field, () => typed(property, choice.input.value)]);
    }
  }
  // every bad field at once ({field, message} of the first, `errors` all of them: the lobby
  // shows each next to its field)
  return () => {
    const read = {};
    const errors = [];
    for (const [field, reader] of readers) {
      try {
        read[field] = reader();
      } catch (error) {
        if (!error || !error.field) throw error;
        errors.push(error);
      }
    }
    if (errors.length) throw { ...errors[0], errors };
    return read;
  };
}

/** The notice when the end is triggered: who reached the target and who still plays. */
export function lastRoundNotice(view, ctx) {
  // the seats still to play and those at the target come from the view: no rule here
  if (!view.last_round) return null;
  const remaining = view.last_round;
  const leaders = view.board.reached_target || [];
  return ctx.t("martian:last_round_notice", {
    target: view.board.target,
    leaders: leaders.length ? names(ctx, leaders) : "—",
    names: remaining.length ? names(ctx, remaining) : "—",
  });
}

/** The line under the score table: the target the game is played to. */
export function scoreNote(view, ctx) {
  const target = view.board?.target;
  if (!target) return null;
  return ctx.t(view.players === 1 ? "scores.target_solo" : "scores.target", { target });
}

/** How one group level on points got its places (view.tie_breaks): the roll-off's rounds
 * when a roll-off was played among them; a place shared without one needs no line. */
export function tieBreakLines(tie, view, ctx) {
  const history = view.board.rolloff.history;
  const rolledOff = history.length > 0 && [...history[0].seats].sort().join() === [...tie.seats].sort().join();
  return tie.by === "rolloff" || rolledOff ? rolloffLines(view, ctx) : [];
}

export function renderBoard(root, view, ctx) {
  const { t } = ctx;
  const board = view.board;
  const wrap = el("div", { class: "m-board" });
  const seat = view.turn_seat;

  // status strip: target, dice left, what stopping scores now
  const stats = el(
    "dl",
    { class: "m-stats" },
    el("div", {}, el("dt", { text: t("martian:stat.target") }), el("dd", { text: String(board.target) })),
    el("div", {}, el("dt", { text: t("martian:stat.dice_left") }), el("dd", { text: String(board.dice_left) })),
    el(
      "div",
      {},
      el("dt", { text: t("martian:stat.turn_score") }),
      el("dd", { class: "m-turn-score", text: String(board.turn_score) }),
    ),
  );
  if (view.phase === "over" || view.phase === "rolloff") {
    [...stats.children].slice(1).forEach((item) => item.remove());
  }
  wrap.append(stats);

  if (view.phase === "rolloff" || (view.phase === "over" && board.rolloff.history.length)) {
    wrap.append(rolloffBox(view, ctx));
  }
  if (view.phase === "over" || view.phase === "rolloff") {
    // a turn's zones mean nothing once the turns are over
    if (view.phase === "over") wrap.append(finalBox(view, ctx));
    root.replaceChildren(wrap);
    return;
  }

  // the roll
  const rolled = board.rolled;
  const roll = lastRollOf(view);
  const rollZone = el("section", { class: "m-zone m-roll", "aria-labelledby": "m-roll-title" });
  rollZone.append(el("h3", { id: "m-roll-title", text: t("martian:zone.roll") }));
  if (rolled && view.phase !== "rolloff") {
    const fresh = roll && ctx.freshVersion;
    const row = diceRow(t, rolled, (face) =>
      [face === 0 ? "aside" : "", fresh ? "rolling" : ""].join(" "),
    );
    [...row.children].forEach((child, i) => child.style.setProperty("--i", String(i)));
    rollZone.append(row, el("p", { class: "m-caption", text: rollSummary(t, rolled) }));
    if (rolled[0]) rollZone.append(el("p", { class: "m-note", text: t("martian:tanks_auto", { count: rolled[0] }) }));
  } else if (view.phase === "decide") {
    rollZone.append(el("p", { class: "m-caption", text: t("martian:decide_hint", { count: board.dice_left }) }));
  } else if (view.phase === "roll") {
    rollZone.append(el("p", { class: "m-caption", text: t("martian:rolling", { name: name(ctx, seat) }) }));
  } else {
    rollZone.append(el("p", { class: "m-caption", text: "—" }));
  }
  wrap.append(rollZone);

  // tanks against death rays
  const aside = board.set_aside;
  const tanksWin = aside[0] > aside[1];
  const battle = el(
    "section",
    { class: `m-zone m-battle ${tanksWin ? "losing" : "holding"}`, "aria-labelledby": "m-battle-title" },
    el("h3", { id: "m-battle-title", text: t("martian:zone.battle") }),
    el(
      "div",
      { class: "m-versus" },
      el(
        "div",
        { class: "m-side" },
        el("span", { class: "m-count", text: String(aside[0]) }),
        el("span", { class: "m-label", text: faceName(t, "tanks", aside[0]) }),
        diceRow(t, [aside[0], 0, 0, 0, 0]),
      ),
      el("span", { class: "m-vs", "aria-hidden": "true", text: tanksWin ? ">" : "≤" }),
      el(
        "div",
        { class: "m-side" },
        el("span", { class: "m-count", text: String(aside[1]) }),
        el("span", { class: "m-label", text: faceName(t, "rays", aside[1]) }),
        diceRow(t, [0, aside[1], 0, 0, 0]),
      ),
    ),
    el("p", {
      class: "m-verdict",
      text: tanksWin ? `✗ ${t("martian:verdict.tanks")}` : `✓ ${t("martian:verdict.rays")}`,
    }),
  );
  wrap.append(battle);

  // Earthlings taken
  const earth = el("section", { class: "m-zone m-earth", "aria-labelledby": "m-earth-title" });
  earth.append(el("h3", { id: "m-earth-title", text: t("martian:zone.earthlings") }));
  const kinds = el("ul", { class: "m-kinds" });
  for (const index of [2, 3, 4]) {
    const face = FACES[index];
    const count = aside[index];
    kinds.append(
      el(
        "li",
        { class: count ? "taken" : "free" },
        die(t, face, count ? "" : "ghost"),
        el("span", { class: "m-kind-count", text: count ? `× ${count}` : t("martian:not_taken") }),
      ),
    );
  }
  earth.append(kinds);
  if (aside[2] && aside[3] && aside[4]) earth.append(el("p", { class: "m-bonus", text: `★ ${t("martian:bonus")}` }));
  wrap.append(earth);

  root.replaceChildren(wrap);
}

/** A record's dice letters (the review's positions: "TTTRRHC") as dice, labelled in words;
 * null for text that is not dice. */
export function diceCode(code, ctx) {
  const counts = [0, 0, 0, 0, 0];
  for (const letter of code) {
    const index = "TRHCK".indexOf(letter);
    if (index < 0) return null;
    counts[index] += 1;
  }
  const row = diceRow(ctx.t, counts);
  row.setAttribute("aria-hidden", "true");
  return el("span", { class: "md-code", role: "img", "aria-label": rollSummary(ctx.t, counts) }, row);
}

/** The dice a roll showed, as small dice for the log (the line says them in words). */
export function eventDice(event, ctx) {
  if ((event.type !== "rolled" && event.type !== "rolloff_roll") || !Array.isArray(event.counts)) return null;
  const row = diceRow(ctx.t, event.counts);
  row.classList.add("log-dice");
  row.setAttribute("aria-hidden", "true");
  return row;
}

export function describeEvent(event, ctx) {
  const { t } = ctx;
  const who = name(ctx, event.seat);
  switch (event.type) {
    case "rolled": {
      const dice = event.counts.reduce((a, b) => a + b, 0);
      return t(event.first ? "martian:ev.rolled_first" : "martian:ev.rolled", {
        name: who,
        dice,
        count: dice,
        roll: rollSummary(t, event.counts),
      });
    }
    case "took":
      return t("martian:ev.took", { name: who, what: countText(t, FACES[event.face], event.count) });
    case "continued":
      return t("martian:ev.continued", { name: who, count: event.dice });
    case "turn_scored": {
      let key = "martian:ev.scored";
      if (event.tanks_beat_rays) key = "martian:ev.scored_tanks";
      else if (event.bonus) key = "martian:ev.scored_bonus";
      const reason = t(`martian:reason.${event.reason.replace(" ", "_")}`);
      return t(key, { name: who, count: event.score, total: event.total, reason });
    }
    case "last_round":
      return t("martian:ev.last_round", {
        name: who,
        score: event.score,
        target: event.target,
        others: event.remaining.length ? names(ctx, event.remaining) : "—",
      });
    case "rolloff_begun":
      return t("martian:ev.rolloff_begun", { round: event.round, names: names(ctx, event.seats), score: event.score });
    case "rolloff_roll":
      return t("martian:ev.rolloff_roll", { name: who, count: event.rays, roll: rollSummary(t, event.counts) });
    case "rolloff_round":
      return t(event.best.length > 1 ? "martian:ev.rolloff_tie" : "martian:ev.rolloff_won", {
        names: names(ctx, event.best),
      });
    case "game_over":
      return t("martian:ev.game_over", { names: names(ctx, event.winners), count: event.winners.length });
    default:
      return event.type;
  }
}

export function actionLabel(action, view, ctx) {
  const { t } = ctx;
  const board = view.board;
  const index = FACES.indexOf(action);
  if (index > 0) {
    const count = board.rolled ? board.rolled[index] : 0;
    return { label: t(`martian:act.${action}`, { count }), key: KEYS[action], face: action };
  }
  if (action === "stop") return { label: t("martian:act.stop", { count: board.turn_score }), key: KEYS.stop };
  if (action === "roll") return { label: t("martian:act.roll", { count: board.dice_left }), key: KEYS.roll };
  return { label: action, key: null };
}

export function describeChoice(choice, ctx) {
  const { t, i18n } = ctx;
  const label = t(`martian:choice.${choice.action}`, { fallback: choice.action });
  const values = choice.values;
  if (!values) return label;
  const parts = [];
  if (values.win_probability !== null && values.win_probability !== undefined) {
    // the many-player approximation rates a move against the most dangerous opponent: not a
    // chance to win, and not called one
    const key = ctx.method === "approximation" ? "martian:value.rating" : "martian:value.win";
    parts.push(t(key, { value: i18n.pct(values.win_probability, 1) }));
  }
  if (values.expected_score !== null && values.expected_score !== undefined) {
    parts.push(t("martian:value.score", { value: i18n.num(values.expected_score, 2) }));
  }
  if (values.expected_turns !== null && values.expected_turns !== undefined) {
    parts.push(t("martian:value.turns", { value: i18n.num(values.expected_turns, 2) }));
  }
  return `${label}: ${parts.join(" · ")}`;
}
