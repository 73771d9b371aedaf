/**
 * OAUTH_STATE as a Worker under test sees it, with a hand on its calls: a test can hold the next write of a key at the
 * object's door until it lets it through, and wait for the next call of a method. So two requests that race are run in
 * the one order the test wants, every time, rather than in whatever order the runtime happens to pick: no pause, no
 * timing. Every call goes to the real objects (src/oauth/state.ts); nothing is answered here.
 */
import type { OAuthState } from "../../src/oauth/state";

type Namespace = DurableObjectNamespace<OAuthState>;

/** A write held at the door: `caught` resolves once it waits there; `release()` lets it through. */
export interface HeldWrite {
  caught: Promise<void>;
  release(): void;
}

export interface GatedState {
  /** The namespace to give the Worker as its OAUTH_STATE. */
  namespace: Namespace;
  /** Holds the next `put` of a key starting with `prefix`, on any object, until `release()`. */
  holdNextWrite(prefix: string): HeldWrite;
  /** Resolves when `method` is next called on any object (the call itself goes on). */
  nextCall(method: string): Promise<void>;
}

interface Gate {
  prefix: string;
  caught: () => void;
  open: Promise<void>;
}

export function gatedState(namespace: Namespace): GatedState {
  const gates: Gate[] = [];
  const callWatchers = new Map<string, (() => void)[]>();

  /** The gate the write of `key` must wait at, taken off the list: each gate holds one write. */
  const gateFor = (key: string): Gate | undefined => {
    const index = gates.findIndex((gate) => key.startsWith(gate.prefix));
    return index === -1 ? undefined : gates.splice(index, 1)[0];
  };

  const watched = (stub: DurableObjectStub<OAuthState>): DurableObjectStub<OAuthState> =>
    new Proxy(stub, {
      get(target, property) {
        const member = Reflect.get(target, property);
        if (typeof property !== "string" || typeof member !== "function") return member;
        return async (...args: unknown[]) => {
          for (const watcher of callWatchers.get(property)?.splice(0) ?? []) watcher();
          const gate = property === "put" && typeof args[0] === "string" ? gateFor(args[0]) : undefined;
          if (gate) {
            gate.caught();
            await gate.open;
          }
          // Called on the stub, not `apply`d: an RPC method is not a plain function.
          return (target as unknown as Record<string, (...given: unknown[]) => unknown>)[property]!(...args);
        };
      },
    });

  const gated = new Proxy(namespace, {
    get(target, property) {
      if (property === "get") {
        return (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => watched(target.get(id, options));
      }
      const member = Reflect.get(target, property);
      return typeof member === "function" ? member.bind(target) : member;
    },
  });

  return {
    namespace: gated,
    holdNextWrite(prefix) {
      let release = () => {};
      let caught = () => {};
      const open = new Promise<void>((resolve) => {
        release = resolve;
      });
      const waiting = new Promise<void>((resolve) => {
        caught = resolve;
      });
      gates.push({ prefix, caught, open });
      return { caught: waiting, release };
    },
    nextCall(method) {
      return new Promise<void>((resolve) => {
        callWatchers.set(method, [...(callWatchers.get(method) ?? []), resolve]);
      });
    },
  };
}
