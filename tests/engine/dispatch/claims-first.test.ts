import { describe, expect, it } from 'vitest';
import { ClaimsFirst } from '../../../engine/dispatch/claims-first.js';

describe("a worker's claims go ahead of its nodes' work", () => {
  it("holds a node's work until the claims in flight when it got there are done, not the ones that began later", async () => {
    const claims = new ClaimsFirst();
    const order: string[] = [];
    const first = claims.begin();
    const second = claims.begin();
    first();
    const firstWorks = claims.settled().then(() => order.push('first node works'));
    await Promise.resolve();
    expect(order).toEqual([]);

    const third = claims.begin();
    second();
    order.push('second claimed');
    await firstWorks;
    expect(order).toEqual(['second claimed', 'first node works']);

    const thirdDone = claims.settled().then(() => order.push('after the third claim'));
    third();
    third();
    await thirdDone;
    await claims.settled();
    expect(order.at(-1)).toBe('after the third claim');
  });
});
