// The player signed in in this browser: a registered handle and its key, kept in localStorage
// (so every tab of this origin, the lobby and the play pages, shares it) until the person
// signs out. The key is sent only in an Authorization header (or a game socket's hello): never
// in an address, a form submission or the console.

const KEPT = "tabula:player";
/** A player's key starts so (an app's key or a seat token does not). */
export const PLAYER_KEY = "tabula_pk_";

/** The player signed in here, `{ handle, key }`, or null (a guest). */
export function signedIn() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT) || "null");
    return kept && typeof kept.handle === "string" && typeof kept.key === "string" ? kept : null;
  } catch {
    return null; // storage unreadable or not ours: a guest
  }
}

/** Keep `handle` and its `key` as the player signed in here. */
export function signIn(handle, key) {
  localStorage.setItem(KEPT, JSON.stringify({ handle, key }));
}

/** Forget the player signed in here (the handle stays registered). */
export function signOut() {
  localStorage.removeItem(KEPT);
}
