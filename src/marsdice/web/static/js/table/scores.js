// The score table: each seat's points and turns, with marks for the turn, this page's seat,
// bots, absent players, free seats and winners; under it the plugin's note (a target).

import { h as el, put } from "../dom.js";
import { isOver, pluginContext, seatNames } from "./common.js";

export function createScores({ ctx, plugin, store }) {
  const { t } = ctx;
  const node = el("section", { class: "panel scores-panel", "aria-labelledby": "scores-title" });
  // a stand-in's countdown is drawn again each second while one runs
  let ticking = null;

  /** Seat index -> its presence entry (the server's `presence` message), if any came. */
  function presenceOf(state) {
    const out = new Map();
    for (const entry of state.presence?.seats || []) out.set(entry.seat, entry);
    return out;
  }

  function render(state) {
    const { table, seat: mySeat } = state;
    const presence = presenceOf(state);
    let counting = false;
    const view = state.message?.view;
    const list = seatNames(table, t);
    const playing = view && !isOver(state);
    const current = view?.turn_seat;
    const winners = new Set(view?.winners || []);
    const body = el("tbody");
    table.seats.forEach((seat, index) => {
      const turn = playing && current === index;
      const marks = [];
      if (turn) marks.push(el("span", { class: "mark turn", text: `▶ ${t("scores.turn")}` }));
      if (index === mySeat) marks.push(el("span", { class: "mark you", text: t("scores.you") }));
      if (seat.kind === "bot") marks.push(el("span", { class: "mark bot", text: t("scores.bot") }));
      if (seat.away) marks.push(el("span", { class: "mark away", text: t("scores.away") }));
      const here = presence.get(index);
      if (here && !here.connected && !seat.away && seat.taken && table.status === "running") {
        const due = here.stand_in_at ? Math.ceil((Date.parse(here.stand_in_at) - Date.now()) / 1000) : null;
        const text = due !== null && due > 0 ? t("scores.stand_in_in", { count: due }) : t("scores.offline");
        marks.push(el("span", { class: "mark offline", text }));
        counting = counting || (due !== null && due > 0);
      }
      if (seat.kind === "human" && !seat.taken) marks.push(el("span", { class: "mark open", text: t("scores.open") }));
      if (winners.has(index)) marks.push(el("span", { class: "mark winner", text: `★ ${t("scores.winner")}` }));
      body.append(
        el(
          "tr",
          { class: [`seat-c${index}`, turn ? "current" : "", index === mySeat ? "me" : ""].join(" ").trim() },
          el("th", { scope: "row" }, el("span", { class: "swatch", "aria-hidden": "true" }), el("span", { class: "player-name", text: list[index] }), ...marks),
          el("td", { class: "num score", text: view ? String(view.scores[index]) : "–" }),
          el("td", { class: "num", text: view ? String(view.turns[index]) : "–" }),
        ),
      );
    });
    const head = el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col", text: t("scores.player") }),
        el("th", { scope: "col", class: "num", text: t("scores.score") }),
        el("th", { scope: "col", class: "num", text: t("scores.turns") }),
      ),
    );
    const note = view && plugin.scoreNote ? plugin.scoreNote(view, pluginContext(state, ctx)) : null;
    const back = state.returned && state.returned.seat === mySeat ? state.returned : null;
    put(node,
      el("h2", { id: "scores-title", text: t("scores.title") }),
      el("table", { class: "scores" }, head, body),
      note ? el("p", { class: "hint", text: note }) : null,
      back ? el("p", { class: "returned-note", role: "status", text: t("scores.returned", { count: back.moves }) }) : null,
    );
    if (counting && !ticking) ticking = setInterval(() => render(store.get()), 1000);
    if (!counting && ticking) {
      clearInterval(ticking);
      ticking = null;
    }
  }

  return {
    node,
    render,
    destroy: () => {
      if (ticking) clearInterval(ticking);
    },
  };
}
