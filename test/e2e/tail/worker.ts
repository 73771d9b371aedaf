/**
 * A streaming tail consumer for tests: collects every tail event of one invocation of the template (its onset,
 * span opens with their attributes, span closes, logs, its outcome) and, once the invocation is over, POSTs them
 * as one JSON array to COLLECTOR_URL (the test's own HTTP server on 127.0.0.1).
 */
interface CollectorEnv {
  COLLECTOR_URL: string;
}

export default {
  tailStream(onset: TailStream.TailEvent<TailStream.Onset>, env: CollectorEnv) {
    const events: unknown[] = [onset];
    return async (event: TailStream.TailEvent<TailStream.EventType>) => {
      events.push(event);
      if (event.event.type !== "outcome") return;
      // Attribute values may be bigints, which JSON cannot hold.
      const body = JSON.stringify(events, (_key, value) => (typeof value === "bigint" ? value.toString() : value));
      await fetch(env.COLLECTOR_URL, { method: "POST", body, headers: { "content-type": "application/json" } });
    };
  },
} satisfies ExportedHandler<CollectorEnv>;
