/**
 * Where the engine's tests find listeners in the hubs (see src/listen/groups.ts): the group anonymous test
 * requests are counted in, and a wait for a 2025 session's GET stream to join.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { callerGroup, GLOBAL_GROUP } from "../src/listen/groups";
import { ANONYMOUS } from "../src/wire/principal";
import { sessionName } from "./helpers/rpc";

/** The group anonymous test requests are counted in: one per client network, and they carry no `cf-connecting-ip` (the one shared `unknown` caller). */
export const ANONYMOUS_CALLERS = callerGroup(ANONYMOUS, "unknown");

/** The session sockets earlier waits saw: a stream that replaces another must be a socket not among them. */
const seen = new WeakSet<WebSocket>();

/**
 * Waits (bounded) until a 2025 session's GET stream has joined the hubs. Its client cannot tell (the stream sends
 * nothing until an event), so a test that publishes right after opening it waits here first. The global group is
 * joined last. Why "a socket not seen before": a stream that replaces the session's previous one must not be taken
 * for joined while the previous one's socket is still there. Fails loudly at the deadline rather than letting the
 * test publish to nobody and time out somewhere else.
 */
export async function sessionStreamAttached(session: string): Promise<void> {
  const hub = env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP);
  const joined = () =>
    runInDurableObject(hub, (_instance, state) => {
      const fresh = state.getWebSockets(`s:${sessionName(session)}`).filter((socket) => !seen.has(socket));
      for (const socket of fresh) seen.add(socket);
      return fresh.length > 0;
    });
  const deadline = Date.now() + 10_000;
  while (!(await joined())) {
    if (Date.now() > deadline) throw new Error(`the GET stream of session ${session} did not join the hubs within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
