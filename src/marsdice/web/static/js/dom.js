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
