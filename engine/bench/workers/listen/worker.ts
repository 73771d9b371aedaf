/**
 * `npm run bench:listen`'s Worker: the template as shipped (its declarations, every Durable Object class), with the
 * one limit a fan-out from one machine must lift. Why: every listener of the bench comes from this one address, and
 * an anonymous caller's share of the listeners (`limits.listen.maxPerCaller`, 50 by default) would refuse the 51st.
 * The server's own capacity (`shardCapacity` x `maxShards`) stays the template's default.
 */

import { definition } from "../../../../src/index";
import { createMcpWorker } from "../../../src";

const listen = createMcpWorker<Env>({ ...definition, limits: { listen: { maxPerCaller: 10_000 } } });

export default listen;
export class ReplayGuard extends listen.ReplayGuard {}
export class SubscriptionHub extends listen.SubscriptionHub {}
export class LegacySession extends listen.LegacySession {}
export class TaskRunner extends listen.TaskRunner {}
export { Notebook } from "../../../../src/notes";
