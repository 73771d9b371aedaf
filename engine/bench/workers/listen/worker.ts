/**
 * `npm run bench:listen`'s Worker: the engine with a topic to listen to and a tool that changes it, served with the
 * template's configuration (bench/lib/template-config.mjs) and one limit a fan-out from one machine must lift. Why:
 * every listener of the bench comes from this one address, and an anonymous caller's share of the listeners
 * (`limits.listen.maxPerCaller`, 50 by default) would refuse the 51st. The server's own capacity (`shardCapacity` x
 * `maxShards`) stays the default.
 *
 * A topic is a handle (`topic_<random>`), as the template's example hands out a notebook id: a listener hears of a
 * topic's items only when it names the topic (`topic://<topic>`), and `touch_item` publishes one resources/updated.
 */
import * as z from "zod/mini";
import { createMcpWorker, defineResourceTemplate, defineTool, text } from "../../../src";

const TOPIC = /^topic_[A-Za-z0-9_-]{22}$/;
const topicId = z.string().check(z.regex(TOPIC));

const listen = createMcpWorker<Env>({
  name: "bench-listen",
  version: "1.0.0",
  limits: { listen: { maxPerCaller: 10_000 } },
  tools: [
    defineTool({
      name: "open_topic",
      description: "Returns a new topic's handle.",
      input: z.strictObject({}),
      handler: () => {
        const id = crypto.getRandomValues(new Uint8Array(16)).toBase64({ alphabet: "base64url", omitPadding: true });
        return { structuredContent: { topic: `topic_${id}` } };
      },
    }),
    defineTool({
      name: "touch_item",
      description: "Tells the topic's listeners that one of its items changed.",
      input: z.strictObject({ topic: topicId, item: z.string().check(z.regex(/^[a-z0-9]{1,16}$/)) }),
      async handler({ topic, item }, ctx) {
        await ctx.publish.resourceUpdated(`topic://${topic}/${item}`);
        return { content: [text("touched")] };
      },
    }),
  ],
  resources: [
    defineResourceTemplate({
      uriTemplate: "topic://{topic}/{item}",
      name: "item",
      handles: ["topic"],
      read: (uri) => ({ contents: [{ uri, text: "an item" }] }),
    }),
  ],
});

export default listen;
export class ReplayGuard extends listen.ReplayGuard {}
export class SubscriptionHub extends listen.SubscriptionHub {}
export class LegacySession extends listen.LegacySession {}
export class TaskRunner extends listen.TaskRunner {}
