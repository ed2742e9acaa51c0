// The end screen: the headline, every seat's place as the view gives it (view.placings: equal
// places shown once each, "1., 1., 3."), how each tie was broken (view.tie_breaks, in the
// plugin's words) and the links to the review, the replay and the record. It opens as a dialog
// when the game ends while the page is open; a game already over shows it in the page only.
// "Play again" (POST /api/tables/{id}/rematch) makes the rematch, or takes this player's seat
// in the one another player made (the table's `rematch`): the offer shows on every page of
// the finished table, and whoever accepts goes to the new table with its seat's token kept.

import { h as el, put } from "../dom.js";
import { isOver, openDialog, pluginContext, seatNames } from "./common.js";

export function createEnd({ store, ctx, plugin, tableId }) {
  const { t, i18n, api } = ctx;
  // the rematch's part, in the page and in the dialog (drawn again only when it changes)
  const rematchBoxes = [el("div", { class: "rematch" }), el("div", { class: "rematch" })];
  const rematchError = [el("p", { class: "field-error", role: "alert" }), el("p", { class: "field-error", role: "alert" })];
  let rematchKey = null;
  let offered = null; // the rematch table, once fetched: {id, table}

  /** Is this page one of the finished table's players (its token, or the account's seat)? */
  function player(table) {
    if (api.savedSeat(tableId)) return true;
    const { user } = ctx.session.get();
    return Boolean(user) && table.seats.some((seat) => seat.account && seat.name === user.name);
  }

  async function playAgain(index) {
    const saved = api.savedSeat(tableId);
    const body = saved ? { token: saved.token } : {};
    for (const spot of rematchError) spot.textContent = "";
    try {
      const joined = await api.rematch(tableId, body);
      api.saveSeat(joined.table.id, joined.seat, joined.token);
      ctx.announce(t("rematch.seated"));
      ctx.navigate(`/t/${joined.table.id}`);
    } catch (failure) {
      rematchError[index].textContent = ctx.errorText(failure);
    }
  }

  function drawRematch(state) {
    const { table } = state;
    const newId = table.rematch || null;
    if (newId && offered?.id !== newId) {
      offered = { id: newId, table: null };
      api.table(newId).then(
        (found) => {
          if (offered?.id !== newId) return;
          offered.table = found;
          rematchKey = null;
          drawRematch(store.get());
        },
        () => {},
      );
    }
    const mine = player(table);
    const seatedThere = newId ? api.savedSeat(newId) : null;
    const waiting = offered?.table ? offered.table.seats.filter((seat) => seat.kind === "human" && seat.taken).map((seat) => seat.name) : [];
    const key = `${i18n.lang()}|${newId}|${mine}|${Boolean(seatedThere)}|${waiting.join("\n")}`;
    if (key === rematchKey) return;
    rematchKey = key;
    rematchBoxes.forEach((box, index) => {
      const parts = [];
      if (newId) {
        parts.push(
          el(
            "p",
            { class: "rematch-offer", "data-rematch": newId },
            waiting.length
              ? t("rematch.offer_by", { names: new Intl.ListFormat(i18n.lang()).format(waiting) })
              : t("rematch.offer"),
          ),
        );
      }
      const buttons = el("p", { class: "row" });
      if (mine && seatedThere) {
        buttons.append(el("a", { href: `/t/${newId}`, "data-link": true, class: "btn primary", text: t("rematch.go") }));
      } else if (mine) {
        buttons.append(
          el("button", { type: "button", class: "btn primary rematch-button", text: t(newId ? "rematch.accept" : "rematch.play_again"), onclick: () => playAgain(index) }),
        );
      } else if (newId) {
        buttons.append(el("a", { href: `/t/${newId}`, "data-link": true, class: "btn", text: t("rematch.watch") }));
      }
      if (buttons.childElementCount) parts.push(buttons);
      put(box, ...parts, rematchError[index]);
      box.hidden = !parts.length;
    });
  }
  const node = el("section", { class: "panel end-panel", hidden: true, "aria-labelledby": "end-title" });
  const dialog = el("dialog", { class: "dialog end-dialog", "aria-labelledby": "end-dialog-title" });
  let shown = false; // the dialog has opened (or needs not: the game was over before)
  let drawnKey = null; // what the panel was drawn for: a chat message does not draw it again
  let seenState = false;

  function links(table) {
    return el(
      "p",
      { class: "row end-links" },
      el("a", { href: `/t/${table.id}/review`, "data-link": true, class: "btn primary", text: t("end.review") }),
      el("a", { href: `/t/${table.id}/replay`, "data-link": true, class: "btn", text: t("end.replay") }),
      el("a", { href: api.recordUrl(table.id), download: api.recordName(table.id), class: "btn", text: t("end.record") }),
      el("a", { href: "/", "data-link": true, class: "btn ghost", text: t("nav.back_lobby") }),
    );
  }

  /** The seats in the order of their places; seats sharing a place keep their seat order. */
  function ranking(state, view, list) {
    const winners = new Set(view.winners);
    const order = view.placings
      .map((place, seat) => ({ seat, place }))
      .sort((a, b) => a.place - b.place || a.seat - b.seat);
    return el(
      "ol",
      { class: "ranking" },
      order.map(({ seat, place }) =>
        el(
          "li",
          { class: winners.has(seat) ? "winner" : null, "data-seat": seat, "data-place": place },
          el("span", { class: "place", text: t("end.place", { n: place }) }),
          el("span", { class: "who", text: `${winners.has(seat) ? "★ " : ""}${list[seat]}${seat === state.seat ? ` (${t("table.you")})` : ""}` }),
          el("span", { class: "pts", text: t("end.points", { count: view.scores[seat] }) }),
        ),
      ),
    );
  }

  function headline(state, view, list) {
    if (view.players === 1) return t("end.solo", { count: view.turns[0] });
    if (view.winners.length === 1) {
      return view.winners[0] === state.seat ? t("end.you_won") : t("end.winner", { name: list[view.winners[0]] });
    }
    return t("end.shared", { names: new Intl.ListFormat(i18n.lang()).format(view.winners.map((s) => list[s])) });
  }

  function render(state) {
    const { message } = state;
    // a game already over when the page opens shows its end in the page, not in a dialog
    if (message && !seenState) {
      seenState = true;
      if (message.table?.status === "finished" || message.view?.phase === "over") shown = true;
    }
    const view = message?.view;
    const over = Boolean(view) && isOver(state);
    node.hidden = !over;
    if (!over) return;
    drawRematch(state);
    const key = `${i18n.lang()}|${message.version}|${state.seat}|${JSON.stringify(state.table.seats)}|${state.table.status}`;
    if (key === drawnKey) return;
    drawnKey = key;
    const list = seatNames(state.table, t);
    const pctx = pluginContext(state, ctx);
    const said = headline(state, view, list);
    const breaks = (view.tie_breaks || []).flatMap((tie) => plugin.tieBreakLines(tie, view, pctx));
    const build = (id, index) => [
      el("h2", { id, text: t("end.title") }),
      el("p", { class: "end-headline", text: said }),
      view.placings ? ranking(state, view, list) : null,
      breaks.length
        ? el("div", { class: "tiebreaks" }, el("h3", { text: t("end.tiebreaks") }), el("ul", {}, ...breaks.map((line) => el("li", { text: line }))))
        : null,
      rematchBoxes[index],
      links(state.table),
    ];
    put(node, ...build("end-title", 0));
    if (shown) return;
    shown = true;
    const [heading, ...rest] = build("end-dialog-title", 1);
    put(dialog,
      el(
        "div",
        { class: "dialog-head" },
        heading,
        el("form", { method: "dialog" }, el("button", { class: "btn ghost", autofocus: true, "aria-label": t("dialog.close"), text: "✕" })),
      ),
      ...rest,
    );
    ctx.announce(said);
    openDialog(dialog);
  }

  return { node, dialogs: [dialog], render };
}
