// The player strip: every seat in one line (its colour, name, score), whose turn it is and
// who still plays in the last round (view.last_round), always in sight. On a phone it sticks
// to the top of the screen above the actions, where the score table would sit far below.

import { h as el, put } from "../dom.js";
import { isOver, seatNames } from "./common.js";

export function createStrip({ ctx }) {
  const { t } = ctx;
  // (not a landmark: the score table is the players' region; this is its summary in sight)
  const list = el("ul", { class: "strip-list", "aria-label": "" });
  const node = el("div", { class: "player-strip" }, list);

  function render(state) {
    const { table, seat: mySeat } = state;
    const view = state.message?.view;
    const names = seatNames(table, t);
    const playing = view && !isOver(state);
    const lastRound = new Set(playing && Array.isArray(view.last_round) ? view.last_round : []);
    list.setAttribute("aria-label", t("scores.title"));
    put(
      list,
      table.seats.map((seat, index) => {
        const turn = playing && view.turn_seat === index;
        const marks = [];
        if (turn) marks.push(el("span", { class: "strip-mark turn", "aria-hidden": "true", text: "▶" }));
        if (lastRound.has(index)) marks.push(el("span", { class: "strip-mark last", "aria-hidden": "true", title: t("strip.last_round"), text: "⚑" }));
        const said = [turn ? t("scores.turn") : null, lastRound.has(index) ? t("strip.last_round") : null, index === mySeat ? t("scores.you") : null]
          .filter(Boolean)
          .join(", ");
        return el(
          "li",
          {
            class: ["strip-seat", `seat-c${index}`, turn ? "current" : "", index === mySeat ? "me" : ""].join(" ").trim(),
            "data-seat": index,
          },
          el("span", { class: "swatch", "aria-hidden": "true" }),
          ...marks,
          el("span", { class: "strip-name", text: names[index] }),
          el("span", { class: "strip-score", text: view ? String(view.scores[index]) : "–" }),
          said ? el("span", { class: "sr-only", text: ` (${said})` }) : null,
        );
      }),
    );
  }

  return { node, render };
}
