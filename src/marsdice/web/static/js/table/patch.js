// JSON Patch (RFC 6902) as the server's step messages make it (docs/protocol.md, protocol 2):
// add, remove and replace, on object members and array elements ("-": the array's end); ""
// is the whole document. The document given is left as it was: a new one is returned, sharing
// what the patch did not touch. A patch that does not fit throws PatchError.

export class PatchError extends Error {}

const clone = (value) => (value === undefined ? value : structuredClone(value));

function tokensOf(path) {
  if (typeof path !== "string" || !path.startsWith("/")) throw new PatchError(`not a JSON pointer: ${path}`);
  return path
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function indexOf(token, size, path) {
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= size) throw new PatchError(`${path}: no element ${token}`);
  return Number(token);
}

function applied(node, tokens, op, path) {
  const [key, ...rest] = tokens;
  if (Array.isArray(node)) {
    const items = node.slice();
    if (!rest.length && op.op === "add") {
      items.splice(key === "-" ? items.length : indexOf(key, items.length + 1, path), 0, clone(op.value));
      return items;
    }
    const index = indexOf(key, items.length, path);
    if (rest.length) items[index] = applied(node[index], rest, op, path);
    else if (op.op === "remove") items.splice(index, 1);
    else items[index] = clone(op.value);
    return items;
  }
  if (node === null || typeof node !== "object") throw new PatchError(`${path}: not an object or array on the way`);
  const out = { ...node };
  const has = Object.prototype.hasOwnProperty.call(node, key);
  if (rest.length) {
    if (!has) throw new PatchError(`${path}: no member ${key}`);
    out[key] = applied(node[key], rest, op, path);
  } else if (op.op === "add") {
    out[key] = clone(op.value);
  } else if (!has) {
    throw new PatchError(`${path}: no member ${key} to ${op.op}`);
  } else if (op.op === "remove") {
    delete out[key];
  } else {
    out[key] = clone(op.value);
  }
  return out;
}

/** `document` with `ops` applied, as a new document. */
export function applyPatch(document, ops) {
  let doc = document;
  for (const op of ops) {
    if (!op || !["add", "remove", "replace"].includes(op.op)) throw new PatchError(`not an operation: ${JSON.stringify(op)}`);
    if (op.op !== "remove" && !("value" in op)) throw new PatchError(`${op.op} ${op.path} carries no value`);
    if (op.path === "") {
      if (op.op !== "replace") throw new PatchError(`${op.op} of the whole document`);
      doc = clone(op.value);
      continue;
    }
    doc = applied(doc, tokensOf(op.path), op, op.path);
  }
  return doc;
}
