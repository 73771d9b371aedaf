/**
 * @module define/uri-template
 * Matching URIs against RFC 6570 level-1 templates (`note://{notebook_id}/{note_id}`): each variable matches
 * one non-empty path segment, percent-decoded. Operators such as `{+path}` are refused at startup.
 *
 * A template also says which of its variables are handles (capabilities: unguessable ids a caller must already
 * hold, such as `notebook_id`). `handlePart` is the beginning of a URI up to its last handle: a subscription may
 * match the URI's sub-resources only when it names at least that much (see `listen/hub.ts`, `covers`).
 */

export interface UriTemplate {
  variables: string[];
  match(uri: string): Record<string, string> | undefined;
  /**
   * The prefix of `uri` that ends with its last handle variable: `note://nb_1` for `note://nb_1/n_2` when
   * `notebook_id` is the handle; "" when the template has no handle; undefined when `uri` does not match.
   */
  handlePart(uri: string): string | undefined;
}

const VARIABLE = /\{([^{}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z0-9_]+$/;

/** `handles`: the variables that are capabilities; every variable when not given (the safe default). */
export function compileUriTemplate(template: string, handles?: readonly string[]): UriTemplate {
  const variables: string[] = [];
  let pattern = "";
  let last = 0;
  for (const found of template.matchAll(VARIABLE)) {
    const name = found[1]!;
    if (!VARIABLE_NAME.test(name)) throw new Error(`URI template "${template}": only {name} variables are supported`);
    if (variables.includes(name)) throw new Error(`URI template "${template}": variable "${name}" appears twice`);
    variables.push(name);
    pattern += `${escapeRegExp(template.slice(last, found.index))}([^/?#]+)`;
    last = found.index! + found[0].length;
  }
  pattern += escapeRegExp(template.slice(last));
  for (const name of handles ?? []) {
    if (!variables.includes(name)) throw new Error(`URI template "${template}": handle "${name}" is not one of its variables`);
  }
  // The capture group of the last handle: its end is where the handle part of a URI ends (-1: no handle).
  const lastHandle = Math.max(-1, ...(handles ?? variables).map((name) => variables.indexOf(name)));
  // `d`: the match records where each group starts and ends.
  const regex = new RegExp(`^${pattern}$`, "d");
  return {
    variables,
    match(uri) {
      const found = regex.exec(uri);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      for (const [index, name] of variables.entries()) {
        try {
          values[name] = decodeURIComponent(found[index + 1]!);
        } catch {
          return undefined; // malformed percent-encoding: no resource has that name
        }
      }
      return values;
    },
    handlePart(uri) {
      const found = regex.exec(uri);
      if (!found) return undefined;
      return lastHandle === -1 ? "" : uri.slice(0, found.indices![lastHandle + 1]![1]);
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
