// Mars Attacks: The Dice Game — the browser plugin (the contract: docs/browser.md; the rules:
// docs/rules-attacks.md; view.board: src/marsdice/attacks/game.py board()). Everything shown
// comes from the server's view, and every text from i18n/{lang}/attacks.json.

import { h, stylesheet } from "../dom.js";
import { choices, initial, settings, typed } from "../variant.js";

// the game's own styles, loaded with its plugin (the lobby's form, the table, the replay)
export const ready = stylesheet(new URL("../../css/attacks.css", import.meta.url));

const NS = "attacks:";
const SVG = "http://www.w3.org/2000/svg";
const FACES = { H: "head", R: "ray", N: "nuke" };
const SEAT_COLOURS = 6;
// card names seen on a board, for texts that only carry a card's notation (events, advice)
const cardNames = new Map();
const SMALL_WORDS = new Set(["of", "the", "and", "de", "la", "le"]);
// the last roll animated in each board element, so a repeated state does not roll again
const animated = new WeakMap();

/** A translated text of this namespace. */
function tr(t, key, params) {
  const all = { ...(params || {}) };
  if (typeof all.n === "number" && all.count === undefined) all.count = all.n;
  return t(NS + key, all);
}

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, String(value));
  for (const child of children) el.append(child);
  return el;
}

