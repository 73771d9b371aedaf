/**
 * @module skills/methods
 * The declared skills, served: `skills/list`, `skills/get`, `resources/directory/read`, `resources/read` of their
 * files, their SKILL.md in `resources/list`, and the announcement of a new version to listeners.
 *
 * Offered only by a Worker with the ASSETS binding (the files and the manifest are static assets): without it the
 * extension is not advertised and its methods are unknown (-32601), as the extension allows.
 *
 * What "a change" is on a Worker: skills change only with a deployment (the build writes a new manifest, whose
 * version is a digest of every file). Each isolate tells the hub once which version it serves; the hub announces a
 * version it has not seen last as `notifications/resources/list_changed` to every listener (skills are resources:
 * their SKILL.md is listed in `resources/list`), whichever isolate or hub shard holds it.
 */

import { listCacheHint, paginate } from "../define/pagination";
import { assetsOf, fetchAsset } from "../define/views";
import type { HttpExchange } from "../http/exchange";
import { GLOBAL_GROUP } from "../listen/groups";
import { hubsOf } from "../listen/hub";
import type { RequestScope } from "../run/request";
import { describeError, log } from "../util/log";
import { memoize } from "../util/memo";
import { invalidParams, methodNotFound, ResourceNotFound, truncate } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { loadCatalog, type SkillCatalog } from "./catalog";
import type { Skill } from "./define";
import { SKILL_SCHEME, skillUriParam } from "./uri";

type Method = (params: JsonObject, scope: RequestScope) => Promise<JsonObject>;

export class Skills {
  /** Built once per isolate from the ASSETS binding's manifest (a failed read is tried again on the next request). */
  private readonly catalogOf = memoize((assets: Fetcher) => loadCatalog(assets, this.declared));
  /** The envs (one per isolate) whose hub has been told which version this isolate serves. */
  private readonly told = new WeakSet<object>();

  constructor(readonly declared: readonly Skill[]) {
    const names = new Set<string>();
    for (const { name } of declared) {
      if (names.has(name)) throw new Error(`Skill "${name}" is declared twice`);
      names.add(name);
    }
  }

  /** Whether this Worker can serve them: the files and the manifest are static assets. */
  offered(env: object): boolean {
    return assetsOf(env) !== undefined;
  }

  /** Whether a `resources/read` URI is one of theirs (everything under `skill://`, which they own). */
  owns(uri: unknown): boolean {
    return typeof uri === "string" && uri.startsWith(SKILL_SCHEME);
  }

  /** SKILL.md of every skill, as `resources/list` shows it (after the declared resources). */
  async listed(env: object): Promise<JsonObject[]> {
    return this.offered(env) ? (await this.catalog(env)).listed : [];
  }

  /** The extension's methods, each unknown (-32601) on a Worker that cannot serve skills. */
  methods(): [string, Method][] {
    const served = (name: string, method: (catalog: SkillCatalog, params: JsonObject, scope: RequestScope) => JsonObject): Method => {
      return async (params, scope) => {
        if (!this.offered(scope.env)) throw methodNotFound(name);
        return method(await this.catalog(scope.env), params, scope);
      };
    };
    return [
      [
        "skills/list",
        served("skills/list", (catalog, params, scope) => {
          const { page, nextCursor } = paginate(catalog.entries, params.cursor, scope.config.limits.skills.pageSize);
          return { skills: page, ...(nextCursor && { nextCursor }), ...listCacheHint(scope.config) };
        }),
      ],
      [
        "skills/get",
        served("skills/get", (catalog, params, scope) => {
          const uri = skillUriParam(params);
          const skill = catalog.bySkillUri.get(uri);
          if (!skill) throw invalidParams(`No skill is served at ${truncate(uri, 200)}`);
          return { skill, ...listCacheHint(scope.config) };
        }),
      ],
      [
        "resources/directory/read",
        served("resources/directory/read", (catalog, params, scope) => {
          const uri = skillUriParam(params);
          const children = catalog.directories.get(uri);
          if (!children) throw invalidParams(`${truncate(uri, 200)} is not a directory resource`);
          const { page, nextCursor } = paginate(children, params.cursor, scope.config.limits.skills.pageSize);
          // ttlMs and cacheScope are not part of this result in the extension's text; the official SDK's client
          // requires them on 2026-07-28, and they are true of it, so it carries them too.
          return { resources: page, ...(nextCursor && { nextCursor }), ...listCacheHint(scope.config) };
        }),
      ],
    ];
  }

  /**
   * `resources/read` of a skill's file: its bytes exactly as built (text when UTF-8, else a base64 blob), so that
   * a host's check of its size and digest passes. A URI the build did not write is not found; one that tries to
   * leave a skill is -32602 naming why.
   */
  async read(params: JsonObject, scope: RequestScope): Promise<JsonObject> {
    const uri = skillUriParam(params);
    const found = this.offered(scope.env) ? (await this.catalog(scope.env)).files.get(uri) : undefined;
    if (!found) throw new ResourceNotFound(truncate(uri, 2048));
    const { asset, file } = found;
    const bytes = new Uint8Array(await (await fetchAsset(assetsOf(scope.env)!, asset)).arrayBuffer());
    // Why: a copy changed after the build no longer matches the digest published for it. Comparing sizes costs
    // nothing per request (nothing is hashed) and stops most such copies; the tests compare every digest.
    if (bytes.byteLength !== file.size) throw new Error(`Skill file ${asset} changed since the build: rebuild`);
    const content = file.text
      ? { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) }
      : { blob: bytes.toBase64() };
    return { contents: [{ uri, mimeType: file.mimeType, ...content }], ...listCacheHint(scope.config) };
  }

  /**
   * Tells the hub, once per isolate, which version of the skills it serves (after the response: never on the
   * request's path). Does nothing without the hub or the assets.
   */
  announce(exchange: HttpExchange): void {
    const { env } = exchange;
    // Why a set and not a memoized promise: after the first request there is nothing to wait for, so nothing to hand
    // to waitUntil on every later one.
    if (this.told.has(env) || !hubsOf(env) || !this.offered(env)) return;
    this.told.add(env);
    exchange.execution.waitUntil(this.tellHub(env));
  }

  private catalog(env: object): Promise<SkillCatalog> {
    return this.catalogOf(assetsOf(env)!);
  }

  /**
   * Best effort, tried once per isolate: a failure is logged, and the other isolates serving this version tell the
   * hub too (each does once), so the hub learns it from any of them.
   */
  private async tellHub(env: object): Promise<void> {
    try {
      const { version } = await this.catalog(env);
      await hubsOf(env)!.getByName(GLOBAL_GROUP).publishOnChange("skills", version, { type: "resources_list_changed" });
    } catch (error) {
      log(undefined, "error", "skills version announcement failed", describeError(error));
    }
  }
}
