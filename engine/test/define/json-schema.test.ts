/**
 * Tool inputs declared as raw JSON Schema 2020-12 (`jsonSchema({...})`): listed verbatim, validated with
 * `@cfworker/json-schema` in workerd (no `new Function`), with errors the model can read.
 */
import { describe, expect, it } from "vitest";
import { defineTool, jsonSchema, text } from "../../src";
import { testServer } from "../helpers/rpc";

const contact = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  properties: {
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword (if/then/else), not a promise.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

const server = testServer({
  name: "json-schema-test",
  tools: [
    defineTool({
      name: "contact",
      description: "Takes a contact described by a raw JSON Schema.",
      input: jsonSchema(contact),
      handler: (args) => ({ content: [text(`ok ${JSON.stringify(args)}`)] }),
    }),
  ],
});

describe("JSON Schema tool inputs", () => {
  it("tools/list shows the schema verbatim, keywords and all", async () => {
    const { tools } = await server.call<{ tools: { inputSchema: unknown }[] }>("tools/list");
    expect(tools[0]!.inputSchema).toEqual(contact);
  });

  it("valid arguments reach the handler as sent", async () => {
    const args = { contactMethod: "phone", phone: "555", address: { city: "Oslo" } };
    const result = await server.call("tools/call", { name: "contact", arguments: args });
    expect(result).toMatchObject({ content: [{ text: `ok ${JSON.stringify(args)}` }] });
    expect(result.isError).toBeUndefined();
  });

  it("if/then/else, $ref and additionalProperties are enforced, as a tool error the model can read", async () => {
    for (const [args, problem] of [
      [{ contactMethod: "phone", email: "a@b" }, '"phone"'],
      [{ email: "a@b", address: {} }, '"city"'],
      [{ email: "a@b", fax: "1" }, '"fax"'],
    ] as const) {
      const result = await server.call("tools/call", { name: "contact", arguments: args });
      expect(result, JSON.stringify(args)).toMatchObject({ isError: true, content: [{ text: expect.stringContaining(problem) }] });
    }
  });

  it("a JSON Schema input without an object root is refused at declaration", () => {
    expect(() => jsonSchema({ type: "string" })).toThrow(/type "object"/);
  });

  it("a plain object as input (not wrapped in jsonSchema) stops the server at startup", () => {
    const tool = defineTool({ name: "bad", description: "x", input: { type: "object" } as never, handler: () => ({}) });
    expect(() => testServer({ name: "bad-input", tools: [tool] })).toThrow(/zod object or jsonSchema/);
  });
});
