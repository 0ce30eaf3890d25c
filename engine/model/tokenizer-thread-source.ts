/**
 * The tokenizer thread's side (`TokenizerThread`): the layout of the shared control slots, the
 * states and operations, and the thread's own code.
 */
export const CONTROL_SLOTS = 4;
export const SLOT_STATE = 0;
export const SLOT_OP = 1;
export const SLOT_LENGTH = 2;
export const SLOT_RESULT = 3;

export const STATE_LOADING = 0;
export const STATE_IDLE = 1;
export const STATE_REQUEST = 2;
export const STATE_DONE = 3;
export const STATE_FAILED = 4;
export const STATE_BROKEN = 5;

export const OP_COUNT = 1;
export const OP_ENCODE = 2;
export const OP_SWAP = 3;

/**
 * The thread: loads the tokenizer, then answers one request at a time, laid out as `#call` says
 * (SLOT_LENGTH texts). An error writes its message at the start of the data buffer and its length
 * in SLOT_RESULT, with STATE_FAILED (STATE_BROKEN when the tokenizer did not load).
 */
export const WORKER_SOURCE = `
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { control, port } = workerData;
let data = Buffer.from(workerData.data);
const setState = (state) => { Atomics.store(control, ${SLOT_STATE}, state); Atomics.notify(control, ${SLOT_STATE}); };
const fail = (state, error) => {
  control[${SLOT_RESULT}] = data.write(String((error && error.message) || error), 0, 'utf8');
  setState(state);
};
let tokenizer;
try {
  tokenizer = require(workerData.tokenizer);
} catch (error) {
  fail(${STATE_BROKEN}, error);
}
const plain = { disallowedSpecial: new Set() };
if (tokenizer !== undefined) {
  // The tables are young: the collector would move them at its next scavenges, some 40 ms, while
  // a caller waits for an answer. Collected now, before the first request, they are old.
  const v8 = require('node:v8');
  v8.setFlagsFromString('--expose-gc');
  const gc = require('node:vm').runInNewContext('gc');
  v8.setFlagsFromString('--no-expose-gc');
  gc();
  setState(${STATE_IDLE});
}
while (tokenizer !== undefined) {
  const state = Atomics.load(control, ${SLOT_STATE});
  if (state !== ${STATE_REQUEST}) {
    Atomics.wait(control, ${SLOT_STATE}, state);
    continue;
  }
  try {
    const op = control[${SLOT_OP}];
    if (op === ${OP_SWAP}) {
      data = Buffer.from(receiveMessageOnPort(port).message);
      setState(${STATE_DONE});
      continue;
    }
    const count = control[${SLOT_LENGTH}];
    const words = new Uint32Array(data.buffer);
    const texts = [];
    let offset = 4 * count;
    for (let index = 0; index < count; index += 1) {
      texts.push(data.toString('utf8', offset, offset + words[index]));
      offset += words[index];
    }
    if (op === ${OP_COUNT}) {
      for (let index = 0; index < count; index += 1) words[index] = tokenizer.countTokens(texts[index], plain);
    } else {
      let at = count;
      for (let index = 0; index < count; index += 1) {
        const tokens = tokenizer.encode(texts[index], plain);
        words[index] = tokens.length;
        words.set(tokens, at);
        at += tokens.length;
      }
    }
    setState(${STATE_DONE});
  } catch (error) {
    fail(${STATE_FAILED}, error);
  }
}
`;
