export { DASHBOARD_KEYS, KEY_HELP, keyHelpLines, type DashboardCommand, type DashboardControls, type DashboardKey } from './dashboard-keys.js';
export { applyEvents, approvalToAnswer, composeKey, createDashboardState, moveSelection, togglePanel, MAX_TAIL_LINES, type ComposeVerdict, type DashboardPanel, type DashboardState } from './dashboard-state.js';
export { DEFAULT_REDRAW_MS, openDashboard, type Dashboard, type DashboardActions, type DashboardTerminal, type OpenDashboardOptions } from './dashboard-screen.js';
export { argsSummary, tailLines, type TailLine } from './event-tail-line.js';
export { nodeStages, waitsOn, type Stage } from './node-stages.js';
export { runProgress, type RunProgress } from './render-header.js';
export { renderScreen, type RenderedScreen, type ScreenSize } from './render-screen.js';
export { COLLAPSE_FROM_NODES, stageRows } from './render-stage-list.js';
export { plainText } from './styled-line.js';
