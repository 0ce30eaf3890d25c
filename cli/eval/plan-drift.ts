import picomatch from 'picomatch';

/** Files the plan said it would write against the files that changed. */
export interface PlanDrift {
  /** Changed files no `writes` entry of the plan covers. */
  readonly unplanned: readonly string[];
  /** Files the plan named (literal paths, not globs) that did not change. */
  readonly unwritten: readonly string[];
}

/** The drift between a plan's `writes` (paths or globs) and the files a run changed. Pure. */
export function planDrift(planned: readonly string[], changed: readonly string[]): PlanDrift {
  const matches = planned.length === 0 ? () => false : picomatch([...planned], { dot: true });
  const changedSet = new Set(changed);
  return {
    unplanned: [...changed].filter((path) => !matches(path)).sort(),
    unwritten: [...new Set(planned)].filter((entry) => !picomatch.scan(entry).isGlob && !changedSet.has(entry)).sort(),
  };
}
