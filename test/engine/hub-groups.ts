/**
 * Where the engine's tests find listeners in the hubs (see src/mcp/listen/groups.ts): the group anonymous test
 * requests are counted in, and a wait for a 2025 session's GET stream to join.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { callerGroup, GLOBAL_GROUP } from "../../src/mcp/listen/groups";
import { ANONYMOUS } from "../../src/mcp/wire/principal";
import { sessionName } from "../helpers/rpc";

/** The group anonymous test requests are counted in: one per client address, and they carry no `cf-connecting-ip`. */
export const ANONYMOUS_CALLERS = callerGroup(ANONYMOUS, "ip:unknown");

/** The sockets a 2025 session's GET streams hold in the global hub now (the hub runs in the test's isolate). */
export function sessionSockets(session: string): Promise<WebSocket[]> {
  return runInDurableObject(env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP), (_instance, state) =>
    state.getWebSockets(`s:${sessionName(session)}`),
  );
}

/**
 * Waits (bounded) until a 2025 session's GET stream has joined the hubs. Its client cannot tell (the stream sends
 * nothing until an event), so a test that publishes right after opening it waits here first. The global group is
 * joined last. A stream that replaces an open one passes the sockets held before it opened (`sessionSockets`): the
 * old stream's socket stays in the hub until the new one has joined, so "a socket is there" says nothing about the
 * new stream, and a publish sent then could miss it.
 */
export async function sessionStreamAttached(session: string, before: WebSocket[] = []): Promise<void> {
  const attached = async () => (await sessionSockets(session)).some((socket) => !before.includes(socket));
  const deadline = Date.now() + 2_000;
  while (!(await attached()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}
