// The fairness panel: the server's commitment, which players gave a seed, and once the game is
// over the revealed seed, the server's own check of the record (asked once, when the game ends
// while the page is open) and the way to check it yourself.

import { h as el, put } from "../dom.js";
import { isOver, seatNames } from "./common.js";

export function createFair({ store, ctx, tableId }) {
  const { t, api } = ctx;
  const node = el("section", { class: "panel fair-panel", "aria-labelledby": "fair-title" });
  let verdict = null; // null: not asked; false: unavailable; else the server's answer
  let wasOver = null;

  function check() {
    const answered = (result) => {
      verdict = result;
      render(store.get());
    };
    api.verify(tableId).then(answered, () => answered(false));
  }

  function render(state) {
    const { table } = state;
    const over = isOver(state);
    if (wasOver === false && over && verdict === null) check();
    wasOver = over;
    const parts = [
      el("h2", { id: "fair-title", text: t("fair.title") }),
      el("p", { class: "hint", text: t("fair.explain") }),
      el("p", {}, el("span", { class: "label", text: `${t("fair.commitment")} ` }), el("code", { class: "hash", text: table.commitment || "–" })),
    ];
    const seeds = el("ul", { class: "seeds" });
    const list = seatNames(table, t);
    for (const seat of table.seats) {
      if (seat.kind !== "human") continue;
      seeds.append(el("li", { text: `${list[seat.seat]}: ${seat.seeded ? `✓ ${t("fair.seeded")}` : `– ${t("fair.unseeded")}`}` }));
    }
    if (seeds.childElementCount) parts.push(seeds);
    if (over && table.server_seed) {
      parts.push(el("p", {}, el("span", { class: "label", text: `${t("fair.server_seed")} ` }), el("code", { class: "hash", text: table.server_seed })));
      if (verdict) {
        parts.push(
          el("p", {
            class: `verify ${verdict.fair ? "ok" : "bad"}`,
            role: "status",
            text: verdict.fair ? `✓ ${t("fair.verified")}` : `✗ ${t("fair.failed")}: ${verdict.message}`,
          }),
        );
      } else if (verdict === false) {
        parts.push(el("p", { class: "hint", text: t("fair.verify_unavailable") }));
      }
      parts.push(
        el("p", { class: "hint" }, t("fair.cli"), " ", el("code", { text: `marsdice verify ${api.recordName(table.id)}` })),
        el("p", {}, el("a", { href: api.recordUrl(table.id), download: api.recordName(table.id), class: "btn", text: t("end.record") })),
      );
    }
    put(node, ...parts);
  }

  return { node, render };
}
