// Translations: t(key, params) over JSON files /static/i18n/{lang}/{ns}.json.
// A key is "ns:dotted.key" ("common" when no namespace). A value may be a plural object
// {"one": ..., "few": ..., "many": ..., "other": ...} chosen by params.count (Intl.PluralRules;
// params.digits: the count's decimals as shown).
// Missing keys fall back to English, then to the key itself, so a gap never blanks the page.

export const LANGUAGES = ["en", "pl", "ru"];
const STORE = "marsdice.lang";
const cache = new Map(); // "lang/ns" -> dictionary (or {} when the file is missing)
const listeners = new Set();
const loaded = new Set(["common"]);

function initial() {
  const saved = localStorage.getItem(STORE);
  if (LANGUAGES.includes(saved)) return saved;
  for (const wanted of navigator.languages || []) {
    const short = String(wanted).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(short)) return short;
  }
  return "en";
}

let current = initial();

export function lang() {
  return current;
}

async function fetchDict(language, ns) {
  const id = `${language}/${ns}`;
  if (cache.has(id)) return cache.get(id);
  let dict = {};
  try {
    const response = await fetch(`/static/i18n/${language}/${ns}.json`);
    if (response.ok) dict = await response.json();
  } catch {
    dict = {};
  }
  cache.set(id, dict);
  return dict;
}

/** Load namespaces for the current language (and English, the fallback). */
export async function load(...namespaces) {
  for (const ns of namespaces) loaded.add(ns);
  const wanted = [];
  for (const ns of loaded) {
    wanted.push(fetchDict(current, ns));
    if (current !== "en") wanted.push(fetchDict("en", ns));
  }
  await Promise.all(wanted);
}

function lookup(language, ns, key) {
  const dict = cache.get(`${language}/${ns}`);
  return dict ? dict[key] : undefined;
}

/** Has this key a translation (in any loaded language)? */
export function has(key) {
  const [ns, name] = split(key);
  return lookup(current, ns, name) !== undefined || lookup("en", ns, name) !== undefined;
}

function split(key) {
  const colon = key.indexOf(":");
  return colon > 0 ? [key.slice(0, colon), key.slice(colon + 1)] : ["common", key];
}

export function t(key, params = {}) {
  const [ns, name] = split(key);
  let value = lookup(current, ns, name);
  let language = current;
  if (value === undefined) {
    value = lookup("en", ns, name);
    language = "en";
  }
  if (value === undefined) return params.fallback ?? key;
  if (typeof value === "object" && value !== null) {
    // `digits`: the count is shown with that many decimals ("5.0" is not "5" in Polish or
    // Russian: 5,0 punktu, 5,0 процентного пункта)
    const digits = Number.isInteger(params.digits) ? { minimumFractionDigits: params.digits, maximumFractionDigits: params.digits } : {};
    const rule = new Intl.PluralRules(language, digits).select(Number(params.count ?? 0));
    value = value[rule] ?? value.other ?? "";
  }
  return String(value).replace(/\{(\w+)\}/g, (whole, name2) =>
    name2 in params ? String(params[name2]) : whole,
  );
}

/** Translate the static parts of the page marked data-i18n / data-i18n-label. */
export function translateStatic(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  }
  document.documentElement.lang = current;
}

export async function setLanguage(language) {
  if (!LANGUAGES.includes(language) || language === current) return;
  current = language;
  localStorage.setItem(STORE, language);
  await load();
  translateStatic();
  for (const listener of listeners) listener(language);
}

export function onChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A number in the current language's form (decimals as given). */
export function num(value, digits = 0) {
  return new Intl.NumberFormat(current, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}

export function pct(value, digits = 0) {
  return new Intl.NumberFormat(current, {
    style: "percent",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}
