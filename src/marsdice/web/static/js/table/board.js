// The game's board, drawn by its plugin from the view. The same step is not drawn twice (a
// seat joining sends it again), so its dice roll once; a step's dice roll for a moment after it
// arrives, unless the person asks for less motion.

import { h as el, put } from "../dom.js";
import { pluginContext } from "./common.js";

const ROLL_MS = 1000;

function reduceMotion() {
  return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
}

export function createBoard({ ctx, plugin }) {
  const { t, i18n } = ctx;
  const node = el("div", { class: "board" });
  let drawn = null;
  let shownVersion = -1;

  function render(state) {
    const { message } = state;
    const fresh = message ? message.version !== shownVersion || performance.now() - state.arrivedAt < ROLL_MS : false;
    if (message) shownVersion = message.version;
    const key = `${message ? message.version : -1}|${i18n.lang()}|${state.seat}`;
    if (key === drawn) return;
    drawn = key;
    const view = message?.view;
    if (!view) {
      node.dataset.empty = "true";
      put(node, el("p", { class: "hint", text: t("table.not_started") }));
      return;
    }
    delete node.dataset.empty;
    plugin.renderBoard(node, view, pluginContext(state, ctx, { freshVersion: fresh && !reduceMotion() }));
  }

  return { node, render };
}
