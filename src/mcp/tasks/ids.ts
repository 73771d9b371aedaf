/**
 * @module tasks/ids
 * Task ids. They are bearer-like handles (SEP-2663: unguessable), and each names its own Durable Object.
 */
import { randomToken } from "../encoding";

/** 128 random bits, base64url: 22 characters. */
export function newTaskId(): string {
  return randomToken(16);
}

/** Why a shape check before any lookup: an id we could never have minted names no task, so no object is woken for it. */
export function isTaskIdShape(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_-]{22}$/.test(value);
}
