// Scoring a roll with no connection, from the game's scoring table
// (GET /api/v1/games/{id}/scoring). The table is the engine's own judgement
// of every group of five dice under the game's rules; this only reads it, as
// the engine reads a judgement: the free boxes (of the first group of a forced
// joker's `order` that has one), those with points, best first, ties in sheet
// order. No rule lives here: a test holds this equal to /api/v1/score.

/** The /score answer's fields for one group of dice on ``sheet``, or null when the table cannot say. */
export function scoreOffline(table, dice, served, sheet) {
  if (!table || table.version !== 1 || dice.length !== table.group) return null;
  const key = [...dice].sort((a, b) => a - b).join("") + (served && table.served_matters ? "s" : "");
  const cases = table.rolls[key];
  if (!cases) return null;
  const state = (id) => (sheet[id] == null ? "free" : sheet[id] === 0 ? "zero" : "points");
  const judged = cases.find((c) => Object.entries(c.when).every(([id, s]) => state(id) === s));
  if (!judged) return null;
  let free = table.boxes.filter((id) => sheet[id] == null);
  if (judged.order) {
    const group = judged.order.find((g) => g.some((id) => free.includes(id))) || [];
    free = free.filter((id) => group.includes(id));
  }
  const at = (id) => table.boxes.indexOf(id);
  const options = free.map((id) => ({ category: id, points: judged.points[at(id)] }))
    .filter((o) => o.points > 0)
    .sort((a, b) => b.points - a.points || at(a.category) - at(b.category));
  const answer = { instant_win: judged.win, options, scratch: free };
  if (judged.bonus) answer.bonus = judged.bonus;
  return answer;
}
