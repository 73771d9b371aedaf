import { describe, expect, it } from "vitest";
import { call, send, readMessage } from "../helpers/rpc";

describe("smoke", () => {
  it("discovers", async () => {
    const result = await call("server/discover");
    console.log(JSON.stringify(result));
    const tools = await call("tools/list");
    console.log(JSON.stringify(tools).slice(0, 3000));
    const nb = await call<any>("tools/call", { name: "create_notebook", arguments: { title: "T" } });
    console.log(JSON.stringify(nb));
    const id = nb.structuredContent.notebook_id;
    const add = await call<any>("tools/call", { name: "add_note", arguments: { notebook_id: id, title: "Invoices", body: "Pay the March invoices. Then relax.", tags: ["work"] } });
    console.log(JSON.stringify(add));
    console.log(JSON.stringify(await call("tools/call", { name: "search_notes", arguments: { notebook_id: id, query: "march" } })));
    const del1 = await call<any>("tools/call", { name: "delete_note", arguments: { notebook_id: id, note_id: add.structuredContent.id } }, { capabilities: { elicitation: {} } });
    console.log(JSON.stringify(del1));
    const del2 = await call<any>("tools/call", { name: "delete_note", arguments: { notebook_id: id, note_id: add.structuredContent.id }, inputResponses: { confirm: { action: "accept", content: { delete: true } } }, requestState: del1.requestState }, { capabilities: { elicitation: {} } });
    console.log(JSON.stringify(del2));
    const del3 = await send("tools/call", { name: "delete_note", arguments: { notebook_id: id, note_id: add.structuredContent.id }, inputResponses: { confirm: { action: "accept", content: { delete: true } } }, requestState: del1.requestState }, { capabilities: { elicitation: {} } });
    console.log(JSON.stringify(await readMessage(del3)));
    console.log(JSON.stringify(await call("resources/templates/list")));
    console.log(JSON.stringify(await call("prompts/list")));
    expect(result).toBeTruthy();
  });
});
