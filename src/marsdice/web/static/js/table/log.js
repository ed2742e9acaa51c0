// The turn log: every event of the game, newest first, in the plugin's words. A whole state
// (hello, a reconnection) brings every step's events (`step_events`, protocol 2), so a page
// arriving mid-game tells the game from its start; each step after adds its own. Kept in
// localStorage (a reload or a new tab of the same table keeps it) for the 10 tables seen last.
// A new step's events are announced to screen readers. Rolls show their dice as small icons
// (the plugin's `eventDice`; the words are in the line), and a finished turn gets a one-line
// recap (the plugin's `recap`, "Planner attacked Dallas: ...") in the log and announced.

import { h as el, put } from "../dom.js";
import { pluginContext } from "./common.js";

const LIMIT = 300;
const INDEX = "marsdice.logs";

function keptFor(tableId) {
  try {
    return JSON.parse(localStorage.getItem(`marsdice.log.${tableId}`) || "[]");
  } catch {
    return [];
  }
}

/** Note this table as seen last; the logs of tables seen before the 10 last are dropped. */
function keepLogs(tableId) {
  let ids;
  try {
    ids = JSON.parse(localStorage.getItem(INDEX) || "[]");
  } catch {
    ids = [];
  }
  ids = [tableId, ...ids.filter((id) => id !== tableId)];
  for (const old of ids.slice(10)) localStorage.removeItem(`marsdice.log.${old}`);
  localStorage.setItem(INDEX, JSON.stringify(ids.slice(0, 10)));
}

export function createLog({ ctx, plugin, tableId }) {
  const { t } = ctx;
  const node = el("section", { class: "panel log-panel", "aria-labelledby": "log-title" });
  let log = keptFor(tableId);

  /** The events of a state newer than the log's last: added, stored and returned. A whole
   * state's history replaces the log (it is the game's own). */
  function record(message) {
    const view = message?.view;
    if (!view) return [];
    const lastVersion = log.length ? log[log.length - 1].v : -1;
    let fresh;
    if (Array.isArray(message.step_events)) {
      const history = message.step_events.flatMap((events, i) => events.map((event) => ({ v: i + 1, e: event })));
      if (history.length || !log.length) log = history;
      fresh = history.filter((entry) => entry.v > lastVersion);
    } else {
      if (message.version <= lastVersion) return [];
      fresh = (view.events || []).map((event) => ({ v: message.version, e: event }));
      log.push(...fresh);
    }
    if (log.length > LIMIT) log = log.slice(-LIMIT);
    try {
      localStorage.setItem(`marsdice.log.${tableId}`, JSON.stringify(log));
      keepLogs(tableId);
    } catch {
      /* storage full: the log lives on in memory */
    }
    return fresh;
  }

  /** The recap of the turn that ends at log[i] (null: none, or not the end of a turn). */
  function recapAt(i, pctx) {
    if (typeof plugin.recap !== "function") return null;
    let start = i;
    while (start > 0 && log[start].e.type !== "turn-began") start -= 1;
    try {
      return plugin.recap(log.slice(start, i + 1).map((entry) => entry.e), pctx);
    } catch {
      return null;
    }
  }

  function render(state) {
    const pctx = pluginContext(state, ctx);
    const fresh = record(state.message);
    const firstFresh = log.length - fresh.length;
    for (const entry of fresh.slice(-3)) ctx.announce(plugin.describeEvent(entry.e, pctx));
    for (let i = Math.max(firstFresh, 0); i < log.length; i++) {
      const line = recapAt(i, pctx);
      if (line) ctx.announce(line);
    }
    const list = el("ol", { class: "log", reversed: true });
    for (let i = log.length - 1; i >= 0; i--) {
      const { e: event } = log[i];
      const line = recapAt(i, pctx);
      if (line) list.append(el("li", { class: "ev ev-recap", "data-seat": event.seat ?? null }, el("b", { text: line })));
      list.append(
        el(
          "li",
          { class: `ev ev-${event.type}${event.first ? " turn-start" : ""}`, "data-seat": event.seat ?? null },
          plugin.describeEvent(event, pctx),
          typeof plugin.eventDice === "function" ? plugin.eventDice(event, pctx) : null,
        ),
      );
    }
    put(node, el("h2", { id: "log-title", text: t("log.title") }), log.length ? list : el("p", { class: "hint", text: t("log.empty") }));
  }

  return { node, render };
}
