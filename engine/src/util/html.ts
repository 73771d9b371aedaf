/**
 * @module util/html
 * Escaping text for HTML: every page the server renders (the landing page, the consent page) puts names a client
 * or a developer chose into markup.
 */

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);
