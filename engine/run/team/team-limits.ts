/** The bounds of a team run (`team.*` in the config): how far a lead may grow its plan. */
export interface TeamLimits {
  /** Delegated nodes in the whole run. */
  readonly maxNodes: number;
  /** Delegated nodes not yet ended (pending or running) at once. */
  readonly maxWidth: number;
  /** How deep hand-offs nest: 1, the lead delegates and its nodes do not. */
  readonly maxDepth: number;
}

export const DEFAULT_TEAM_LIMITS: TeamLimits = { maxNodes: 12, maxWidth: 4, maxDepth: 1 };

/** The tools of a team lead, named in its node's `tools`; no kind's default set holds them. */
export const TEAM_TOOL_NAMES = ['delegate', 'await_nodes'] as const;
