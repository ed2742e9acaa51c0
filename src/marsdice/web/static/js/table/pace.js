// Pacing: the steps a person did not make themselves (a bot's, a stand-in's, another player's,
// the dice) are shown one at a time, each for the reading time of the person's speed setting,
// so a bot's whole turn no longer flashes past and one's own roll stays readable. The speed is
// per person (localStorage, every table); "instant" shows each step as it comes.
//
// The pacer only delays what the store shows: the connection applies every message to its
// own state at once (the protocol never waits), and a whole state (hello, a resync) drops
// whatever is still waiting and shows at once.

const KEY = "marsdice.speed";
/** Each speed's reading time for one step, in milliseconds. */
export const SPEEDS = Object.freeze({ instant: 0, fast: 500, normal: 1200, slow: 2400 });
export const DEFAULT_SPEED = "normal";

/** The person's speed (a name of SPEEDS). */
export function speed() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && Object.hasOwn(SPEEDS, saved)) return saved;
  } catch {
    /* no storage: the default */
  }
  return DEFAULT_SPEED;
}

const listeners = new Set();

/** Keep a new speed for every table and tell the pacers that run. */
export function setSpeed(name) {
  if (!Object.hasOwn(SPEEDS, name)) throw new RangeError(`no speed ${name}`);
  try {
    localStorage.setItem(KEY, name);
  } catch {
    /* kept for this page only */
  }
  for (const listener of [...listeners]) listener(name);
}

/**
 * A pacer over `show(message)`: `step(message, hold)` shows the message once the one shown
 * before has been on screen for its hold (true: the reading time; false: none, a person's own
 * move), `update(message)` replaces the newest message (shown or waiting) with news of the same
 * version, `now(message)` drops the queue and shows at once, `flush()` shows what waits at once.
 * `onQueue(count)` hears how many messages wait.
 */
export function createPacer(show, { onQueue = () => {} } = {}) {
  const queue = []; // [{message, hold}]
  let readyAt = 0; // when the shown message has been read
  let timer = null;
  let current = speed();

  const delay = () => SPEEDS[current];

  function display({ message, hold }) {
    readyAt = performance.now() + (hold ? delay() : 0);
    show(message);
  }

  function pump() {
    clearTimeout(timer);
    timer = null;
    while (queue.length && (delay() === 0 || performance.now() >= readyAt)) {
      display(queue.shift());
      onQueue(queue.length);
    }
    if (queue.length) timer = setTimeout(pump, Math.max(0, readyAt - performance.now()));
  }

  const onSpeed = (name) => {
    current = name;
    if (delay() === 0) readyAt = 0;
    pump();
  };
  listeners.add(onSpeed);

  return {
    step(message, hold) {
      queue.push({ message, hold });
      onQueue(queue.length);
      pump();
    },
    update(message) {
      if (queue.length) queue[queue.length - 1].message = message;
      else show(message);
    },
    now(message) {
      queue.length = 0;
      onQueue(0);
      clearTimeout(timer);
      timer = null;
      readyAt = 0;
      show(message);
    },
    flush() {
      readyAt = 0;
      const waiting = queue.splice(0);
      for (const entry of waiting) show(entry.message);
      onQueue(0);
      clearTimeout(timer);
      timer = null;
    },
    waiting: () => queue.length,
    close() {
      clearTimeout(timer);
      listeners.delete(onSpeed);
    },
  };
}
