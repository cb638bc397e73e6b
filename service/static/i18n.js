// The pages' words in the reader's language: one catalogue per language
// (/static/i18n/<lang>.json, a flat object of message keys), messages in a small subset of ICU
// MessageFormat: `{name}` placeholders, `{count, plural, one {# card} other {# cards}}` (with
// `=N` exact cases and `#` for the number) and `{kind, select, red {...} other {...}}`,
// nested freely. The language is the one picked (kept in localStorage), else the browser's
// first supported one (navigator.languages, which follows Accept-Language), else English.

export const LANGUAGES = { en: "English", es: "Español", nl: "Nederlands", da: "Dansk", de: "Deutsch", fr: "Français" };
const KEPT = "tabula:lang";
let lang = "en";
let messages = {};

/** The matching `}` of the `{` at `open` in `text`. */
function closing(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === "{") depth += 1;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  throw new Error(`unbalanced braces in message: ${text}`);
}

/** The `key {message}` cases of a plural or select argument. */
function cases(text) {
  const found = new Map();
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("{", i);
    if (open < 0) break;
    const end = closing(text, open);
    found.set(text.slice(i, open).trim(), text.slice(open + 1, end));
    i = end + 1;
  }
  return found;
}

function argument(body, params, locale, count) {
  const [name, type, ...rest] = body.split(",");
  const key = name.trim();
  if (type === undefined) return key === "#" ? count : String(params[key] ?? `{${key}}`);
  const value = params[key];
  const options = cases(rest.join(","));
  const kind = type.trim();
  if (kind === "plural") {
    const number = Number(value);
    const chosen = options.get(`=${number}`) ?? options.get(new Intl.PluralRules(locale).select(number)) ?? options.get("other");
    return render(chosen ?? "", params, locale, new Intl.NumberFormat(locale).format(number));
  }
  if (kind === "select") return render(options.get(String(value)) ?? options.get("other") ?? "", params, locale, count);
  throw new Error(`unknown argument type ${kind}`);
}

/** `message` with its arguments filled from `params`, in `locale`'s plural rules. */
export function render(message, params = {}, locale = lang, count = null) {
  let out = "";
  let i = 0;
  while (i < message.length) {
    const c = message[i];
    if (c === "{") {
      const end = closing(message, i);
      out += argument(message.slice(i + 1, end), params, locale, count);
      i = end + 1;
    } else {
      out += c === "#" && count !== null ? count : c;
      i += 1;
    }
  }
  return out;
}

/** The message `key` in the page's language (English where it has none), filled in. */
export function t(key, params = {}) {
  const message = messages[key];
  if (message === undefined) return key;
  return render(message, params, lang);
}

export const language = () => lang;

/** The language to use: the one picked, else the browser's first we have, else English. */
export function chooseLanguage(picked = localStorage.getItem(KEPT), wanted = navigator.languages || []) {
  if (picked && LANGUAGES[picked]) return picked;
  for (const tag of wanted) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES[primary]) return primary;
  }
  return "en";
}

/** Load the catalogue of the page's language; `<html lang>` set, `[data-i18n]` elements filled
 * (`data-i18n-attr="aria-label"` puts the message in that attribute instead, `data-i18n-title`
 * a message in the title too), the picker added
 * to the header. */
export async function loadLanguage() {
  lang = chooseLanguage();
  const reply = await fetch(`/static/i18n/${lang}.json`);
  messages = await reply.json();
  document.documentElement.lang = lang;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    const text = t(element.dataset.i18n);
    if (element.dataset.i18nAttr) element.setAttribute(element.dataset.i18nAttr, text);
    else element.textContent = text;
    if (element.dataset.i18nTitle) element.title = t(element.dataset.i18nTitle);
  }
  addPicker();
  return lang;
}

function addPicker() {
  const header = document.querySelector("header");
  if (!header || header.querySelector(".language")) return;
  const label = document.createElement("label");
  label.className = "language";
  const words = document.createElement("span");
  words.textContent = t("common.language");
  const select = document.createElement("select");
  select.id = "language";
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    option.selected = code === lang;
    select.append(option);
  }
  select.onchange = () => {
    localStorage.setItem(KEPT, select.value);
    location.reload();
  };
  label.append(words, " ", select);
  header.append(label);
}
