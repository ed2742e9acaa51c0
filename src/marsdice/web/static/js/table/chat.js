// The table's chat: the messages (GET /api/tables/{id}/chat, then live as the WebSocket's
// `chat` messages, merged by id into the store's `chat`), and the line to write one. A seated
// guest writes with its seat's token, a signed-in person with the session; a spectator who is
// not signed in is asked to sign in, and at a table whose chat is its players' only
// (`options.spectator_chat` false) a spectator is told so. A message is only ever text
// (textContent): what anyone writes is never read as HTML.

import { h as el, put } from "../dom.js";

/** The longest message the server takes (docs/protocol.md, "Chat and rematch"). */
export const MAX_CHAT = 300;
/** How many messages the page keeps. */
const KEEP = 200;

/** Merge `messages` into the store's chat: by id, oldest first, the newest KEEP kept. */
export function addChat(store, messages) {
  const byId = new Map(store.get().chat.map((message) => [message.id, message]));
  let fresh = false;
  for (const message of messages) {
    if (!message || typeof message.id !== "number" || byId.has(message.id)) continue;
    byId.set(message.id, message);
    fresh = true;
  }
  if (!fresh) return;
  store.set({ chat: [...byId.values()].sort((a, b) => a.id - b.id).slice(-KEEP) });
}

export function createChat({ store, ctx, tableId }) {
  const { t, api, i18n } = ctx;
  const node = el("section", { class: "panel chat-panel", "aria-labelledby": "chat-title" });
  const title = el("h2", { id: "chat-title" });
  const list = el("ol", { class: "chat-list" });
  // (a live log: each new message is read out once; it scrolls, and takes the focus to)
  const box = el("div", { class: "chat-log", role: "log", "aria-labelledby": "chat-title", tabindex: "0" }, list);
  const empty = el("p", { class: "hint chat-empty" });
  const input = el("input", {
    id: "chat-input",
    type: "text",
    maxlength: MAX_CHAT,
    autocomplete: "off",
    "aria-describedby": "chat-count chat-error",
  });
  const label = el("label", { for: "chat-input" });
  const count = el("small", { class: "hint chat-count", id: "chat-count" });
  const error = el("p", { class: "field-error chat-error", id: "chat-error", role: "alert" });
  const send = el("button", { type: "submit", class: "btn primary small chat-send" });
  const form = el("form", { class: "chat-form", novalidate: true }, label, el("div", { class: "chat-line" }, input, send), count, error);
  const note = el("p", { class: "hint chat-note" });
  put(node, title, box, empty, form, note);
  const shown = new Map(); // message id -> its <li>
  let lastConn = null;
  let drawnLang = null;

  function load() {
    api.chat(tableId).then(
      (answer) => addChat(store, answer.messages || []),
      () => {}, // (the live messages still come; the next connection asks again)
    );
  }

  function when(iso) {
    try {
      return new Intl.DateTimeFormat(i18n.lang(), { timeStyle: "short" }).format(new Date(iso));
    } catch {
      return "";
    }
  }

  function item(message) {
    const seat = Number.isInteger(message.seat) ? message.seat : null;
    return el(
      "li",
      { class: `chat-message${seat === null ? " spectator" : ` seat-c${seat % 6}`}`, "data-id": message.id },
      seat === null ? null : el("span", { class: "swatch", "aria-hidden": "true" }),
      el("span", { class: "chat-author", text: message.author }),
      seat === null ? el("span", { class: "hint", text: ` (${t("chat.spectator")})` }) : null,
      ": ",
      el("span", { class: "chat-text", text: message.text }),
      " ",
      el("time", { class: "hint chat-time", datetime: message.at, text: when(message.at) }),
    );
  }

  /** Who may write here: a seat's token, or the signed-in account (a spectator when the
   * table lets spectators write). */
  function writer(state) {
    const token = api.savedSeat(tableId)?.token || null;
    if (token) return { token };
    const { user } = ctx.session.get();
    if (!user) return { why: "sign_in" };
    const seated = state.table.seats.some((seat) => seat.account && seat.name === user.name);
    if (!seated && state.table.options?.spectator_chat === false) return { why: "muted" };
    return { token: null };
  }

  function countText() {
    count.textContent = t("chat.count", { used: i18n.num(input.value.length), max: i18n.num(MAX_CHAT) });
  }
  input.addEventListener("input", countText);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    input.removeAttribute("aria-invalid");
    const text = input.value;
    if (!text.trim()) {
      error.textContent = t("chat.empty_message");
      input.focus();
      return;
    }
    const who = writer(store.get());
    if (who.why) return;
    const body = { text };
    if (who.token) body.token = who.token;
    send.disabled = true;
    try {
      const message = await api.postChat(tableId, body);
      input.value = "";
      countText();
      addChat(store, [message]);
    } catch (failure) {
      let said;
      if (failure.code === "rate_limited" && failure.retryAfter) said = t("chat.wait", { count: failure.retryAfter });
      // (the server answers 422 for a long text and 400 for a control character)
      else if (failure.status === 422 || failure.code === "bad_request") said = t("chat.bad_text", { max: i18n.num(MAX_CHAT) });
      else if (failure.status === 401) said = t("chat.sign_in");
      else said = ctx.errorText(failure);
      error.textContent = said;
      input.setAttribute("aria-invalid", "true");
    } finally {
      send.disabled = false;
      input.focus();
    }
  });

  function render(state) {
    if (state.conn === "open" && lastConn !== "open") load(); // every (re)connection: what was missed
    lastConn = state.conn;
    if (drawnLang !== i18n.lang()) {
      drawnLang = i18n.lang();
      title.textContent = t("chat.title");
      label.textContent = t("chat.label");
      send.textContent = t("chat.send");
      empty.textContent = t("chat.none");
      countText();
    }
    // new messages only are added (the log announces each once), in id order
    const near = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    let added = false;
    for (const message of state.chat) {
      if (shown.has(message.id)) continue;
      const li = item(message);
      const after = [...shown.keys()].filter((id) => id > message.id).sort((a, b) => a - b)[0];
      list.insertBefore(li, after === undefined ? null : shown.get(after));
      shown.set(message.id, li);
      added = true;
    }
    const keep = new Set(state.chat.map((message) => message.id));
    for (const [id, li] of shown) {
      if (!keep.has(id)) {
        li.remove();
        shown.delete(id);
      }
    }
    if (added && near) box.scrollTop = box.scrollHeight;
    empty.hidden = state.chat.length > 0;
    const who = writer(state);
    form.hidden = Boolean(who.why);
    if (who.why === "sign_in") {
      const next = `/account?next=${encodeURIComponent(`/t/${tableId}`)}`;
      put(note, el("a", { href: next, "data-link": true, text: t("chat.sign_in_link") }), ` ${t("chat.sign_in_why")}`);
    } else if (who.why === "muted") {
      put(note, t("chat.muted"));
    } else {
      put(note);
    }
    note.hidden = !who.why;
  }

  const stop = ctx.session.subscribe(() => render(store.get()));
  return { node, render, destroy: stop };
}
