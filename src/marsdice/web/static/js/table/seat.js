// This page's seat and the way out (POST /api/tables/{id}/leave): before the start "Leave my
// seat" gives the seat back (its token forgotten); in a running game "Leave the game" (asked
// first) marks the seat away and a bot plays it, the token kept so that "Take my seat back"
// (a hello with it) returns to it. A seat left is not taken back by a reload.

import { h as el, put } from "../dom.js";
import { openDialog } from "./common.js";

export function createSeat({ store, ctx, tableId, connection }) {
  const { t, api } = ctx;
  const node = el("section", { class: "panel seat-panel", hidden: true, "aria-labelledby": "seat-title" });
  const dialog = el("dialog", { class: "dialog confirm-dialog leave-dialog", "aria-labelledby": "leave-dialog-title" });
  let drawn = null;

  async function leave() {
    const saved = api.savedSeat(tableId);
    if (!saved) return;
    const running = store.get().table.status === "running";
    let table = store.get().table;
    try {
      table = await api.leave(tableId, saved.token);
    } catch (failure) {
      ctx.toast(ctx.errorText(failure), "error");
      if (failure.code !== "bad_token") return;
    }
    if (running) api.markLeft(tableId, true);
    else api.forgetSeat(tableId);
    connection.hello(null);
    store.set({ seat: null, table });
    ctx.announce(t(running ? "seat.left_running" : "seat.left_open"));
  }

  function askLeave() {
    put(
      dialog,
      el("h2", { id: "leave-dialog-title", text: t("seat.leave_title") }),
      el("p", { text: t("seat.leave_text") }),
      el(
        "form",
        { method: "dialog", class: "row" },
        el("button", { class: "btn danger", value: "leave", "data-confirm": "leave", text: t("seat.leave_game") }),
        el("button", { class: "btn", value: "stay", autofocus: true, text: t("seat.stay") }),
      ),
    );
    dialog.addEventListener("close", () => dialog.returnValue === "leave" && leave(), { once: true });
    openDialog(dialog);
  }

  function comeBack() {
    const saved = api.savedSeat(tableId);
    if (!saved) return;
    api.markLeft(tableId, false);
    connection.hello(saved.token);
    store.set({ seat: saved.seat });
    ctx.announce(t("seat.back"));
  }

  function render(state) {
    const { table, seat } = state;
    const saved = api.savedSeat(tableId);
    let kind = null;
    if (table.status === "open" && seat !== null) kind = "open";
    else if (table.status === "running" && seat !== null) kind = "running";
    else if (table.status === "running" && saved?.left && table.seats[saved.seat]) kind = "left";
    node.hidden = kind === null;
    const key = `${ctx.i18n.lang()}|${kind}|${seat}`;
    if (key === drawn) return;
    drawn = key;
    if (kind === null) return put(node);
    const n = (kind === "left" ? saved.seat : seat) + 1;
    const heading = el("h2", { id: "seat-title", text: t("seat.title") });
    if (kind === "left") {
      put(node, heading, el("p", { text: t("seat.away", { n }) }), el("button", { type: "button", class: "btn primary", id: "seat-back", text: t("seat.take_back"), onclick: comeBack }));
    } else {
      put(
        node,
        heading,
        el("p", { text: t("seat.yours", { n }) }),
        el("button", {
          type: "button",
          class: "btn ghost",
          id: "seat-leave",
          text: t(kind === "open" ? "join.leave" : "seat.leave_game"),
          onclick: kind === "open" ? leave : askLeave,
        }),
      );
    }
  }

  return { node, dialogs: [dialog], render };
}
