// The last round's notice (the plugin's words), announced when it changes.

import { h as el } from "../dom.js";
import { pluginContext } from "./common.js";

export function createNotice({ ctx, plugin }) {
  const node = el("p", { class: "notice last-round", role: "status", hidden: true });
  let said = null;

  function render(state) {
    const view = state.message?.view;
    const text = view && plugin.lastRoundNotice ? plugin.lastRoundNotice(view, pluginContext(state, ctx)) : null;
    node.hidden = !text;
    node.textContent = text ? `⚑ ${text}` : "";
    if (text && text !== said) ctx.announce(text);
    said = text;
  }

  return { node, render };
}
