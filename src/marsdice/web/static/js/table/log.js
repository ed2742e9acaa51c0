// The turn log: every event of the game, newest first, in the plugin's words. A whole state
// (hello, a reconnection) brings every step's events (`step_events`, protocol 2), so a page
// arriving mid-game tells the game from its start; each step after adds its own. Kept in
// localStorage (a reload or a new tab of the same table keeps it) for the 10 tables seen last.
// A new step's events are announced to screen readers.

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

  function render(state) {
    const pctx = pluginContext(state, ctx);
    for (const entry of record(state.message).slice(-3)) ctx.announce(plugin.describeEvent(entry.e, pctx));
    const list = el("ol", { class: "log", reversed: true });
    for (let i = log.length - 1; i >= 0; i--) {
      const { e: event } = log[i];
      list.append(
        el(
          "li",
          { class: `ev ev-${event.type}${event.first ? " turn-start" : ""}`, "data-seat": event.seat ?? null },
          plugin.describeEvent(event, pctx),
        ),
      );
    }
    put(node, el("h2", { id: "log-title", text: t("log.title") }), log.length ? list : el("p", { class: "hint", text: t("log.empty") }));
  }

  return { node, render };
}
