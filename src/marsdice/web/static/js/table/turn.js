// Whose turn it is and who plays next, as the view says (view.turn_seat, view.next_seat); the
// page's own turn is announced once to screen readers.

import { h as el, put } from "../dom.js";
import { isOver, seatNames } from "./common.js";

export function createTurn({ ctx }) {
  const { t } = ctx;
  const node = el("div", { class: "turn-banner", "aria-live": "off" });
  let announced = null;

  function render(state) {
    const view = state.message?.view;
    put(node);
    if (!view) {
      node.append(el("p", { class: "turn-now", text: t("table.waiting_players") }));
      return;
    }
    if (isOver(state)) {
      node.append(el("p", { class: "turn-now", text: t("table.game_over") }));
      node.dataset.mine = "false";
      return;
    }
    const seat = view.turn_seat;
    const next = view.next_seat;
    const list = seatNames(state.table, t);
    const mine = seat !== null && seat === state.seat;
    node.dataset.mine = String(mine);
    node.append(
      el("p", {
        class: "turn-now",
        text: mine ? `▶ ${t("table.your_turn")}` : `▶ ${t("table.turn_of", { name: list[seat] ?? "—" })}`,
      }),
    );
    if (next !== null && next !== undefined) {
      node.append(
        el("p", {
          class: "turn-next",
          text: t("table.next", { name: next === state.seat ? t("table.you") : list[next] }),
        }),
      );
    }
    if (mine && !announced) ctx.announce(t("table.your_turn"));
    announced = mine;
  }

  return { node, render };
}
