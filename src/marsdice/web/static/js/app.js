// The single page's router: "/" lobby, "/t/{id}" a table (with "?seat=N" from an invite
// link, N counted from 1 as people count seats and as `marsdice connect --seat N` does), "/t/{id}/review" and "/t/{id}/replay" (helper modules loaded on demand),
// "/account" (sign in, sign up, the password), "/players/{name}" and "/leaderboard/{game}". Every view
// module exports mount(el, ...) returning a cleanup function or {destroy, refresh}. Every module
// of the page, the games' plugins included, uses named exports only (docs/browser.md).

import { createSession, mountAccountArea } from "./account.js";
import * as api from "./api.js";
import { stylesheet } from "./dom.js";
import * as i18n from "./i18n.js";

const { t } = i18n;
const main = document.getElementById("main");
const live = document.getElementById("live");
const toastBox = document.getElementById("toast");
let view = null; // what the current route mounted
let routeToken = 0;

/** Say something to screen readers (polite aria-live region). */
export function announce(text) {
  if (!text) return;
  const line = document.createElement("p");
  line.textContent = text;
  live.append(line);
  while (live.childElementCount > 5) live.firstElementChild.remove();
}

/** A short visible message (copied, errors) that also reaches screen readers. */
export function toast(text, kind = "info") {
  toastBox.textContent = text;
  toastBox.dataset.kind = kind;
  toastBox.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (toastBox.hidden = true), 4000);
}

/** The games the server offers (GET /api/games, fetched once): each with its defaults, their
 * schema and its browser plugin's module and translation namespace. */
let offered = null;
export function games() {
  if (!offered) {
    offered = api.games().then((answer) => answer.games);
    offered.catch(() => (offered = null)); // a failed fetch is asked again next time
  }
  return offered;
}

/** One game's entry of /api/games. */
export async function game(name) {
  const found = (await games()).find((entry) => entry.name === name);
  if (!found) throw new Error(`the server offers no game ${name}`);
  return found;
}

// where this page's own files came from: /static/v/{version}/ (cached for good, docs/server.md)
// or /static/
const STATIC_BASE = new URL("../", import.meta.url);

/** A file of the page's own under the address the page itself came from, so that a plugin
 * shares the page's modules (one dom.js, one i18n.js) and their caching. */
function pageFile(path) {
  const url = new URL(path, location.origin);
  if (url.origin === location.origin && url.pathname.startsWith("/static/") && !url.pathname.startsWith("/static/v/")) {
    return new URL(url.pathname.slice("/static/".length) + url.search, STATIC_BASE);
  }
  return url;
}

/** A game's plugin (the module /api/games names, docs/browser.md) with its translations
 * loaded: the module's named exports. */
const plugins = new Map();
export async function plugin(name) {
  if (!plugins.has(name)) {
    const loading = game(name).then(({ plugin: declared }) => {
      const url = pageFile(declared.module);
      if (url.origin !== location.origin) throw new Error(`a plugin from another origin: ${url}`);
      // (a plugin that loads its own styles says when they apply: `ready`)
      return Promise.all([import(url.href).then(async (module) => (await module.ready, module)), i18n.load(declared.namespace)]).then(
        ([module]) => module,
      );
    });
    loading.catch(() => plugins.delete(name));
    plugins.set(name, loading);
  }
  return plugins.get(name);
}

/** The error line for a server error (its code mapped to error.<code>). */
export function errorText(error) {
  const code = error?.code || "internal";
  return t(`error.${code}`, { fallback: error?.message || code });
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

// who is signed in (account.js): the header's area and the pages read it
const session = createSession(api);

/** The review's texts and styles, for the pages that draw its chart. */
function reviewFiles() {
  return Promise.all([i18n.load("review"), stylesheet(new URL("css/review.css", STATIC_BASE))]);
}

const ctx = { t, i18n, api, announce, toast, navigate, games, game, plugin, errorText, session, reviewFiles };

function destroy() {
  if (!view) return;
  if (typeof view === "function") view();
  else if (view && typeof view.destroy === "function") view.destroy();
  view = null;
}

let routedPath = null;
let drawAccount = () => {}; // the header's account area (its "Sign in" link comes back here)

async function route() {
  const token = ++routeToken;
  routedPath = location.pathname + location.search;
  destroy();
  main.replaceChildren();
  drawAccount();
  const path = location.pathname.replace(/\/+$/, "") || "/";
  const params = new URLSearchParams(location.search);
  let match;
  try {
    let mounted;
    if (path === "/") {
      const lobby = await import("./lobby.js");
      if (token !== routeToken) return;
      document.title = `${t("lobby.title")} · ${t("app.name")}`;
      mounted = await lobby.mount(main, ctx);
    } else if ((match = path.match(/^\/t\/([A-Za-z0-9_-]+)$/))) {
      const table = await import("./table.js");
      if (token !== routeToken) return;
      const asked = Number(params.get("seat"));
      const seat = Number.isInteger(asked) && asked >= 1 ? asked - 1 : null; // (the seat's index)
      mounted = await table.mount(main, match[1], ctx, { seat });
    } else if (path === "/account") {
      const account = await import("./account.js");
      if (token !== routeToken) return;
      mounted = await account.mount(main, ctx, params);
    } else if ((match = path.match(/^\/players\/([^/]+)$/))) {
      await reviewFiles();
      const player = await import("./player.js");
      if (token !== routeToken) return;
      mounted = await player.mount(main, decodeURIComponent(match[1]), ctx);
    } else if ((match = path.match(/^\/leaderboard(?:\/([A-Za-z0-9_-]+))?$/))) {
      const board = await import("./leaderboard.js");
      if (token !== routeToken) return;
      mounted = await board.mount(main, match[1] || null, ctx);
    } else if ((match = path.match(/^\/t\/([A-Za-z0-9_-]+)\/(review|replay)$/))) {
      await reviewFiles();
      const module = await import(`./${match[2]}.js`);
      if (token !== routeToken) return;
      mounted = await module.mount(main, match[1], ctx);
    } else {
      const box = document.createElement("section");
      box.className = "panel";
      const title = document.createElement("h1");
      title.textContent = t("notfound.title");
      const back = document.createElement("a");
      back.href = "/";
      back.dataset.link = "";
      back.textContent = t("nav.back_lobby");
      box.append(title, back);
      main.append(box);
    }
    if (token !== routeToken) {
      if (typeof mounted === "function") mounted();
      else mounted?.destroy?.();
      return;
    }
    view = mounted || null;
    // a link to a part of a page (/t/{id}#fair-title): there once the page is drawn
    if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  } catch (error) {
    console.error(error);
    const box = document.createElement("p");
    box.className = "error-box";
    box.setAttribute("role", "alert");
    box.textContent = errorText(error);
    main.replaceChildren(box);
  }
}

// in-page links: <a data-link href="/...">
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-link]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});
// back and forward between routes; a jump to an anchor (the skip link) is not a new route
window.addEventListener("popstate", () => {
  if (location.pathname + location.search !== routedPath) route();
});

async function start() {
  const select = document.getElementById("lang-select");
  select.value = i18n.lang();
  select.addEventListener("change", () => i18n.setLanguage(select.value));
  await Promise.all([i18n.load("common"), session.refresh()]);
  i18n.translateStatic();
  drawAccount = mountAccountArea(document.getElementById("account-area"), ctx);
  i18n.onChange(() => {
    select.value = i18n.lang();
    drawAccount();
    if (view && typeof view.refresh === "function") view.refresh();
    else route();
  });
  await route();
}

start();
