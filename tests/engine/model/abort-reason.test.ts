import { describe, expect, it } from 'vitest';
import { linkedAbort } from '../../../engine/model/abort-reason.js';

describe('linkedAbort', () => {
  it("aborts with the parent's reason while linked, and on its own without touching the parent", () => {
    const run = new AbortController();
    const call = linkedAbort(run.signal);
    const own = linkedAbort(run.signal);

    own.controller.abort(new Error('the record failed'));
    run.abort(new Error('cancelled by the user'));

    expect(own.controller.signal.reason).toEqual(new Error('the record failed'));
    expect(call.controller.signal.aborted).toBe(true);
    expect(call.controller.signal.reason).toEqual(new Error('cancelled by the user'));
  });

  it('is aborted at once under a parent that already was, and no longer follows the parent once unlinked', () => {
    const done = new AbortController();
    done.abort('over');
    expect(linkedAbort(done.signal).controller.signal.reason).toBe('over');

    const run = new AbortController();
    const call = linkedAbort(run.signal);
    call.unlink();
    run.abort('later');
    expect(call.controller.signal.aborted).toBe(false);
  });
});
