/**
 * A 2025 client's answers to the server's questions (server-to-client requests), each POSTed on its own: the session
 * takes an answer only to a question it opened, hands it to the tool waiting for it, and keeps one that came before
 * its tool waited, as JSON text, within `MAX_EARLY_ANSWER_BYTES`. Through the real Worker (with a namespace that
 * holds the tool's wait when the race must be forced), and on the session's object for its bounds.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_EARLY_ANSWER_BYTES, QUESTION_ID } from "../../src/legacy/session";
import { FIXTURE } from "../helpers/fixture";
import { BASE, confirmThree, rpc } from "../helpers/legacy-asking";
import { type Json, readMessage, sessionName, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";

const DEFINITION = { ...FIXTURE, tools: [...(FIXTURE.tools ?? []), confirmThree] };

/**
 * A LEGACY_SESSIONS namespace whose stubs hold every `awaitResponse` until `release()`: a client's answer then
 * reaches the session before its tool waits for it, the race the session's early answers exist for.
 */
function heldWaits() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = 0;
  const namespace = {
    getByName(name: string) {
      const stub = env.LEGACY_SESSIONS.getByName(name) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return new Proxy(
        {},
        {
          get: (_target, method) =>
            method === "then"
              ? undefined
              : async (...args: unknown[]) => {
                  if (method === "awaitResponse") {
                    held++;
                    await released;
                  }
                  return stub[String(method)]!(...args);
                },
        },
      );
    },
  };
  /** Resolves once `count` waits are held (bounded, a bound on a hang: fails the test after 10 s). */
  async function holding(count: number) {
    await expect.poll(() => held, { timeout: 10_000, interval: 10 }).toBe(count);
  }
  return { namespace: namespace as unknown as string, release, holding };
}

type Server = ReturnType<typeof testServer>;

function legacy(server: Server, body: unknown, session?: string) {
  return server.post(body, { ...BASE, "mcp-protocol-version": "2025-11-25", ...(session && { "mcp-session-id": session }) });
}

/** A session stored at initialize: the client declares elicitation, so the server may ask it questions. */
async function openSession(server: Server): Promise<string> {
  const init = rpc("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: {} },
    clientInfo: { name: "answers-test", version: "1" },
  });
  const response = await legacy(server, init);
  await readMessage(response);
  const session = response.headers.get("mcp-session-id")!;
  expect((await legacy(server, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202);
  return session;
}

/** POSTs the client's answer to the server's question `id`; the response as the server gave it. */
const answer = (server: Server, session: string, id: unknown, result: Json) => legacy(server, { jsonrpc: "2.0", id, result }, session);

/** A JSON-RPC response of about 1 MB whose result is an array of empty objects: its text is small, its objects are not. */
/**
 * An answer of about 1 MB: `elements` empty objects (the shape of the finding, which costs far more parsed than its
 * bytes; over limits.request.maxJsonElements it is refused before it is parsed), the rest a long string.
 */
function hostileAnswer(id: string, elements = 60_000): string {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"a":[${"{},".repeat(elements - 1)}{}],"b":"`;
  return `${head}${"x".repeat(1_040_000 - head.length - 4)}"}}`;
}

/** The questions a session's object holds open, and the memory it counts for their early answers. */
async function held(session: string) {
  return runInDurableObject(env.LEGACY_SESSIONS.getByName(sessionName(session)), async (instance) => {
    const inside = instance as unknown as { questions: Map<string, unknown>; earlyAnswerBytes(): number };
    return { open: inside.questions.size, bytes: inside.earlyAnswerBytes() };
  });
}

describe("2025: a client's answer to a question its session never asked", () => {
  const server = testServer(DEFINITION);

  it("is refused with 400 and kept nowhere: 8 answers of about 1 MB each with made-up ids, in a session stored at initialize", async () => {
    const session = await openSession(server);
    // Ids of any shape, and ids of the very shape the session mints: none of them was asked.
    const ids = [
      ...Array.from({ length: 4 }, (_, index) => `made-up-${index}`),
      ...Array.from({ length: 4 }, () => `srv-${crypto.randomUUID()}`),
    ];
    for (const id of ids) {
      const response = await legacy(server, hostileAnswer(id), session);
      expect(response.status, id).toBe(400);
      expect((await response.json()) as Json, id).toMatchObject({
        error: { code: -32600, message: "Invalid Request: this session has no open question with that id" },
      });
    }
    expect(await held(session)).toEqual({ open: 0, bytes: 0 });
  });

  it("is refused before it is parsed when it holds more array elements than limits.request.maxJsonElements", async () => {
    const session = await openSession(server);
    const response = await legacy(server, hostileAnswer("made-up", 340_000), session);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700, message: "Parse error: more than 100000 array elements" } });
    expect(await held(session)).toEqual({ open: 0, bytes: 0 });
  });

  it("is refused when the question is another session's, and that session's tool still gets the answer", async () => {
    const asking = await openSession(server);
    const other = await openSession(server);
    const stream = sseReader(await legacy(server, rpc("tools/call", { name: "ask", arguments: { kind: "form" } }, "theirs"), asking));
    const question = (await stream.message()) as Json;
    expect(question.id).toMatch(QUESTION_ID);
    expect((await answer(server, other, question.id, { action: "accept", content: { ok: false } })).status).toBe(400);
    expect((await answer(server, asking, question.id, { action: "accept", content: { ok: true } })).status).toBe(202);
    expect(await stream.message()).toMatchObject({ id: "theirs", result: { content: [{ text: "form: accept ok=true" }] } });
    expect(await held(other)).toEqual({ open: 0, bytes: 0 });
  });

  it("is refused once the question is answered: a second answer to it gets 400", async () => {
    const session = await openSession(server);
    const stream = sseReader(await legacy(server, rpc("tools/call", { name: "ask", arguments: { kind: "form" } }, "twice"), session));
    const question = (await stream.message()) as Json;
    expect((await answer(server, session, question.id, { action: "decline" })).status).toBe(202);
    expect(await stream.message()).toMatchObject({ id: "twice", result: { content: [{ text: "form: decline" }] } });
    expect((await answer(server, session, question.id, { action: "accept", content: { ok: true } })).status).toBe(400);
    expect(await held(session)).toEqual({ open: 0, bytes: 0 });
  });
});

