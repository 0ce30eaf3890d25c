import { END_REASONS } from '../session/index.js';

export { END_REASONS };

/** Why a node agent stopped: a closed set, never an escaped exception. */
export type EndReason = (typeof END_REASONS)[number];
