// Making page elements: shared by the lobby and the tournament page.

export const $ = (id) => document.getElementById(id);

/** A new element: `text` sets its text, `className` its class, any other attribute is set
 * unless false, null or undefined (true sets it empty); children are appended. */
export function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") made.textContent = value;
    else if (name === "className") made.className = value;
    else if (value !== false && value !== null && value !== undefined) made.setAttribute(name, value === true ? "" : value);
  }
  made.append(...children);
  return made;
}

/** The address of a tournament's page, with a token (and whose it is) in the fragment. */
export function tournamentLink(id, token = null, as = null) {
  const page = `${location.origin}/tournaments/${id}/view`;
  return token ? `${page}#token=${encodeURIComponent(token)}&as=${as}` : page;
}
