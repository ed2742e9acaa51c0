// The game's board, drawn by its plugin from the view. The same step is not drawn twice (a
// seat joining sends it again), so its dice roll once; a step's dice roll for a moment after it
// arrives, unless the person asks for less motion. The last roll stays in words under the board
// until the next roll, once the board has moved past it (a turn ended on it), so a roll that
// bombed or captured can still be read while the next player plays.

import { h as el, put } from "../dom.js";
import { pluginContext } from "./common.js";

const ROLL_MS = 1000;

/** The events of a roll of dice (both games name theirs so), the newest last. */
const isRoll = (event) => event.type === "rolled" || event.type === "rolloff_roll";

function reduceMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
}

export function createBoard({ ctx, plugin }) {
  const { t, i18n } = ctx;
  const surface = el("div", { class: "board-surface" });
  const lastRoll = el("p", { class: "last-roll", hidden: true });
  // a heading of its own (screen readers' outline; the plugin's headings sit under it)
  const heading = el("h2", { class: "sr-only", id: "board-title" });
  const node = el("section", { class: "board", "aria-labelledby": "board-title" }, heading, surface, lastRoll);
  let drawn = null;
  let shownVersion = -1;
  let roll = null; // the newest roll seen, as {v, event}

  /** Note the newest roll of this message (a whole state: of its whole history). */
  function noteRoll(message) {
    if (Array.isArray(message.step_events)) {
      message.step_events.forEach((events, i) => events.filter(isRoll).forEach((event) => (roll = { v: i + 1, event })));
    }
    const own = (message.view?.events || []).filter(isRoll);
    if (own.length) roll = { v: message.version, event: own[own.length - 1] };
  }

  function drawLastRoll(state) {
    const onBoard = roll && roll.v === state.message?.version;
    lastRoll.hidden = !roll || onBoard;
    if (!roll || onBoard) return;
    lastRoll.replaceChildren(
      el("span", { class: "last-roll-label", text: `${t("table.last_roll")}: ` }),
      plugin.describeEvent(roll.event, pluginContext(state, ctx)),
    );
  }

  function render(state) {
    const { message } = state;
    heading.textContent = t("table.board");
    const fresh = message ? message.version !== shownVersion || performance.now() - state.arrivedAt < ROLL_MS : false;
    if (message && message.version !== shownVersion) noteRoll(message);
    if (message) shownVersion = message.version;
    const key = `${message ? message.version : -1}|${i18n.lang()}|${state.seat}`;
    if (key === drawn) return;
    drawn = key;
    const view = message?.view;
    if (!view) {
      node.dataset.empty = "true";
      put(surface, el("p", { class: "hint", text: t("table.not_started") }));
      lastRoll.hidden = true;
      return;
    }
    delete node.dataset.empty;
    drawLastRoll(state);
    plugin.renderBoard(surface, view, pluginContext(state, ctx, { freshVersion: fresh && !reduceMotion() }));
  }

  return { node, render };
}