/** A card's name from its notation: the name seen on a board, else the notation in words. */
function cardName(slug) {
  if (!slug) return "";
  if (cardNames.has(slug)) return cardNames.get(slug);
  return slug
    .split("-")
    .map((word, i) => (i > 0 && SMALL_WORDS.has(word) ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(" ");
}

function remember(card) {
  if (card && card.slug) cardNames.set(card.slug, card.name);
}

function seatName(ctx, seat) {
  const names = (ctx && ctx.names) || [];
  return names[seat] || tr(ctx.t, "seat", { n: seat + 1 });
}

function faceWord(t, letter, count) {
  return tr(t, `face.${FACES[letter] || "head"}`, { count });
}

// --- dice --------------------------------------------------------------------------------------

/** An inline picture of a face (no external file, no emoji font needed). */
function faceIcon(letter) {
  const box = svg("svg", { viewBox: "0 0 24 24", "aria-hidden": "true", focusable: "false" });
  if (letter === "H") {
    box.append(
      svg("line", { x1: 8, y1: 5, x2: 6, y2: 1.5, class: "ink-line" }),
      svg("line", { x1: 16, y1: 5, x2: 18, y2: 1.5, class: "ink-line" }),
      svg("circle", { cx: 6, cy: 1.8, r: 1.2, class: "ink" }),
      svg("circle", { cx: 18, cy: 1.8, r: 1.2, class: "ink" }),
      svg("ellipse", { cx: 12, cy: 12.5, rx: 7.5, ry: 9, class: "skin" }),
      svg("ellipse", { cx: 9, cy: 12, rx: 2.4, ry: 3.4, class: "ink", transform: "rotate(-25 9 12)" }),
      svg("ellipse", { cx: 15, cy: 12, rx: 2.4, ry: 3.4, class: "ink", transform: "rotate(25 15 12)" }),
    );
  } else if (letter === "R") {
    box.append(
      svg("path", { d: "M3 9h11l3-2h3v8h-3l-3-2H9l-1 7H4l1-7H3z", class: "metal" }),
      svg("circle", { cx: 7, cy: 11, r: 1.2, class: "ink" }),
      svg("line", { x1: 21, y1: 9, x2: 23.5, y2: 7, class: "ray-line" }),
      svg("line", { x1: 21, y1: 11, x2: 24, y2: 11, class: "ray-line" }),
      svg("line", { x1: 21, y1: 13, x2: 23.5, y2: 15, class: "ray-line" }),
    );
  } else {
    box.append(svg("circle", { cx: 12, cy: 12, r: 10.5, class: "hazard" }));
    for (let k = 0; k < 3; k += 1) {
      const a0 = ((-120 + k * 120 - 30) * Math.PI) / 180;
      const a1 = ((-120 + k * 120 + 30) * Math.PI) / 180;
      const [r1, r2] = [3.2, 9];
      const p = (r, a) => `${(12 + r * Math.cos(a)).toFixed(2)} ${(12 + r * Math.sin(a)).toFixed(2)}`;
      const d = `M${p(r1, a0)} L${p(r2, a0)} A${r2} ${r2} 0 0 1 ${p(r2, a1)} L${p(r1, a1)} A${r1} ${r1} 0 0 0 ${p(r1, a0)}Z`;
      box.append(svg("path", { d, class: "ink" }));
    }
    box.append(svg("circle", { cx: 12, cy: 12, r: 2, class: "ink" }));
  }
  return box;
}

function die(t, letter, fresh, delay) {
  const el = h(
    "span",
    { class: `die die-${FACES[letter]}${fresh ? " rolling" : ""}`, role: "img", "aria-label": faceWord(t, letter, 1) },
    faceIcon(letter),
    h("span", { class: "die-letter", "aria-hidden": "true", text: letter }),
  );
  if (fresh) el.style.animationDelay = `${delay * 40}ms`;
  return el;
}

function lastRoll(view) {
  const events = view.events || [];
  for (let i = events.length - 1; i >= 0; i -= 1) if (events[i].type === "rolled") return events[i];
  return null;
}

function diceArea(ctx, view, board, el) {
  const t = ctx.t;
  const rolled = lastRoll(view);
  // a roll that ended the turn (a capture, a bombing) leaves the board's dice empty: show that
  // roll as the turn left it, so every roll is seen
  const ended = board.dice.rolls === 0 && rolled !== null;
  const dice = ended ? { ...board.dice, heads: rolled.heads, rays: rolled.rays, nukes: rolled.nukes, rolls: 1 } : board.dice;
  const bombing = (view.events || []).find((e) => e.type === "bombed" && !e.detroit);
  const limit = ended && bombing ? bombing.limit : board.nuke_limit;
  const signature = rolled ? JSON.stringify([view.events, board.dice]) : null;
  // the table says whether this state is new (false under reduced motion); a replay does not
  const fresh =
    rolled !== null && (ctx.freshVersion === undefined ? animated.get(el) !== signature : Boolean(ctx.freshVersion));
  if (rolled) animated.set(el, signature);
  // the dice the last roll brought: the last ones of each row
  const newOf = { H: 0, R: 0, N: 0 };
  if (rolled) for (const letter of rolled.faces) newOf[letter] = (newOf[letter] || 0) + 1;
  let delay = 0;
  const row = (letter, count, label) => {
    const dieEls = [];
    for (let i = 0; i < count; i += 1) {
      const isNew = fresh && i >= count - newOf[letter];
      dieEls.push(die(t, letter, isNew, isNew ? delay++ : 0));
    }
    return h(
      "div",
      { class: `dice-row dice-row-${FACES[letter]}` },
      h("span", { class: "dice-row-label" }, label, h("b", { class: "dice-count", text: String(count) })),
      h("span", { class: "dice-set" }, dieEls.length ? dieEls : h("span", { class: "dice-none", text: "—" })),
    );
  };
  const meter = h("div", {
    class: "nuke-meter",
    role: "meter",
    "aria-valuemin": 0,
    "aria-valuemax": limit,
    "aria-valuenow": dice.nukes,
    "aria-label": tr(t, "nukes_of_limit", { nukes: dice.nukes, limit }),
  });
  for (let i = 0; i < Math.max(limit, dice.nukes); i += 1) {
    const over = i >= limit;
    meter.append(
      h("span", { class: `nuke-slot${i < dice.nukes ? " filled" : ""}${over ? " over" : ""}`, "aria-hidden": "true" }, i < dice.nukes ? "☢" : ""),
    );
  }
  // what the dice mean (bombed, safe on Los Angeles, one nuke left) is the engine's word
  const WARNINGS = { bombed: "bombed_now", safe: "los_angeles_safe", one_nuke_left: "one_nuke_left" };
  const code = board.dice.warning;
  const warning = code ? tr(t, WARNINGS[code]) : null;
  const safe = code === "safe";
  const cup = [];
  const outcome = ended ? (view.events || []).find((e) => e.type === "captured" || e.type === "stopped") : null;
  if (outcome) cup.push(h("p", { class: `atk-outcome outcome-${outcome.type}`, text: describeEvent(outcome, ctx) }));
  if (dice.rolls === 0 && dice.to_roll === 0 && !board.target) cup.push(h("p", { class: "dice-cup", text: tr(t, "dice_waiting") }));
  if (dice.to_roll > 0) cup.push(h("p", { class: "dice-cup", text: tr(t, "to_roll", { n: dice.to_roll }) }));
  if (dice.set) cup.push(h("p", { class: "dice-cup", text: tr(t, "seattle_set", { face: faceWord(t, dice.set, 1) }) }));
  return h(
    "section",
    { class: `atk-dice${ended ? " is-ended" : ""}`, "aria-label": tr(t, "dice") },
    h(
      "div",
      { class: "atk-dice-head" },
      h("h3", { text: tr(t, "dice") }),
      h("span", { class: "atk-rolls", text: ended ? tr(t, "turn_over_roll") : tr(t, "rolls", { n: dice.rolls }) }),
    ),
    row("H", dice.heads, tr(t, "heads_showing")),
    row("R", dice.rays, tr(t, "rays_locked")),
    row("N", dice.nukes, tr(t, "nukes_locked")),
    h(
      "div",
      { class: "nuke-line" },
      h("span", { class: "nuke-text", text: tr(t, "nukes_of_limit", { nukes: dice.nukes, limit }) }),
      meter,
    ),
    warning
      ? h(
          "p",
          { class: `atk-warning${safe ? " is-safe" : ""}`, role: "note" },
          h("span", { "aria-hidden": "true", text: safe ? "✓ " : "⚠ " }),
          warning,
        )
      : null,
    cup,
  );
}

// --- cards -------------------------------------------------------------------------------------

function isPlaceholder(card, field) {
  return Array.isArray(card.placeholder) && card.placeholder.includes(field);
}

function number(t, card, field, label) {
  const mark = isPlaceholder(card, field);
  return h(
    "span",
    { class: `card-num card-${field}`, title: mark ? tr(t, "placeholder_value") : null },
    h("span", { class: "card-num-label", text: label }),
    h("b", { text: String(card[field]) }),
    mark ? h("sup", { class: "placeholder-mark", "aria-label": tr(t, "placeholder_value"), text: "*" }) : null,
  );
}

function symbolIcon(symbol) {
  return { ray: faceIcon("R"), head: faceIcon("H"), nuke: faceIcon("N") }[symbol] || h("span", { class: "bust-icon", "aria-hidden": "true", text: "✸" });
}

function seatMarker(ctx, seat, extra) {
  return h(
    "span",
    { class: `seat-marker seat-${seat % SEAT_COLOURS}${extra ? ` ${extra}` : ""}`, title: seatName(ctx, seat) },
    String(seat + 1),
  );
}

function track(ctx, card) {
  const t = ctx.t;
  const tokens = card.tokens || [];
  const spaces = h("ol", { class: "track", "aria-label": tr(t, "track", { n: card.requirement }) });
  for (let space = 1; space <= card.requirement; space += 1) {
    const here = [];
    tokens.forEach((value, seat) => {
      if (value === space) here.push(seat);
    });
    const label = here.length
      ? tr(t, "space_tokens", { n: space, who: here.map((s) => seatName(ctx, s)).join(", ") })
      : String(space);
    spaces.append(
      h(
        "li",
        { class: `track-space${space === card.requirement ? " capture" : ""}`, "aria-label": label },
        h("span", { class: "space-n", "aria-hidden": "true", text: String(space) }),
        here.map((seat) => seatMarker(ctx, seat)),
      ),
    );
  }
  return spaces;
}

function cardFace(ctx, card, options) {
  const t = ctx.t;
  remember(card);
  const kind = tr(t, `kind.${card.kind}`);
  const symbol = tr(t, `symbol.${card.symbol}`);
  const ability = card.ability
    ? h(
        "p",
        { class: `card-ability ability-${["boston", "seattle", "toronto", "denver"].includes(card.ability) ? "green" : "red"}` },
        h("b", { text: tr(t, `ability.${card.ability}.colour`) + ": " }),
        tr(t, `ability.${card.ability}.text`),
        isPlaceholder(card, "ability") ? h("sup", { class: "placeholder-mark", text: "*" }) : null,
      )
    : null;
  const nukes = [];
  for (let i = 0; i < card.nukes; i += 1) nukes.push(h("span", { class: "card-nuke", "aria-hidden": "true" }, faceIcon("N")));
  return h(
    "article",
    {
      class: `atk-card kind-${card.kind}${options.target ? " is-target" : ""}${options.small ? " small" : ""}`,
      "aria-label": tr(t, "card_label", {
        name: card.name,
        kind,
        symbol,
        requirement: card.requirement,
        vp: card.vp,
        nukes: card.nukes,
      }),
      "data-card": card.slug,
    },
    options.target ? h("span", { class: "target-badge", text: "◎ " + tr(t, "target") }) : null,
    h(
      "header",
      { class: "card-title" },
      h("span", { class: "card-symbol", title: symbol }, symbolIcon(card.symbol)),
      h("span", { class: "card-name", text: card.name }),
    ),
    h(
      "div",
      { class: "card-nums" },
      number(t, card, "requirement", tr(t, "needs")),
      number(t, card, "vp", tr(t, "vp")),
      h(
        "span",
        { class: "card-num card-nukes", title: tr(t, "card_nukes") },
        h("span", { class: "card-num-label", text: "☢" }),
        nukes.length ? nukes : h("b", { text: "0" }),
        isPlaceholder(card, "nukes") ? h("sup", { class: "placeholder-mark", text: "*" }) : null,
      ),
    ),
    h("p", { class: "card-kind", text: `${kind} · ${symbol}` }),
    ability,
    options.small ? null : track(ctx, card),
  );
}

function stacksArea(ctx, board) {
  const t = ctx.t;
  const cards = board.stacks.map((stack) => {
    const target = stack.card && stack.card.slug === board.target;
    return h(
      "div",
      { class: `atk-stack${stack.card ? "" : " empty"}` },
      h(
        "div",
        { class: "stack-head" },
        h("span", { class: "stack-n", text: tr(t, "stack", { n: stack.stack }) }),
        h("span", { class: "stack-size", text: tr(t, "cards_left", { n: stack.size }) }),
        board.memphis_stack === stack.stack ? h("span", { class: "stack-memphis", text: "Memphis" }) : null,
      ),
      stack.card ? cardFace(ctx, stack.card, { target }) : h("p", { class: "stack-empty", text: tr(t, "stack_empty") }),
    );
  });
  return h("section", { class: "atk-stacks", "aria-label": tr(t, "face_up_cards") }, cards);
}

function playersArea(ctx, view, board) {
  const t = ctx.t;
  const rows = [];
  for (let seat = 0; seat < view.players; seat += 1) {
    const owned = board.owned[seat] || [];
    owned.forEach(remember);
    const tokens = board.tokens[seat] || [];
    const current = view.current_player === seat;
    rows.push(
      h(
        "li",
        { class: `atk-player${current ? " is-current" : ""}${ctx.seat === seat ? " is-me" : ""}`, "data-seat": seat },
        h(
          "div",
          { class: "atk-player-head" },
          seatMarker(ctx, seat),
          h("span", { class: "atk-player-name" }, current ? h("span", { class: "turn-arrow", "aria-label": tr(t, "to_play"), text: "▶ " }) : null, seatName(ctx, seat)),
          h("span", { class: "atk-vp", text: tr(t, "vp_total", { n: view.scores[seat] }) }),
        ),
        h(
          "p",
          { class: "atk-tokens" },
          tr(t, "tokens_free", { n: board.free_tokens[seat] }),
          tokens.length ? " · " + tokens.map((tok) => `${cardName(tok.card)} ${tok.value}`).join(", ") : "",
        ),
        owned.length
          ? h(
              "ul",
              { class: "atk-owned", "aria-label": tr(t, "captured_cards") },
              owned.map((card) =>
                h(
                  "li",
                  { class: `owned-card kind-${card.kind}`, title: card.ability ? tr(t, `ability.${card.ability}.text`) : null },
                  h("span", { class: "owned-name", text: card.name }),
                  h("span", { class: "owned-vp", text: tr(t, "vp_short", { n: card.vp }) }),
                  card.ability ? h("span", { class: "owned-ability", text: "★" }) : null,
                ),
              ),
            )
          : h("p", { class: "atk-owned-none", text: tr(t, "no_cards") }),
      ),
    );
  }
  // (a list, not a landmark: the table's score panel is the players' region)
  return h("div", { class: "atk-players" }, h("ol", { "aria-label": tr(t, "players") }, rows));
}

function statusLine(ctx, view, board) {
  const t = ctx.t;
  const faceUpNukes = board.stacks.reduce((sum, s) => sum + (s.card ? s.card.nukes : 0), 0);
  const bits = [
    h("span", { class: "atk-chip", text: tr(t, `difficulty.${board.difficulty}`) }),
    h("span", {
      class: "atk-chip",
      text: tr(t, "limit_parts", { limit: board.nuke_limit, cards: faceUpNukes, card: board.nuke_limit - faceUpNukes }),
    }),
    h("span", { class: "atk-chip", text: tr(t, "box", { n: board.box }) }),
    h("span", { class: "atk-chip", text: tr(t, "round", { n: view.rounds }) }),
  ];
  const over = view.phase === "over";
  if (board.extra_turn && !over) bits.push(h("span", { class: "atk-chip chip-extra", text: "⟳ " + tr(t, "extra_turn") }));
  if (board.end_triggered && !over) bits.push(h("span", { class: "atk-chip chip-last", text: "⚑ " + tr(t, "last_round") }));
  if (board.target) {
    const card = board.stacks.map((s) => s.card).find((c) => c && c.slug === board.target);
    const need = card ? card.requirement : "?";
    bits.push(
      h("span", { class: "atk-chip chip-target", text: "◎ " + tr(t, "target_count", { name: cardName(board.target), count: board.count, need }) }),
    );
  }
  const prompt =
    view.current_player >= 0 && ctx.seat === view.current_player && (view.legal_actions || []).length
      ? h("p", { class: "atk-prompt", text: tr(t, `phase.${view.phase}`) })
      : null;
  return h("div", { class: "atk-status-wrap" }, h("div", { class: "atk-status" }, bits), prompt);
}

function placeholderNote(ctx, board) {
  const any = board.stacks.some((s) => s.card && Array.isArray(s.card.placeholder) && s.card.placeholder.length);
  return any ? h("p", { class: "atk-placeholder-note" }, h("sup", { text: "*" }), " " + tr(ctx.t, "placeholder_note")) : null;
}

// --- the plugin ------------------------------------------------------------------------------------

export function renderBoard(el, view, ctx) {
  const t = ctx.t;
  const board = view.board;
  el.classList.add("atk-board");
  if (!board) {
    el.replaceChildren(h("p", { text: tr(t, "no_board") }));
    return;
  }
  const parts = [
    statusLine(ctx, view, board),
    stacksArea(ctx, board),
    h("div", { class: "atk-lower" }, diceArea(ctx, view, board, el), playersArea(ctx, view, board)),
    placeholderNote(ctx, board),
  ];
  el.replaceChildren(...parts.filter(Boolean));
}

/** "2 heads, 1 ray gun and 3 nukes": counts of faces in the language's words and plurals. */
function countsText(ctx, pairs) {
  const t = ctx.t;
  const parts = pairs.filter(([, count]) => count > 0).map(([letter, count]) => tr(t, "dice_count", { count, face: faceWord(t, letter, count) }));
  if (!parts.length) return tr(t, "no_dice");
  return new Intl.ListFormat(ctx.lang || "en", { type: "conjunction" }).format(parts);
}

/** What a roll showed (its faces' letters, as the event gives them) in words. */
function facesText(ctx, faces) {
  const count = (letter) => [...(faces || "")].filter((face) => face === letter).length;
  return countsText(ctx, ["H", "R", "N"].map((letter) => [letter, count(letter)]));
}

/** The dice an event shows, as small dice for the log (their words are in the line). */
export function eventDice(event) {
  if (event.type !== "rolled" || !event.faces) return null;
  return h("span", { class: "log-dice", "aria-hidden": "true" }, [...event.faces].map((letter) => die(() => "", letter, false, 0)));
}

/**
 * A turn in one line from its events (turn-began to turn-ended): "Planner attacked Dallas: 5
 * ray guns, 2 nukes; token to 5." Null for a turn with no attack (a pass).
 */
export function recap(events, ctx) {
  const t = ctx.t;
  const end = events[events.length - 1];
  if (!end || end.type !== "turn-ended") return null;
  const target = [...events].reverse().find((e) => e.type === "target-declared");
  if (!target) return null;
  const rolls = events.filter((e) => e.type === "rolled");
  const last = rolls[rolls.length - 1];
  const who = seatName(ctx, end.seat);
  const dice = last ? countsText(ctx, [["R", last.rays], ["N", last.nukes]]) : tr(t, "no_dice");
  const captured = events.find((e) => e.type === "captured");
  const token = events.find((e) => e.type === "token-placed");
  let result;
  if (captured) result = tr(t, "recap.captured", { card: cardName(captured.card), vp: captured.vp });
  else if (end.outcome === "bombed" || end.outcome === "failed Detroit") result = token ? tr(t, "recap.bombed_kept", { n: token.value }) : tr(t, "recap.bombed");
  else if (token) result = tr(t, "recap.token", { n: token.value });
  else result = tr(t, `outcome.${end.outcome}`);
  return tr(t, "recap.line", { who, card: cardName(target.card), dice, result });
}

export function describeEvent(event, ctx) {
  const t = ctx.t;
  const who = event.seat !== undefined ? seatName(ctx, event.seat) : "";
  const card = cardName(event.card);
  const key = `event.${event.type}`;
  switch (event.type) {
    case "turn-began":
      return tr(t, event.extra ? "event.turn-began-extra" : key, { who, n: event.turn });
    case "turn-ended":
      return tr(t, key, { who, outcome: tr(t, `outcome.${event.outcome}`) });
    case "rolled":
      // the faces in words (the log shows them as dice too), never as letter codes
      return tr(t, event.toronto ? "event.rolled-toronto" : key, {
        who,
        roll: facesText(ctx, event.faces),
        locked: countsText(ctx, [["R", event.rays], ["N", event.nukes]]),
      });
    case "rerolling":
      return tr(t, event.switch ? "event.rerolling-switch" : key, { who, count: event.count, card: cardName(event.switch) });
    case "bombed":
      return tr(t, event.detroit ? "event.bombed-detroit" : key, { who, card, nukes: event.nukes, limit: event.limit, count: event.count });
    case "card-turned-up":
      return event.card ? tr(t, key, { n: event.stack, card }) : tr(t, "event.stack-empty", { n: event.stack });
    case "tokens-home":
      return tr(t, key, { card, who: (event.seats || []).map((s) => seatName(ctx, s)).join(", ") });
    case "seattle-used":
    case "toronto-used":
      return tr(t, key, { who, face: faceWord(t, event.face, 1) });
    case "ability-declined":
      return tr(t, key, { who, ability: cardName(event.ability) });
    case "denver-restarted":
      return tr(t, event.whole_turn ? key : "event.denver-restarted-target", { who });
    case "oklahoma-cycled":
      return tr(t, key, { who, cards: (event.cards || []).map(cardName).join(", ") });
    case "game-over":
      return tr(t, key, {
        who: (event.winners || []).map((s) => seatName(ctx, s)).join(", "),
        scores: (event.scores || []).join(" – "),
      });
    case "new-york-back":
      return tr(t, event.value ? key : "event.new-york-removed", { who, card, n: event.value });
    case "token-placed":
      return tr(t, event.kept ? "event.token-kept" : key, { who, card, n: event.value });
    default:
      return tr(t, key, {
        who,
        card,
        n: event.value !== undefined ? event.value : event.stack,
        count: event.count,
        need: event.requirement,
        vp: event.vp,
        total: event.total,
        token: event.token,
        empty: event.empty,
      });
  }
}

export function actionLabel(action, view, ctx) {
  const t = ctx.t;
  const board = (view && view.board) || { stacks: [] };
  if (board.stacks) board.stacks.forEach((s) => remember(s.card));
  if (action === "stop") return { label: tr(t, "action.stop"), key: "s" };
  if (action === "pass") return { label: tr(t, "action.pass"), key: "p" };
  if (action === "restart") return { label: tr(t, "action.restart"), key: "d" };
  let m = /^@(.+)$/.exec(action);
  if (m) {
    const stack = (board.stacks || []).find((s) => s.card && s.card.slug === m[1]);
    return { label: tr(t, "action.target", { card: cardName(m[1]) }), key: stack ? String(stack.stack) : null };
  }
  m = /^boston@(.+)$/.exec(action);
  if (m) {
    const stack = (board.stacks || []).find((s) => s.card && s.card.slug === m[1]);
    return { label: tr(t, "action.boston", { card: cardName(m[1]) }), key: stack ? String(stack.stack) : null };
  }
  m = /^(seattle|toronto):([HRN])$/.exec(action);
  if (m) return { label: tr(t, `action.${m[1]}`, { face: faceWord(t, m[2], 1) }), key: m[2].toLowerCase() };
  m = /^memphis:(\d)$/.exec(action);
  if (m) return { label: tr(t, "action.memphis", { n: m[1] }), key: m[1] };
  m = /^reroll(\d*)(?:@(.+))?$/.exec(action);
  if (m) {
    const count = m[1] ? Number(m[1]) : null;
    if (m[2]) {
      const params = { n: count, card: cardName(m[2]) };
      // switching to another city: that city's stack digit (the table gives a spare key to a
      // second action wanting the same one)
      const stack = (board.stacks || []).find((s) => s.card && s.card.slug === m[2]);
      return { label: tr(t, count === null ? "action.reroll-switch" : "action.reroll-n-switch", params), key: stack ? String(stack.stack) : null };
    }
    // G rolls again in both games (the terminal's letter too); N heads: the digit N
    return count === null ? { label: tr(t, "action.reroll"), key: "g" } : { label: tr(t, "action.reroll-n", { n: count }), key: String(count) };
  }
  return { label: action, key: null };
}

function percent(value, ctx) {
  const digits = value > 0 && value < 0.01 ? 1 : 0;
  if (ctx && ctx.i18n && typeof ctx.i18n.pct === "function") return ctx.i18n.pct(value, digits);
  return `${(100 * value).toFixed(digits)}%`;
}

export function describeChoice(choice, ctx) {
  const t = ctx.t;
  const label = actionLabel(choice.action, ctx.view || null, ctx).label;
  const values = choice.values || {};
  const parts = [];
  if (typeof values.capture_probability === "number") parts.push(tr(t, "hint.capture", { p: percent(values.capture_probability, ctx) }));
  if (typeof values.bomb_probability === "number") parts.push(tr(t, "hint.bomb", { p: percent(values.bomb_probability, ctx) }));
  const num = (x) => (ctx.i18n && typeof ctx.i18n.num === "function" ? ctx.i18n.num(x, 2) : Number(x).toFixed(2));
  if (typeof values.value === "number") parts.push(tr(t, "hint.value", { x: num(values.value) }));
  let text = label;
  if (parts.length) text += ` — ${parts.join(", ")} (${tr(t, "hint.estimates")})`;
  return text;
}

/** The lobby's settings, as the server's schema gives them: a choice for each rules switch
 * (the default first) and an optional card file. */
export function renderOptions(el, ctx) {
  const { t, game } = ctx;
  const readers = {};
  const field = (name, control) =>
    h(
      "div",
      { class: "field atk-field", "data-field": name },
      h("label", { for: `atk-opt-${name}`, text: tr(t, `option.${name}`) }),
      control,
      h("p", { class: "field-error", id: `atk-opt-${name}-error`, "data-error-for": name, role: "alert" }),
    );
  const select = (name, property, values) => {
    const control = h(
      "select",
      { id: `atk-opt-${name}`, name, "aria-describedby": `atk-opt-${name}-error` },
      values.map((value) => h("option", { value: String(value), text: tr(t, `option.${name}.${value}`) })),
    );
    control.value = String(initial(game, name, property));
    readers[name] = () => typed(property, control.value);
    return field(name, control);
  };
  const file = h("input", { id: "atk-opt-cards", type: "file", accept: ".json,application/json", name: "cards", "aria-describedby": "atk-opt-cards-error" });
  const cardsField = field("cards", file);
  cardsField.querySelector("label").after(h("p", { class: "field-help", text: tr(t, "option.cards.help") }));
  const state = { cards: null, error: null };
  const showError = (name, message) => {
    const box = el.querySelector(`[data-field="${name}"] .field-error`);
    if (!box) return false;
    box.textContent = message || "";
    const control = el.querySelector(`#atk-opt-${name}`);
    if (control) control.setAttribute("aria-invalid", message ? "true" : "false");
    return true;
  };
  file.addEventListener("change", async () => {
    state.cards = null;
    state.error = null;
    showError("cards", "");
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    try {
      const data = JSON.parse(await chosen.text());
      const cards = Array.isArray(data) ? data : data && Array.isArray(data.cards) ? data.cards : null;
      if (!cards) throw new Error(tr(t, "option.cards.not_list"));
      state.cards = cards;
    } catch (error) {
      state.error = error instanceof SyntaxError ? tr(t, "option.cards.not_json", { why: error.message }) : error.message;
      showError("cards", state.error);
    }
  });
  const fields = [];
  for (const [name, property] of settings(game)) {
    if (name === "cards") {
      fields.push(cardsField);
      continue;
    }
    const values = choices(game, name, property);
    if (values) fields.push(select(name, property, values));
  }
  el.append(h("div", { class: "atk-options", role: "group", "aria-label": tr(t, "option.legend") }, fields));
  const params = () => {
    if (state.error) throw { field: "cards", message: state.error };
    const variant = {};
    for (const [name, read] of Object.entries(readers)) variant[name] = read();
    if (state.cards) variant.cards = state.cards;
    return variant;
  };
  // the lobby shows a server's field error (422, e.g. field "cards") next to the field with this
  params.showError = showError;
  return params;
}

/** The notice once the end is triggered: the round is completed, up to the last seat. */
export function lastRoundNotice(view, ctx) {
  // the view says who still plays this round; the round ends with the last of them
  if (!view || !view.last_round || !view.last_round.length) return null;
  return tr(ctx.t, "last_round_notice", { name: seatName(ctx, view.last_round[view.last_round.length - 1]) });
}

/** How one group level on VP got its places (view.tie_breaks): the cards each captured, then
 * the rule the engine says decided (``by``), for the winners or for a lower place. */
export function tieBreakLines(tie, view, ctx) {
  const t = ctx.t;
  const top = tie.places[0] === 1;
  const cards = (seat) => ((view.board && view.board.owned[seat]) || []).length;
  const lines = [
    tr(t, top ? "tie.vp" : "tie.vp_place", {
      vp: tie.score,
      cards: tie.seats.map((seat) => tr(t, "tie.cards_of", { name: seatName(ctx, seat), n: cards(seat) })).join(", "),
    }),
  ];
  if (tie.by === "reached_first") lines.push(tr(t, "tie.reached_first"));
  else if (tie.by === "shared") lines.push(top ? tr(t, "tie.shared") : tr(t, "tie.shared_place", { n: tie.places[0] }));
  return lines;
}
