/**
 * Properties for the two rules that keep callers' data apart and stored as sent (faults found by an adversarial
 * pass): a subscription covers a sub-resource only when it names the resource's handle, and text that is not
 * well-formed Unicode is refused before anything stores it. Seeds and counts are printed; replay with `FC_SEED=<seed> FC_RUNS=<count> npm test`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileUriTemplate } from "../../src/define/uri-template";
import { covers } from "../../src/listen/hub";
import { readMessage, send } from "../helpers/rpc";
import { seedFor } from "../helpers/seed";
import { handleId, shortOf, valueWithLoneSurrogate } from "./generators";

const notes = compileUriTemplate("note://{notebook_id}/{note_id}", ["notebook_id"]);

describe("fuzzing the handle rule and well-formed text", () => {
  it("no subscription that stops short of a note's notebook id covers the note, and every one that names it does (3,000 cases in CI)", () => {
    const { seed, numRuns } = seedFor("handle-prefixes", 3_000);
    fc.assert(
      fc.property(handleId, handleId, (notebook, note) => {
        const uri = `note://${notebook}/${note}`;
        const handle = notes.handlePart(uri)!;
        expect(handle).toBe(`note://${notebook}`);
        fc.assert(
          fc.property(shortOf(handle), (subscribed) => {
            expect(covers(subscribed, uri, handle)).toBe(false);
          }),
          { numRuns: 5, seed },
        );
        // Naming the notebook covers its notes; so does naming the note itself.
        for (const subscribed of [handle, `${handle}/`, uri]) expect(covers(subscribed, uri, handle)).toBe(true);
      }),
      { seed, numRuns },
    );
  });

  it("any tool arguments holding a lone surrogate, anywhere, get an isError result and are never run (300 cases in CI)", {
    timeout: 60_000,
  }, async () => {
    const { seed, numRuns } = seedFor("lone-surrogates", 300);
    await fc.assert(
      fc.asyncProperty(valueWithLoneSurrogate, async (bad) => {
        const args = { key: "fuzz-lone", value: bad };
        const message = await readMessage(await send("tools/call", { name: "put", arguments: args }));
        expect(message.result).toMatchObject({ isError: true });
        expect((message.result!.content as { text: string }[])[0]!.text).toMatch(/is not well-formed Unicode/);
      }),
      { seed, numRuns },
    );
    // `put` never ran: nothing is stored under its key.
    const read = await readMessage(await send("resources/read", { uri: "fixture://values/fuzz-lone" }));
    expect(read.error?.message).toBe("Resource not found");
  });
});
