/**
 * A vitest reporter that fails a run in which a test file it planned never ran, and names the file. Why: when a
 * project cannot start (its pool rejects its configuration, its runtime does not boot), vitest prints the start-up
 * errors among the rest of the output, leaves that project's files out of its count and lists none of them as failed.
 *
 * The files planned are those vitest hands to `onTestRunStart`: each project's include/exclude globs, narrowed by
 * what the run was given (`vitest run some/file`, `--project app`, `--shard`), so a filtered run answers for what it
 * selected and no more. A file ran when a runner collected it: a file that skipped its tests (`describe.skipIf`) ran,
 * and so did one that failed to load (vitest reports that one itself). A run cut short (Ctrl+C, `--bail`) is not judged.
 *
 * Each file that never ran joins the summary as a failed file, with an error saying so, and the run exits non-zero.
 * It must come first in `reporters`: vitest hands every reporter the same list of files, one after the other, and
 * those after it (the summary) are to count these.
 *
 * The template and its engine package keep this same file, each at test/every-file-ran.ts: the engine, a package of
 * its own, imports nothing from the template (the template's test/repo/nothing-hides.test.ts holds the two alike).
 */
import { relative } from "node:path";
import type { RunnerTestFile } from "vitest";
import type { Reporter, TestModule, TestRunEndReason, TestSpecification, Vitest } from "vitest/node";

export class EveryFileRan implements Reporter {
  private vitest: Vitest | undefined;
  private planned: readonly TestSpecification[] = [];
  /** The files a runner collected in this run (their tests ran, or were skipped, or the file failed to load). */
  private collected = new Set<string>();

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunStart(specifications: readonly TestSpecification[]): void {
    this.planned = specifications;
    this.collected.clear();
  }

  onTestModuleCollected(testModule: TestModule): void {
    this.collected.add(testModule.id);
  }

  onTestRunEnd(testModules: readonly TestModule[], _errors: readonly unknown[], reason: TestRunEndReason): void {
    if (reason === "interrupted" || !this.vitest) return;
    const neverRan = this.planned.filter((spec) => !this.collected.has(spec.taskId));
    // The same array every reporter after this one is given: the summary counts what it holds.
    const modules = testModules as TestModule[];
    for (const spec of neverRan) {
      // A module already there was handed to a runner that never collected it (or, in watch mode, is an earlier run's).
      const stale = spec.testModule ? modules.indexOf(spec.testModule) : -1;
      if (stale !== -1) modules.splice(stale, 1);
      this.vitest.state.collectFiles(spec.project, [neverRanFile(spec)]);
      if (spec.testModule) modules.push(spec.testModule);
    }
    if (neverRan.length > 0) process.exitCode = 1;
  }
}

/** A failed file task for a file no runner collected, as a runner registers a file that fails to load. */
function neverRanFile(spec: TestSpecification): RunnerTestFile {
  const name = relative(spec.project.config.root, spec.moduleId);
  const file: RunnerTestFile = {
    id: spec.taskId,
    name,
    fullName: name,
    type: "suite",
    mode: "run",
    tasks: [],
    meta: {},
    filepath: spec.moduleId,
    projectName: spec.project.name,
    pool: spec.pool,
    concurrencyId: 0,
    workerId: 0,
    result: { state: "fail", errors: [{ name: "Error", message: NEVER_RAN }] },
    get file() {
      return file;
    },
  };
  return file;
}

const NEVER_RAN = "This file never ran: no runner collected it. If its project failed to start, the unhandled errors say why.";
