// The table's head: the game's title and the table's id, its status, the connection's status
// and the rules button (the rules dialog, also on "?"). It also keeps the tab's title.

import { h as el, put } from "../dom.js";
import { isHelpKey, openDialog, typing } from "./common.js";
import { SPEEDS, setSpeed, speed } from "./pace.js";

export function createHead({ ctx, connection }) {
  const { t, i18n } = ctx;
  // the person's pace for the steps they did not make (js/table/pace.js), and a skip of the wait
  const speedSelect = el("select", { id: "speed-select", class: "speed-select" });
  speedSelect.addEventListener("change", () => setSpeed(speedSelect.value));
  const speedLabel = el("label", { for: "speed-select", class: "speed-label" });
  const skipButton = el("button", { type: "button", class: "btn ghost skip-button", hidden: true });
  skipButton.addEventListener("click", () => connection.flush());
  const title = el("h1", { class: "table-title" });
  const statusChip = el("span", { class: "chip status-chip" });
  const connChip = el("span", { class: "chip conn-chip", role: "status" });
  const rulesButton = el("button", { type: "button", class: "btn ghost", "aria-keyshortcuts": "?" });
  const rulesDialog = el("dialog", { class: "dialog rules-dialog", "aria-labelledby": "rules-title" });
  const node = el(
    "header",
    { class: "table-head" },
    el("div", { class: "table-head-main" }, title, statusChip, connChip),
    el("div", { class: "table-head-tools" }, speedLabel, speedSelect, skipButton, rulesButton),
  );
  let game = null;
  const gameTitle = () => t(`game.${game}`, { fallback: game });

  async function showRules() {
    let html = null;
    for (const language of [i18n.lang(), "en"]) {
      try {
        const response = await fetch(`/static/rules/${language}/${game}.html`);
        if (response.ok) {
          html = await response.text();
          break;
        }
      } catch {
        /* try the next language */
      }
    }
    const body = el("div", { class: "rules-body" });
    body.innerHTML = html ?? `<p>${t("rules.missing")}</p>`;
    put(rulesDialog,
      el(
        "div",
        { class: "dialog-head" },
        el("h2", { id: "rules-title", text: t("rules.title", { game: gameTitle() }) }),
        el("form", { method: "dialog" }, el("button", { class: "btn ghost", "aria-label": t("dialog.close"), text: "✕" })),
      ),
      body,
    );
    openDialog(rulesDialog, rulesDialog.querySelector("button"));
  }
  rulesButton.addEventListener("click", showRules);

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target) || document.querySelector("dialog[open]")) return;
    if (isHelpKey(event)) {
      event.preventDefault();
      showRules();
    }
  }
  document.addEventListener("keydown", onKey);

  function render(state) {
    const { table, message, conn } = state;
    if (speedSelect.dataset.lang !== i18n.lang()) {
      speedSelect.dataset.lang = i18n.lang();
      speedLabel.textContent = t("speed.label");
      put(speedSelect, ...Object.keys(SPEEDS).map((name) => el("option", { value: name, text: t(`speed.${name}`) })));
    }
    if (document.activeElement !== speedSelect) speedSelect.value = speed();
    skipButton.textContent = t("table.skip");
    skipButton.hidden = !state.queued;
    game = table.game;
    title.textContent = gameTitle();
    title.append(el("span", { class: "table-id", text: ` #${table.id}` }));
    statusChip.textContent = t(`status.${table.status}`);
    statusChip.dataset.status = table.status;
    connChip.textContent = t(`conn.${conn}`);
    connChip.dataset.conn = conn;
    put(rulesButton, document.createTextNode(t("table.rules")), el("kbd", { "aria-hidden": "true", text: "?" }));
    if (message?.view) document.title = `${message.your_turn ? "▶ " : ""}${gameTitle()} · ${t("app.name")}`;
  }

  return { node, dialogs: [rulesDialog], render, destroy: () => document.removeEventListener("keydown", onKey) };
}
