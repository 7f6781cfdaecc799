import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedSlots, Slots } from '../../src/shared/slots.js';

// Slots: at most `size` tasks at once, the others in the order they came; a slot is given back
// whether its task succeeds or fails.
describe('Slots', () => {
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { opened, open };
  };
  const turns = async (n = 5) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('runs at most its size at once, and the waiting ones in the order they came', async () => {
    const slots = new Slots(2);
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      slots.run(async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await turns();
    assert.deepEqual(started, [0, 1]);
    assert.equal(slots.running, 2);
    gates[1]!.open();
    await turns();
    assert.deepEqual(started, [0, 1, 2]);
    gates[0]!.open();
    gates[2]!.open();
    await turns();
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    gates[3]!.open();
    gates[4]!.open();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3, 4]);
    assert.equal(slots.running, 0);
  });

  it('gives the slot of a task that fails to the next, and refuses fewer than one slot', async () => {
    const slots = new Slots(1);
    const failing = slots.run(async () => {
      throw new Error('no');
    });
    const next = slots.run(async () => 'ran');
    await assert.rejects(failing, /no/);
    assert.equal(await next, 'ran');
    assert.equal(slots.running, 0);
    assert.throws(() => new Slots(0), /at least one slot/);
    assert.throws(() => new Slots(Number.NaN), /at least one slot/);
  });
});

describe('KeyedSlots', () => {
  it('gives each key its own slots, and forgets a key once nothing runs or waits on it', async () => {
    const slots = new KeyedSlots(1);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const order: string[] = [];
    const a1 = slots.run('a', async () => {
      order.push('a1');
      await held;
    });
    const a2 = slots.run('a', async () => {
      order.push('a2');
    });
    const b1 = slots.run('b', async () => {
      order.push('b1');
    });
    await b1;
    assert.deepEqual(order, ['a1', 'b1'], "b does not wait for a's slot; a2 does");
    assert.equal(slots.keys, 1);
    release();
    await Promise.all([a1, a2]);
    assert.deepEqual(order, ['a1', 'b1', 'a2']);
    assert.equal(slots.keys, 0);
  });
});
