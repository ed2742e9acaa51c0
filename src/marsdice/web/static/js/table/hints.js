// The hints panel (the table's `hints` option): each choice of the seat to act with the
// advice's values in the plugin's words, the best marked, blunders flagged.

import { h as el, put } from "../dom.js";
import { pluginContext, seatNames } from "./common.js";

export function createHints({ ctx, plugin }) {
  const { t } = ctx;
  const node = el("section", { class: "panel hints-panel", hidden: true, "aria-labelledby": "hints-title" });

  function render(state) {
    const advice = state.message?.advice;
    const show = state.table.options.hints && advice && advice.choices?.some((choice) => choice.values);
    node.hidden = !show;
    if (!show) return;
    const pctx = pluginContext(state, ctx);
    const best = Math.min(...advice.choices.map((choice) => choice.loss ?? Infinity));
    const list = el("ul", { class: "hints" });
    for (const choice of advice.choices) {
      const isBest = choice.loss !== null && choice.loss === best;
      list.append(
        el(
          "li",
          { class: [isBest ? "best" : "", choice.blunder ? "blunder" : ""].join(" ").trim() || null },
          isBest ? el("span", { class: "mark best", text: `✓ ${t("hints.best")}` }) : null,
          choice.blunder ? el("span", { class: "mark blunder", text: `⚠ ${t("hints.blunder")}` }) : null,
          el("span", { text: plugin.describeChoice(choice, pctx) }),
        ),
      );
    }
    const method = t(`hints.method.${advice.method}`, { fallback: advice.method });
    const estimate = advice.estimate && advice.method !== "planner-estimate" ? ` · ${t("hints.estimate")}` : "";
    put(node,
      el("h2", { id: "hints-title", text: t("hints.title", { name: seatNames(state.table, t)[advice.seat] ?? "" }) }),
      list,
      el("p", { class: "hint", text: method + estimate }),
    );
  }

  return { node, render };
}
