// Who plays with whom (Partners' `teams` in the state view): each team's colours side by
// side and its players named, "Ann and Cat play together"; the caller's own team first said
// as theirs. And the way back from a tournament's game to its tournament.

import { t } from "./i18n.js";
import { swatch } from "./table.js";
import { seatName } from "./words.js";

const colourOf = (state, seat) => (state.seats.find((s) => s.seat === seat) || {}).colour || "";

/** Fill `list` with one item per team of `state` (hidden when the game has no teams). */
export function renderTeams(list, state, me = null) {
  const teams = state.teams || [];
  list.hidden = teams.length === 0;
  list.replaceChildren(...teams.map((team) => {
    const item = document.createElement("li");
    item.className = "team";
    item.dataset.team = team.join(",");
    const colours = document.createElement("span");
    colours.className = "team-colours";
    colours.append(...team.map((seat) => swatch(colourOf(state, seat))));
    const [first, second] = team.map((seat) => seatName(state.seats, seat));
    const partner = team.includes(me) ? seatName(state.seats, team.find((s) => s !== me)) : null;
    const words = partner === null ? t("teams.together", { first, second }) : t("teams.you", { partner });
    item.append(colours, " ", words);
    return item;
  }));
}

/** Point `link` at the tournament the game of `log` (its events, GameCreated first) is a table
 * of, shown only then. */
export function linkTournament(link, log) {
  const created = log.find((e) => e.type === "GameCreated");
  const tags = (created && created.data.tags) || {};
  link.hidden = !tags.tournament;
  if (!tags.tournament) return;
  link.href = `/tournaments/${encodeURIComponent(tags.tournament)}/view`;
  link.textContent = tags.round ? t("teams.tournamentRound", { round: tags.round, table: tags.table || "" }) : t("teams.tournament");
}
