// The page's one DOM builder, shared by every module.

/** Drop what conditional parts leave behind (null, undefined, false); flatten lists. */
function present(children) {
  return children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false);
}

/**
 * h("div", {class: "x", text: "y", onclick: f, "aria-label": "z"}, child, "text"): an element
 * with its attributes (true: present, null/false: left out), listeners and children.
 */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...present(children).map((child) => (child instanceof Node ? child : String(child))));
  return node;
}

/** replaceChildren, with the same leniency as h. */
export function put(node, ...children) {
  node.replaceChildren(...present(children));
}

/** Load a stylesheet once (a game's or a page's own, only where it is needed): resolves when
 * it applies (or failed: the page still works unstyled). */
export function stylesheet(url) {
  const href = new URL(url, document.baseURI).href;
  const present = [...document.querySelectorAll('link[rel="stylesheet"]')].find((link) => link.href === href);
  if (present) return present.dataset.loaded === "false" ? new Promise((done) => present.addEventListener("load", done, { once: true })) : Promise.resolve();
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  link.dataset.loaded = "false";
  const loaded = new Promise((done) => {
    const finish = () => {
      link.dataset.loaded = "true";
      done();
    };
    link.addEventListener("load", finish, { once: true });
    link.addEventListener("error", finish, { once: true });
  });
  document.head.append(link);
  return loaded;
}