describe("2025: a client's answer that reaches the session before its tool waits for it", () => {
  it("is kept, and reaches the tool once it waits", async () => {
    const gate = heldWaits();
    const server = testServer(DEFINITION, { LEGACY_SESSIONS: gate.namespace });
    const session = await openSession(server);
    const stream = sseReader(await legacy(server, rpc("tools/call", { name: "ask", arguments: { kind: "form" } }, "early"), session));
    const question = (await stream.message()) as Json;
    await gate.holding(1);
    expect((await answer(server, session, question.id, { action: "accept", content: { ok: true } })).status).toBe(202);
    expect((await held(session)).open).toBe(1);
    gate.release();
    expect(await stream.message()).toMatchObject({ id: "early", result: { content: [{ text: "form: accept ok=true" }] } });
    expect(await held(session)).toEqual({ open: 0, bytes: 0 });
  });

  it(`is refused with 413 when the early answers would pass ${MAX_EARLY_ANSWER_BYTES} bytes in memory, and its tool gets an error (a cancelled form) at once`, async () => {
    const gate = heldWaits();
    const server = testServer(DEFINITION, { LEGACY_SESSIONS: gate.namespace });
    const session = await openSession(server);
    const stream = sseReader(await legacy(server, rpc("tools/call", { name: "confirm_three", arguments: {} }, "three"), session));
    const questions = [(await stream.message()) as Json, (await stream.message()) as Json, (await stream.message()) as Json];
    await gate.holding(3);
    // Each answer is counted at 2 bytes per character: two of these fit the budget, a third does not.
    const padding = "x".repeat(Math.floor(MAX_EARLY_ANSWER_BYTES / 5));
    const statuses = [];
    for (const question of questions) {
      const response = await answer(server, session, question.id, { action: "accept", content: { ok: true, padding } });
      statuses.push(response.status);
      if (response.status !== 202) expect(((await response.json()) as Json).error).toMatchObject({ code: -32600 });
    }
    expect(statuses).toEqual([202, 202, 413]);
    const { bytes } = await held(session);
    expect(bytes).toBeGreaterThan(MAX_EARLY_ANSWER_BYTES / 2);
    expect(bytes).toBeLessThanOrEqual(MAX_EARLY_ANSWER_BYTES);
    gate.release();
    const refused = /Sure about (\w)\?/.exec(String((questions[2]!.params as Json).message))![1];
    const expected = ["a", "b", "c"].map((key) => `${key}=${key === refused ? "cancel" : "accept"}`).join(" ");
    expect(await stream.message()).toMatchObject({ id: "three", result: { content: [{ text: expected }] } });
    expect(await held(session)).toEqual({ open: 0, bytes: 0 });
  });
});

