import { describe, expect, it } from 'vitest';
import { RUNNING_PHASE, loopCancelReason, loopFailure, nextLoopPhase, type ActiveLoopPhase, type LoopPhase, type LoopPhaseEvent } from '../../../engine/scheduler/loop-phase.js';

const boom = new Error('store gone');
const cancelling: ActiveLoopPhase = { kind: 'cancelling', reason: 'user' };
const failing: ActiveLoopPhase = { kind: 'failing', error: boom };
const cancel: LoopPhaseEvent = { kind: 'cancel', reason: 'again' };
const fail: LoopPhaseEvent = { kind: 'fail', error: new Error('later') };
const close: LoopPhaseEvent = { kind: 'close' };

describe('nextLoopPhase', () => {
  it.each<[string, LoopPhase, LoopPhaseEvent, LoopPhase]>([
    ['a cancel stops a running loop', RUNNING_PHASE, { kind: 'cancel', reason: 'user' }, cancelling],
    ['a second cancel keeps the first reason', cancelling, cancel, cancelling],
    ['a fault stops a running loop', RUNNING_PHASE, { kind: 'fail', error: boom }, failing],
    ['a fault wins over a cancel', cancelling, { kind: 'fail', error: boom }, failing],
    ['a cancel does not hide a fault', failing, cancel, failing],
    ['the first fault is the one reported', failing, fail, failing],
    ['closing keeps the phase it closed from', cancelling, close, { kind: 'closed', from: cancelling }],
    ['a closed loop closes once', { kind: 'closed', from: RUNNING_PHASE }, close, { kind: 'closed', from: RUNNING_PHASE }],
    ['a cancel after closing changes nothing', { kind: 'closed', from: RUNNING_PHASE }, cancel, { kind: 'closed', from: RUNNING_PHASE }],
    ['a fault while the last transitions are stored still counts', { kind: 'closed', from: RUNNING_PHASE }, { kind: 'fail', error: boom }, { kind: 'closed', from: failing }],
  ])('%s', (_story, phase, event, expected) => {
    expect(nextLoopPhase(phase, event)).toEqual(expected);
  });

  it('returns the same phase object when an event does not apply, so the loop can tell nothing changed', () => {
    expect(nextLoopPhase(cancelling, cancel)).toBe(cancelling);
    expect(nextLoopPhase(failing, fail)).toBe(failing);
  });

  it('answers why the loop stopped, running or closed', () => {
    expect(loopCancelReason(nextLoopPhase(cancelling, close))).toBe('user');
    expect(loopFailure(nextLoopPhase(failing, close))).toEqual({ error: boom });
    expect(loopFailure(RUNNING_PHASE)).toBeUndefined();
  });
});
