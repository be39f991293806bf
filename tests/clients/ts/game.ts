// A whole game through a TypeScript client: types from openapi-typescript, calls through openapi-fetch.
// tests/test_clients.py generates schema.d.ts from openapi.yaml, checks this with `tsc --strict` and runs it
// under Node: `node game.js BASE_URL`. It asserts as it goes and prints one JSON line of what it saw.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Game = components["schemas"]["Game"];
type BoxId = components["schemas"]["BoxId"];

const NAMES = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Ñandú", "Анастасия", "Beto", "Ceci"];

async function main(baseUrl: string): Promise<Record<string, unknown>> {
  const client = createClient<paths>({ baseUrl });
  const seen: Record<string, unknown> = {};

  const variants = await client.GET("/api/v1/variants");
  assert.ok(variants.data, "variants");
  seen.variants = variants.data.map((v) => v.id);

  const scored = await client.POST("/api/v1/score", {
    body: { variant: "generala", dice: [3, 3, 3, 5, 5], served: true },
  });
  assert.ok(scored.data, "score");
  seen.full_served = scored.data.options?.find((o) => o.category === "full")?.points;

  const house = await client.POST("/api/v1/score", {
    body: { rules: { base: "generala", straight: "circular", served_bonus: 0 }, dice: [3, 4, 5, 6, 1] },
  });
  assert.ok(house.data?.rules, "house rules");
  seen.circular_straight = house.data.options?.find((o) => o.category === "straight")?.points;

  const bad = await client.POST("/api/v1/score", { body: { variant: "generala", dice: [1, 2, 3, 4, 5, 6] } });
  assert.equal(bad.response.status, 422);
  assert.ok(bad.error && "errors" in bad.error && bad.error.errors, "a validation problem");
  seen.problem = { status: bad.error.status, fields: Object.keys(bad.error.errors).sort() };

  const created = await client.POST("/api/v1/games", { body: { variant: "generala", players: NAMES } });
  assert.ok(created.data, "created");
  const writer = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${created.data.token}` } });
  const boxes: BoxId[] = created.data.boxes.map((b) => b.id);
  let game: Game = created.data;
  let turns = 0;
  while (game.status === "playing") {
    assert.ok(game.turn);
    const { player, round } = game.turn;
    // rounds 1-6: seat s puts (s % 3) + 1 dice of the round's number in its box; later boxes are scratched
    const count = (player % 3) + 1;
    const numbers = round <= 6;
    const dice = numbers
      ? [...Array(count).fill(round), ...[1, 2, 3, 4, 5, 6].filter((d) => d !== round).slice(0, 5 - count)]
      : [1, 2, 3, 4, 6];
    const answer = await writer.POST("/api/v1/games/{game_id}/turns", {
      params: { path: { game_id: game.id }, header: { "Idempotency-Key": randomUUID() } },
      body: { player, category: boxes[round - 1], dice, scratch: !numbers },
    });
    assert.ok(answer.data, JSON.stringify(answer.error));
    game = answer.data;
    turns += 1;
    if (turns === 7) { // undo the seventh turn, then play it again
      const undone = await writer.DELETE("/api/v1/games/{game_id}/turns/last", {
        params: { path: { game_id: game.id } },
      });
      assert.ok(undone.data);
      assert.equal(undone.data.version, game.version + 1);
      assert.equal(undone.data.turn?.player, player);
      game = undone.data;
    }
  }
  seen.turns = turns;
  seen.boxes = boxes.length;
  seen.reason = game.reason;
  seen.totals = game.players.map((p) => p.total);
  seen.names = game.players.map((p) => p.name);

  const polled = await client.GET("/api/v1/games/{game_id}", {
    params: { path: { game_id: game.id }, header: { "If-None-Match": `"${game.version}"` } },
  });
  const fresh = await client.GET("/api/v1/games/{game_id}", {
    params: { path: { game_id: game.id }, header: { "If-None-Match": '"1"' } },
  });
  assert.equal(fresh.data?.version, game.version);
  seen.poll = [polled.response.status, fresh.response.status];

  // A later server may add a variant, a box, an option value, an end reason: the types take any string
  // there (tsc rejects this with closed enums), so such a game type-checks and reads as it comes.
  assert.ok(fresh.data);
  const later: Game = { ...fresh.data, variant: "a-new-variant", reason: "a_new_reason", status: "a_new_status",
                        rules: { ...fresh.data.rules, straight: "a_new_straight" } };
  const newBox: BoxId = "a_new_box";
  later.players[0].sheet[newBox] = 7;
  seen.later = [later.variant, later.reason, later.status, later.rules.straight];

  const pdf = await client.GET("/api/v1/variants/{variant_id}/sheet.pdf", {
    params: { path: { variant_id: "generala" }, query: { players: 6 } },
    parseAs: "arrayBuffer",
  });
  assert.ok(pdf.data instanceof ArrayBuffer);
  seen.pdf = Buffer.from(pdf.data.slice(0, 5)).toString("ascii");
  return seen;
}

const base = process.argv[2];
assert.ok(base, "usage: node game.js BASE_URL");
console.log(JSON.stringify(await main(base)));
