/**
 * The one answer validator (src/ask/answers.ts), on its own: every path checks an answer here before anything keeps
 * or consumes it, so what it refuses and what it keeps is what every path refuses and keeps. The paths themselves
 * are tested where they are (test/modern/mrtr.test.ts, test/tasks/answers.test.ts, test/legacy/answers.test.ts).
 */
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { acceptAnswer, askedQuestion, typedAnswer } from "../../src/ask/answers";
import { elicitForm, elicitUrl, listRoots, sample } from "../../src/ask/questions";

const form = elicitForm("Which color?", z.object({ color: z.enum(["red", "blue"]), shade: z.optional(z.int().check(z.minimum(1))) }));
const asked = askedQuestion(form);
const refusal = (answer: unknown, question = asked) => {
  try {
    acceptAnswer("pick", question, answer);
  } catch (error) {
    return { code: (error as { code?: number }).code, message: (error as Error).message };
  }
  return undefined;
};

describe("an answer to a form", () => {
  it("keeps an accepted form's own fields only: a field the form does not define is dropped, not kept or signed", () => {
    expect(acceptAnswer("pick", asked, { action: "accept", content: { color: "red", extra: "x".repeat(1_000) }, more: 1 })).toEqual({
      action: "accept",
      content: { color: "red" },
    });
  });

  it("keeps a declined or cancelled form as its action alone", () => {
    for (const action of ["decline", "cancel"])
      expect(acceptAnswer("pick", asked, { action, content: { color: "red" } })).toEqual({ action });
  });

  it("refuses with -32602 naming where: an action it does not know, content against the schema the client was shown, a non-object", () => {
    expect(refusal({ action: "maybe" })).toEqual({
      code: -32602,
      message: 'Invalid inputResponses: pick.action: must be "accept", "decline" or "cancel"',
    });
    expect(refusal({ action: "accept", content: { color: "green" } })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("pick.content."),
    });
    expect(refusal({ action: "accept", content: { color: "red", shade: 0 } })).toMatchObject({
      code: -32602,
      message: expect.stringContaining("shade"),
    });
    expect(refusal({ action: "accept", content: "red" })).toEqual({
      code: -32602,
      message: "Invalid inputResponses: pick.content: must be an object",
    });
    expect(refusal("accept")).toEqual({ code: -32602, message: "Invalid inputResponses: pick: must be an object" });
  });

  it("refuses text that is not well-formed Unicode, wherever it is in the answer", () => {
    expect(refusal({ action: "accept", content: { color: "\uD800" } })).toMatchObject({ code: -32602 });
  });

  it("hands the handler the content as its own zod schema parses it", () => {
    expect(typedAnswer("pick", form, { action: "accept", content: { color: "blue", shade: 2 } })).toEqual({
      action: "accept",
      content: { color: "blue", shade: 2 },
    });
  });
});

describe("an answer to a URL, a sampling request or a roots request", () => {
  it("keeps a URL's action alone, a sampling answer's message fields, and each root's uri and name", () => {
    expect(acceptAnswer("go", askedQuestion(elicitUrl("Sign in", "https://example.com")), { action: "accept", content: { a: 1 } })).toEqual(
      {
        action: "accept",
      },
    );
    const sampling = askedQuestion(sample({ messages: [], maxTokens: 5 }));
    expect(acceptAnswer("s", sampling, { role: "assistant", content: { type: "text", text: "hi" }, model: "m", extra: true })).toEqual({
      role: "assistant",
      content: { type: "text", text: "hi" },
      model: "m",
    });
    expect(acceptAnswer("r", askedQuestion(listRoots()), { roots: [{ uri: "file:///a", name: "a", secret: "x" }] })).toEqual({
      roots: [{ uri: "file:///a", name: "a" }],
    });
  });

  it("refuses a sampling answer without a model or content, and a root without a uri", () => {
    const sampling = askedQuestion(sample({ messages: [], maxTokens: 5 }));
    expect(refusal({ role: "assistant", content: [], model: "m" }, sampling)).toMatchObject({
      code: -32602,
      message: expect.stringContaining("pick.content"),
    });
    expect(refusal({ role: "assistant", content: { type: "text", text: "hi" } }, sampling)).toMatchObject({
      message: expect.stringContaining(".model"),
    });
    expect(refusal({ roots: [{ name: "a" }] }, askedQuestion(listRoots()))).toMatchObject({
      message: expect.stringContaining(".roots[0]"),
    });
  });
});
