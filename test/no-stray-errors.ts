/**
 * A vitest reporter that fails a run in which a test printed an error-level log line (the engine's structured logs,
 * `"level":"error"`) that it did not capture, and names the test and the line. Why: an expected error belongs to the
 * test that causes it (captured by a console spy, the engine's tests' `withLogs`, and checked there); one that
 * reaches the output either hides a real error among the expected ones or tells a reader that a passing run went
 * wrong. A line a test captured never gets here: the spy replaces the console while it runs.
 *
 * It covers every project of the template's `npm test`, the engine's included (their workerd consoles are forwarded
 * to vitest like Node's). A run cut short (Ctrl+C, `--bail`) is not judged.
 */
import type { UserConsoleLog } from "vitest";
import type { Reporter, TestModule, TestRunEndReason, Vitest } from "vitest/node";

/** How the engine's log module spells an error line (util/log.ts: one JSON object per line). */
const ERROR_LINE = '"level":"error"';

export class NoStrayErrors implements Reporter {
  private vitest: Vitest | undefined;
  private stray: { where: string; line: string }[] = [];

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(): void {
    this.stray = [];
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (!log.content.includes(ERROR_LINE)) return;
    this.stray.push({ where: this.testOf(log.taskId), line: log.content.trim().slice(0, 300) });
  }

  onTestRunEnd(_testModules: readonly TestModule[], errors: readonly unknown[], reason: TestRunEndReason): void {
    if (reason === "interrupted" || this.stray.length === 0) return;
    // The same array every reporter after this one is given: the summary prints and counts these errors.
    const shown = errors as unknown[];
    for (const { where, line } of this.stray) {
      const error = new Error(`${where} printed an error-level line it did not capture and check (docs/guides/testing.md): ${line}`);
      error.name = "StrayErrorLine";
      error.stack = `${error.name}: ${error.message}`;
      shown.push(error);
    }
    process.exitCode = 1;
  }

  /** The test (file > suite > test) a console line came from, as the summary names it. */
  private testOf(taskId: string | undefined): string {
    const entity = taskId === undefined ? undefined : this.vitest?.state.getReportedEntityById(taskId);
    if (!entity) return "A test file (before or after its tests)";
    if (entity.type === "module") return entity.relativeModuleId;
    return `${entity.module.relativeModuleId} > ${entity.fullName}`;
  }
}
