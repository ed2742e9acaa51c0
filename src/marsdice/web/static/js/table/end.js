// The end screen: the headline, every seat's place as the view gives it (view.placings: equal
// places shown once each, "1., 1., 3."), how each tie was broken (view.tie_breaks, in the
// plugin's words) and the links to the review, the replay and the record. It opens as a dialog
// when the game ends while the page is open; a game already over shows it in the page only.

import { h as el, put } from "../dom.js";
import { isOver, openDialog, pluginContext, seatNames } from "./common.js";

export function createEnd({ ctx, plugin }) {
  const { t, i18n, api } = ctx;
  const node = el("section", { class: "panel end-panel", hidden: true, "aria-labelledby": "end-title" });
  const dialog = el("dialog", { class: "dialog end-dialog", "aria-labelledby": "end-dialog-title" });
  let shown = false; // the dialog has opened (or needs not: the game was over before)
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
    const list = seatNames(state.table, t);
    const pctx = pluginContext(state, ctx);
    const said = headline(state, view, list);
    const breaks = (view.tie_breaks || []).flatMap((tie) => plugin.tieBreakLines(tie, view, pctx));
    const build = (id) => [
      el("h2", { id, text: t("end.title") }),
      el("p", { class: "end-headline", text: said }),
      view.placings ? ranking(state, view, list) : null,
      breaks.length
        ? el("div", { class: "tiebreaks" }, el("h3", { text: t("end.tiebreaks") }), el("ul", {}, ...breaks.map((line) => el("li", { text: line }))))
        : null,
      links(state.table),
    ];
    put(node, ...build("end-title"));
    if (shown) return;
    shown = true;
    const [heading, ...rest] = build("end-dialog-title");
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
