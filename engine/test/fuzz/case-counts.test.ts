/**
 * How many cases the property-based tests run (test/helpers/seed.ts): every case in CI, a tenth locally (at least
 * LOCAL_MINIMUM), or exactly what FC_RUNS says; an FC_RUNS it cannot read stops the run with a message naming it.
 */
import { describe, expect, it } from "vitest";
import { casesFor, LOCAL_MINIMUM } from "../helpers/seed";

describe("fast-check case counts", () => {
  it("runs a tenth of a property's cases locally, at least LOCAL_MINIMUM, and never more than the full count", () => {
    expect(casesFor(3_000, "")).toEqual({ cases: 300, why: "local default" });
    expect(casesFor(1_200, "")).toEqual({ cases: LOCAL_MINIMUM, why: "local default" });
    expect(casesFor(150, "")).toEqual({ cases: 150, why: "local default" });
  });

  it("runs every case with FC_RUNS=full (what CI=true sets) and exactly N cases with FC_RUNS=N", () => {
    expect(casesFor(3_000, "full")).toEqual({ cases: 3_000, why: "FC_RUNS=full" });
    expect(casesFor(3_000, "25")).toEqual({ cases: 25, why: "FC_RUNS=25" });
    expect(casesFor(300, "5000")).toEqual({ cases: 5_000, why: "FC_RUNS=5000" });
  });

  it("refuses an FC_RUNS that is not 'full' or a whole number from 1, naming the value", () => {
    for (const setting of ["0", "-3", "2.5", "lots", "FULL", "1e400"]) {
      expect(() => casesFor(100, setting), setting).toThrow(`FC_RUNS must be "full" or a whole number of cases from 1, not "${setting}"`);
    }
  });
});