describe("2025: the session's open questions, on its object", () => {
  const session = () => env.LEGACY_SESSIONS.getByName(`questions-${crypto.randomUUID()}`);
  const response = (id: string, extra = "") => JSON.stringify({ jsonrpc: "2.0", id, result: { roots: [], extra } });
  const parsed = async (text: Promise<string>) => JSON.parse(await text) as Json;
  type Stub = ReturnType<typeof session>;
  /** Opens a question of the request `requestId`, each in a wait of its own, in a session with room for them all. */
  const openQuestion = async (stub: Stub, requestId: string | number, timeoutMs: number) =>
    (await stub.openQuestion(requestId, timeoutMs, crypto.randomUUID(), 1_000))!;

  it("mints every question's id in the one shape a client's answer is checked against", async () => {
    const stub = session();
    const ids = await Promise.all([openQuestion(stub, 1, 60_000), openQuestion(stub, 1, 60_000)]);
    for (const id of ids) expect(id).toMatch(QUESTION_ID);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it("hands an answer to the tool waiting for it, and keeps nothing", async () => {
    const stub = session();
    const id = await openQuestion(stub, 1, 60_000);
    const waiting = stub.awaitResponse(id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await stub.deliver(id, response(id))).toBe("delivered");
    expect(await waiting).toBe(response(id));
    expect(await stub.deliver(id, response(id))).toBe("unknown");
  });

  it("keeps an answer to an open question for the tool about to wait, and hands it over once", async () => {
    const stub = session();
    const id = await openQuestion(stub, 1, 60_000);
    expect(await stub.deliver(id, response(id))).toBe("kept");
    expect(await stub.deliver(id, response(id, "second"))).toBe("unknown");
    expect(await stub.awaitResponse(id)).toBe(response(id));
    expect(await parsed(stub.awaitResponse(id))).toMatchObject({ id, error: { message: "The question is not open" } });
  });

  it("refuses an answer to an id it never minted", async () => {
    const stub = session();
    await openQuestion(stub, 1, 60_000);
    expect(await stub.deliver(`srv-${crypto.randomUUID()}`, response("x"))).toBe("unknown");
    expect(await stub.deliver("1", response("1"))).toBe("unknown");
  });

  it(`keeps early answers only within ${MAX_EARLY_ANSWER_BYTES} bytes (2 per UTF-16 unit); one past it gets its tool an error instead`, async () => {
    const stub = session();
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => openQuestion(stub, 1, 60_000)));
    // Two answers that take the budget to its last 400 bytes (200 units), then one of 201 units that passes it.
    const quarter = MAX_EARLY_ANSWER_BYTES / 4;
    const fill = (id: string, units: number) => response(id, "x".repeat(units - response(id).length));
    expect(await stub.deliver(first!, fill(first!, quarter))).toBe("kept");
    expect(await stub.deliver(second!, fill(second!, quarter - 200))).toBe("kept");
    expect(await stub.deliver(third!, fill(third!, 201))).toBe("too-large");
    expect(await parsed(stub.awaitResponse(third!))).toMatchObject({
      id: third,
      error: { code: -32603, message: expect.stringContaining("did not fit") },
    });
    expect(await stub.awaitResponse(first!)).toBe(fill(first!, quarter));
    // The first answer's memory is free again once its tool took it.
    const fourth = await openQuestion(stub, 1, 60_000);
    expect(await stub.deliver(fourth, fill(fourth, quarter))).toBe("kept");
  });

  it("hands a waiting tool an answer of any size: only early answers count against the budget", async () => {
    const stub = session();
    const id = await openQuestion(stub, 1, 60_000);
    const waiting = stub.awaitResponse(id);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const large = response(id, "x".repeat(MAX_EARLY_ANSWER_BYTES / 2));
    expect(await stub.deliver(id, large)).toBe("delivered");
    expect((await waiting).length).toBe(large.length);
  });

  it("forgets a question and its early answer when it times out before its tool waits", async () => {
    const stub = session();
    // Opened and answered in one turn of the object: its 50 ms cannot run out in between, however busy the machine.
    const id = await runInDurableObject(stub, async (instance) => {
      const opened = (await instance.openQuestion(1, 50, crypto.randomUUID(), 1_000))!;
      expect(await instance.deliver(opened, response(opened))).toBe("kept");
      return opened;
    });
    const questions = () =>
      runInDurableObject(stub, (instance) => (instance as unknown as { questions: Map<string, unknown> }).questions.size);
    await expect.poll(questions, { timeout: 10_000, interval: 20 }).toBe(0);
    expect(await parsed(stub.awaitResponse(id))).toMatchObject({ error: { message: "The question is not open" } });
  });

  it("answers a waiting tool with an error when its question times out", async () => {
    const stub = session();
    // The tool waits in the turn that opened the question: its 50 ms cannot run out before it waits.
    const { id, outcome } = await runInDurableObject(stub, async (instance) => {
      const opened = (await instance.openQuestion(1, 50, crypto.randomUUID(), 1_000))!;
      return { id: opened, outcome: await instance.awaitResponse(opened) };
    });
    expect(JSON.parse(outcome)).toMatchObject({ id, error: { message: "The client did not answer in time" } });
  });

  it("replaces an early answer with the cancellation when the client cancels the request that asked", async () => {
    const stub = session();
    const id = await openQuestion(stub, "call-7", 60_000);
    const other = await openQuestion(stub, "call-8", 60_000);
    expect(await stub.deliver(id, response(id))).toBe("kept");
    await stub.cancel("call-7");
    expect(await parsed(stub.awaitResponse(id))).toMatchObject({ id, error: { data: { cancelled: true } } });
    expect(await stub.deliver(other, response(other))).toBe("kept");
  });

  it("forgets its open questions when the session ends, and tells a waiting tool", async () => {
    const stub = session();
    const waited = await openQuestion(stub, 1, 60_000);
    const early = await openQuestion(stub, 1, 60_000);
    const waiting = stub.awaitResponse(waited);
    expect(await stub.deliver(early, response(early))).toBe("kept");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await stub.end();
    expect(await parsed(waiting)).toMatchObject({ id: waited, error: { message: "The session ended" } });
    expect(await parsed(stub.awaitResponse(early))).toMatchObject({ error: { message: "The question is not open" } });
  });
});
