import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventChannel } from '../../src/engines/event-channel.ts';
import { EventPipe, type EventSink } from '../../src/engines/event-pipe.ts';

/** A sink that records what it is handed, in order. */
function recorder(): EventSink<string> & { seen: string[]; ends: unknown[] } {
  const seen: string[] = [];
  const ends: unknown[] = [];
  return { seen, ends, event: (event) => seen.push(event), end: (error) => ends.push(error ?? 'end') };
}

describe('an event pipe', () => {
  it('hands pulled events over in order, then the end, and starts its producer at the first ask only', async () => {
    let begun = 0;
    const pipe = new EventPipe<string>({ begin: () => begun++ });
    pipe.push('a');
    assert.equal(begun, 0, 'nothing starts before the consumer asks');
    const first = await pipe.next();
    assert.deepEqual(first, { value: 'a', done: false });
    const waiting = pipe.next();
    pipe.push('b');
    pipe.finish();
    pipe.push('after the end');
    assert.deepEqual(await waiting, { value: 'b', done: false });
    assert.deepEqual(await pipe.next(), { value: undefined, done: true });
    assert.deepEqual(await pipe.next(), { value: undefined, done: true });
    assert.equal(begun, 1);
  });

  it('throws the error that ended it after the events queued before it, once', async () => {
    const pipe = new EventPipe<string>();
    pipe.push('a');
    pipe.finish(new Error('upstream gone'));
    assert.deepEqual(await pipe.next(), { value: 'a', done: false });
    await assert.rejects(pipe.next(), /upstream gone/);
    assert.deepEqual(await pipe.next(), { value: undefined, done: true });
  });

  it('pushes to a listener as each event comes, in the same tick, after what was queued', async () => {
    const pipe = new EventPipe<string>();
    pipe.push('first');
    pipe.push('queued');
    assert.deepEqual(await pipe.next(), { value: 'first', done: false });
    const sink = recorder();
    pipe.listen(sink);
    assert.deepEqual(sink.seen, ['queued']);
    pipe.push('live');
    assert.deepEqual(sink.seen, ['queued', 'live'], 'a pushed event reaches the listener at once');
    pipe.finish(new Error('closing'));
    pipe.finish();
    assert.equal(sink.ends.length, 1);
    assert.match(String(sink.ends[0]), /closing/);
  });

  it('puts an event back in front, for a consumer that read one to choose', async () => {
    const pipe = new EventPipe<string>();
    pipe.push('a');
    pipe.push('b');
    const first = await pipe.next();
    pipe.unshift(first.value as string);
    const all: string[] = [];
    for await (const event of pipe) {
      all.push(event);
      if (all.length === 2) pipe.finish();
    }
    assert.deepEqual(all, ['a', 'b']);
  });

  it('tells its producer once when the consumer leaves early, and not after the end', async () => {
    let left = 0;
    const pipe = new EventPipe<string>({ left: () => void left++ });
    const waiting = pipe.next();
    await pipe.return();
    await pipe.return();
    assert.deepEqual(await waiting, { value: undefined, done: true }, 'a pull waiting when the consumer left ends');
    pipe.push('too late');
    assert.deepEqual(await pipe.next(), { value: undefined, done: true });
    assert.equal(left, 1);

    const ended = new EventPipe<string>({ left: () => void left++ });
    ended.finish();
    await ended.next();
    await ended.return();
    assert.equal(left, 1, 'a consumer that read the end did not leave early');
  });
});

describe('an event channel', () => {
  it('ends once every producer is done, runs its end once, and fails with the first failure', async () => {
    let ends = 0;
    const channel = new EventChannel<string>(2);
    const events = channel.events(async () => {
      channel.push('one');
      channel.done();
      channel.push('two');
      channel.done();
    }, () => ends++);
    const seen: string[] = [];
    for await (const event of events) seen.push(event);
    assert.deepEqual(seen, ['one', 'two']);
    assert.equal(ends, 1);

    const failing = new EventChannel<string>(2);
    const failed = failing.events(async () => {
      failing.push('one');
      failing.done(new Error('producer broke'));
      failing.push('never');
    });
    assert.deepEqual(await failed.next(), { value: 'one', done: false });
    await assert.rejects(failed.next(), /producer broke/);
  });

  it('fails with what its start throws, and runs its end when the consumer leaves', async () => {
    const refused = new EventChannel<string>(1).events(async () => {
      throw new Error('no such model');
    });
    await assert.rejects(refused.next(), /no such model/);

    let ends = 0;
    const channel = new EventChannel<string>(1);
    const events = channel.events(async () => channel.push('one'), () => ends++);
    await events.next();
    await events.return();
    assert.equal(ends, 1);
  });
});
