/**
 * @module uri-template
 * Matching URIs against RFC 6570 level-1 templates (`note://{notebook_id}/{note_id}`): each variable matches
 * one non-empty path segment, percent-decoded. Operators such as `{+path}` are refused at startup.
 */

export interface UriTemplate {
  variables: string[];
  match(uri: string): Record<string, string> | undefined;
}

const VARIABLE = /\{([^{}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z0-9_]+$/;

export function compileUriTemplate(template: string): UriTemplate {
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
  const regex = new RegExp(`^${pattern}$`);
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
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
