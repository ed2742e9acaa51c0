// The hints panel (the table's `hints` option): each choice of the seat to act with the
// advice's values in the plugin's words, the best marked, blunders flagged. What the values
// are is said first, from the advice's `method`: exact values as exact, the planner's
// estimates and the many-player approximation as what they are (the plugin words each
// value by `ctx.method` too: an approximation's rating is not "win").

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
    const pctx = { ...pluginContext(state, ctx), method: advice.method, estimate: Boolean(advice.estimate) };
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
    const exact = !advice.estimate && advice.method !== "approximation";
    const method = t(`hints.method.${advice.method}`, { fallback: t(exact ? "hints.exact" : "hints.estimate") });
    put(node,
      el("h2", { id: "hints-title", text: t("hints.title", { name: seatNames(state.table, t)[advice.seat] ?? "" }) }),
      el(
        "p",
        { class: `hints-method ${exact ? "is-exact" : "is-estimate"}`, "data-method": advice.method },
        el("span", { class: "hints-kind", text: exact ? `= ${t("hints.exact")}` : `≈ ${t(advice.method === "approximation" ? "hints.approximate" : "hints.estimate")}` }),
        " ",
        method,
      ),
      list,
    );
  }

  return { node, render };
}
