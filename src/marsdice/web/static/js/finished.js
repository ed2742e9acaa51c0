// What the pages of a finished game (the review, the replay) share: loading the page's data
// with the table, and the seats' names as the table page shows them.

import { h } from "./dom.js";

/**
 * The data of a finished table's page (`load()`: the review or the replay) with the table
 * itself (null if that fails); on failure the page says why (not over yet, or the server's
 * error) with a way back, and null is returned.
 */
export async function loadFinished(el, tableId, ctx, t, load) {
  try {
    return await Promise.all([load(), ctx.api.table(tableId).catch(() => null)]);
  } catch (error) {
    const finishedYet = error && error.status === 409;
    el.replaceChildren(
      h(
        "div",
        { class: "rv-page" },
        h("p", { class: "error-box", role: "alert", text: finishedYet ? t("not_finished") : ctx.errorText(error) }),
        h("a", { href: `/t/${tableId}`, "data-link": "" }, t("back_table")),
      ),
    );
    return null;
  }
}

/** The seats' names as the table page shows them (a bot by its translated name). */
export function seatNames(table, players, t, fallback) {
  const names = [];
  for (let seat = 0; seat < players; seat += 1) {
    const info = table && table.seats ? table.seats[seat] : null;
    if (info && info.kind === "bot" && info.bot) names.push(t(`bot.${info.bot}`, { fallback: info.bot }));
    else names.push((info && info.name) || (fallback && fallback[seat]) || `#${seat + 1}`);
  }
  return names;
}

/** A finished table's links as the lobby and the player pages list them: the table (its end
 * screen and fair dice), the replay, the review, the fairness panel and the record. */
export function gameLinks(ctx, tableId) {
  const { t, api } = ctx;
  const id = encodeURIComponent(tableId);
  return h(
    "p",
    { class: "row game-links" },
    h("a", { href: `/t/${id}`, "data-link": "", class: "btn small", text: t("finished.table") }),
    h("a", { href: `/t/${id}/replay`, "data-link": "", class: "btn small", text: t("end.replay") }),
    h("a", { href: `/t/${id}/review`, "data-link": "", class: "btn small", text: t("finished.review") }),
    h("a", { href: `/t/${id}#fair-title`, "data-link": "", class: "btn small", text: t("finished.fairness") }),
    h("a", { href: api.recordUrl(tableId), download: api.recordName(tableId), class: "btn small ghost", text: t("finished.record") }),
  );
}
