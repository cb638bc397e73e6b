// The lobby's words for what the API names by code: rule sets (`ruleset.<name>.title`,
// `.summary`), their options (`option.<name>`, `option.<name>.meaning`, an allowed value
// `option.<name>.<value>`), bot levels (`bot.<level>`, `bot.<level>.meaning`) and refusals
// (a problem's type, and which field it was about, never the server's developer text). Where
// the catalogue has no message the API's own English words stand in.

import { t } from "./i18n.js";

/** The message `key`, or `fallback` where the catalogue has none. */
function known(key, fallback, params = {}) {
  const text = t(key, params);
  return text === key ? fallback : text;
}

export const rulesetTitle = (name) => known(`ruleset.${name}.title`, name);

/** A rule set's one-line description; the first paragraph of its rules where there is none. */
export const rulesetSummary = (ruleset) => known(`ruleset.${ruleset.name}.summary`, firstParagraph(ruleset.rules));

export const optionName = (name) => known(`option.${name}`, name.replaceAll("_", " "));

export const optionMeaning = (name, schema) => known(`option.${name}.meaning`, schema.description || "");

export const optionValueName = (name, value) => known(`option.${name}.${value}`, String(value).replaceAll("_", " "));

export const botName = (bot) => known(`bot.${bot.name}`, bot.name);

export const botMeaning = (bot) => known(`bot.${bot.name}.meaning`, bot.description);

/** The first paragraph of a rules text (markdown), as plain text. */
function firstParagraph(rules) {
  const paragraphs = rules.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p && !p.startsWith("#"));
  const text = (paragraphs[0] || "").replace(/\s+/g, " ").replace(/[*`]/g, "");
  return text.split(/(?<=\.) /).filter((s) => !/domain\/|\.md\b/.test(s)).join(" ");
}

/** A rules text (markdown) as elements: headings, list items and paragraphs, links and code
 * marks taken out (the rules are the API's, in English). */
export function rulesElements(rules) {
  const plain = (text) => text.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[*`]/g, "").replace(/\s+/g, " ").trim();
  const made = [];
  let list = null;
  for (const block of rules.split(/\n\s*\n/)) {
    const lines = block.trim().split("\n");
    if (!lines[0]) continue;
    if (lines[0].startsWith("#")) {
      list = null;
      const heading = document.createElement("h4");
      heading.textContent = plain(lines[0].replace(/^#+/, ""));
      made.push(heading);
      continue;
    }
    if (/^\s*([-*]|\d+\.) /.test(lines[0])) {
      if (!list) made.push((list = document.createElement("ul")));
      for (const item of block.split(/\n(?=\s*(?:[-*]|\d+\.) )/)) {
        const entry = document.createElement("li");
        entry.textContent = plain(item.replace(/^\s*([-*]|\d+\.) /, ""));
        list.append(entry);
      }
      continue;
    }
    list = null;
    const paragraph = document.createElement("p");
    paragraph.textContent = plain(block);
    made.push(paragraph);
  }
  return made;
}

/** A refusal of the lobby's form in plain words: its type's message, and what to check
 * (the option or the seats it was about) where the server's detail names a field. */
export function problemWords(error) {
  const title = error.slug ? known(`problem.${error.slug}`, "") : "";
  const said = title || t("problem.connection");
  const option = /\boptions\.(\w+)/.exec(error.message || "");
  if (option) return t("lobby.error.option", { problem: said, option: optionName(option[1]) });
  if (/\bseats\b/.test(error.message || "")) return t("lobby.error.seats", { problem: said });
  return said;
}
